/**
 * The stub's world as one document, and back (issue 32; docs/decisions.md WS1–WS19): taken
 * whole at one instant, restored whole or not at all. What the engine keeps is
 * engine-snapshot.ts's; what may be refused is snapshot-checks.ts's.
 */

import { formatTimestamp } from '../../clock/clock.ts';
import type { Fixtures } from '../../fixtures/fixtures.schema.ts';
import {
  OMITTED_SECRET,
  SNAPSHOT_FORMAT,
  type SnapshotDevice,
  type WorldSnapshot,
} from '../../protocol/snapshot.schema.ts';
import type { DeviceLiveState } from '../device-live-state.ts';
import { EngineError } from '../engine/engine-error.ts';
import type { StubCore } from '../stub-core.ts';
import { captureEngine, restoreEngine } from './engine-snapshot.ts';
import { checkSnapshot, SnapshotError } from './snapshot-checks.ts';

export { SnapshotError };

export interface TakeSnapshotOptions {
  /** `omit`: api keys, tokens and device keys replaced by OMITTED_SECRET (WS6). */
  secrets?: 'include' | 'omit';
  /** What happened, kept out unless asked (WS7). */
  include?: readonly ('journal' | 'recording' | 'badges')[];
  /** What the gateway knows of a device now (online, battery, location); fixtures' otherwise. */
  liveState?: (deviceId: string) => DeviceLiveState;
}

/** The whole world of a stub now, as one JSON-ready document. */
export function takeSnapshot(core: StubCore, options: TakeSnapshotOptions = {}): WorldSnapshot {
  const { engine, timers, events } = captureEngine(core.engine, core.clock);
  const { mode, scale } = core.clock.state;
  const now = core.clock.now();
  const snapshot: WorldSnapshot = {
    format: SNAPSHOT_FORMAT,
    secrets: 'included',
    taken_at: formatTimestamp(now),
    fixtures: structuredClone(core.fixtures),
    settings: structuredClone(core.settings),
    clock: { mode, scale, now, timers },
    ids: core.ids.state,
    engine,
    events,
    tokens: core.tokens.toSnapshot(),
    faults: core.faults.toSnapshot(),
    invocations: structuredClone(core.invocations),
    devices: devicesOf(core.fixtures, options.liveState),
  };
  if (options.include?.includes('journal'))
    snapshot.journal = core.journal.list({ limit: core.settings.journalLimit });
  if (options.include?.includes('recording')) snapshot.recording = core.recorder.list();
  return options.secrets === 'omit' ? withoutSecrets(snapshot) : snapshot;
}

/**
 * Restores a snapshot into a stub: every check first (a refusal, a `SnapshotError` naming the
 * field, changes nothing), then the fixtures are loaded (a reset: listeners hear it) and the
 * world is put back, its clock at the snapshot's instant, each timer made again (WS11).
 */
export function restoreSnapshot(core: StubCore, input: unknown): WorldSnapshot {
  const { snapshot, fixtures, taskRows } = checkSnapshot(input, core.settings);
  let placeFaults: () => void;
  try {
    placeFaults = core.faults.prepareRestore(snapshot.faults, snapshot.ids.seed ?? undefined);
  } catch (error) {
    if (error instanceof EngineError)
      throw new SnapshotError(error.field ?? 'faults', error.message);
    throw error;
  }
  core.loadFixtures(fixtures);
  const { clock } = core;
  // The snapshot's mode first: a running clock would flow past the instant set before it.
  if (snapshot.clock.mode !== clock.mode || snapshot.clock.mode === 'scaled') {
    clock.setMode(snapshot.clock.mode, snapshot.clock.scale);
  }
  clock.restart(snapshot.clock.now);
  core.ids.resume(snapshot.ids);
  core.tokens.restore(snapshot.tokens);
  placeFaults();
  core.invocations.push(...structuredClone(snapshot.invocations));
  restoreEngine(core.engine, clock, snapshot, taskRows);
  core.clockChanged();
  core.restoredAt = snapshot.clock.now;
  return snapshot;
}

/**
 * Whether a badge whose hello says it was restored from a snapshot taken at `resumes` carries
 * on with what it is playing (WS35): `core` was restored from that very instant and its clock
 * has not moved since. Otherwise the hello is any reconnect: what is open plays again.
 */
export function resumesSeamlessly(core: StubCore, resumes: number | undefined): boolean {
  return resumes !== undefined && resumes === core.restoredAt && core.clock.now() === resumes;
}

function devicesOf(
  fixtures: Fixtures,
  liveState: ((deviceId: string) => DeviceLiveState) | undefined,
): SnapshotDevice[] {
  return fixtures.accounts.flatMap((account) =>
    account.devices.map((device) => {
      const live = liveState?.(device.id);
      return {
        device_id: device.id,
        online: live?.online ?? false,
        battery_level: live?.batteryLevel ?? device.battery_level ?? null,
        battery_status: live?.batteryStatus ?? null,
        location: live?.location ?? device.location ?? null,
        last_connect: live?.lastConnect ?? null,
        last_disconnect: live?.lastDisconnect ?? null,
      };
    }),
  );
}

/** A copy to share: every key and token a placeholder (WS6); the control token is never in one. */
function withoutSecrets(snapshot: WorldSnapshot): WorldSnapshot {
  const shared = structuredClone(snapshot);
  shared.secrets = 'omitted';
  for (const account of (shared.fixtures as Fixtures).accounts) {
    account.api_keys = account.api_keys.map(() => OMITTED_SECRET);
    for (const token of account.refresh_tokens ?? []) token.token = OMITTED_SECRET;
    for (const device of account.devices) if (device.key !== undefined) device.key = OMITTED_SECRET;
  }
  for (const token of [...shared.tokens.refresh, ...shared.tokens.access])
    token.token = OMITTED_SECRET;
  return shared;
}
