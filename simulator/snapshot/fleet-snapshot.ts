/**
 * A fleet's snapshot (issue 32, point 3): every badge as plain JSON data — its machine's
 * persisted state, the clip it plays and how far, what waits behind it, its behaviour's timers
 * and counters, its seeded generators' states, its battery, place and kept records — taken by
 * `fleet.snapshot()` and checked here before `startFleet({ snapshot })` starts anything
 * (docs/decisions.md FS1–FS19).
 */

import type { VirtualClock } from '../../clock/clock.ts';
import type { FixtureBehaviour } from '../../fixtures/fixtures.schema.ts';
import { validatorWithItemsApart } from '../../protocol/items-apart.ts';
import type { SeededRandom } from '../../protocol/seeded-random.ts';
import { fieldPath } from '../../protocol/validator.ts';
import type { Badge } from '../badge.ts';
import type { BadgeState, SavedTimer } from '../badge-types.ts';
import type { BehaviourRun, BehaviourState } from '../behaviours.ts';
import { FleetError } from '../fleet-connect.ts';
import type { KeptClip } from '../heard-clip.ts';
import { FLEET_SNAPSHOT_FORMAT, FleetSnapshotSchema } from './fleet-snapshot.schema.ts';

/**
 * A fleet's snapshot as its users hold it: data to keep (JSON) and give back to `startFleet`.
 * Its badges' parts are described by its JSON Schema, not by types of the package (FS9).
 */
export interface FleetSnapshot {
  /** `FLEET_SNAPSHOT_FORMAT`, written out so the public types name no internal constant. */
  readonly format: 'badge-sim-fleet/1';
  /** The instant (the badges' clock, ms since the epoch) it was taken at. */
  readonly at: number;
  /** The seed the fleet's draws came from: a restore goes on with it. */
  readonly seed: number;
  readonly clips: readonly unknown[];
  readonly badges: readonly { readonly deviceId: string; readonly [field: string]: unknown }[];
}

/** One badge of a snapshot: the badge's own state, its behaviour and its generators. */
export interface SavedBadge extends BadgeState {
  behaviour: FixtureBehaviour | null;
  behaviourState: BehaviourState | null;
  random: Record<'behaviour' | 'faults' | 'reconnect', number[]>;
}

export interface SavedFleet {
  format: typeof FLEET_SNAPSHOT_FORMAT;
  at: number;
  seed: number;
  clips: KeptClip[];
  badges: SavedBadge[];
}

/** A badge of a fleet with what a snapshot needs beside it. */
export interface FleetBadge {
  badge: Badge;
  behaviour: FixtureBehaviour | undefined;
  run: BehaviourRun | undefined;
  random: Record<'behaviour' | 'faults' | 'reconnect', SeededRandom>;
}

/** Takes the fleet's snapshot at the clock's instant (decision FS1). */
export function takeFleetSnapshot(
  badges: readonly FleetBadge[],
  clock: VirtualClock,
  seed: number,
): FleetSnapshot {
  const clips: KeptClip[] = [];
  const index = new Map<KeptClip, number>();
  const clipIndex = (clip: KeptClip) => {
    let i = index.get(clip);
    if (i === undefined) {
      i = clips.push(clip) - 1;
      index.set(clip, i);
    }
    return i;
  };
  const saved: SavedBadge[] = badges.map(({ badge, behaviour, run, random }) => ({
    ...badge.saveState(clipIndex),
    behaviour: behaviour ?? null,
    behaviourState: run?.state() ?? null,
    random: {
      behaviour: random.behaviour.stream.state,
      faults: random.faults.stream.state,
      reconnect: random.reconnect.stream.state,
    },
  }));
  rankTimers(saved);
  const snapshot: SavedFleet = {
    format: FLEET_SNAPSHOT_FORMAT,
    at: clock.now(),
    seed,
    clips: clips.map((c) => ({ ...c })),
    badges: saved,
  };
  return snapshot as unknown as FleetSnapshot;
}

/** Every timer a saved badge holds (its own and its behaviour's). */
function timersOf(badge: SavedBadge): SavedTimer[] {
  return [
    ...(badge.clip ? [badge.clip] : []),
    ...badge.buttons,
    ...(badge.dropBack ? [badge.dropBack] : []),
    ...(badge.behaviourState?.timers ?? []),
  ];
}

/**
 * A timer's `seq` becomes its rank among the fleet's timers due at its instant and before it:
 * the clock's own counter means nothing to another clock, the order does (FS4).
 */
function rankTimers(badges: SavedBadge[]): void {
  const all = badges.flatMap(timersOf).sort((a, b) => a.due - b.due || a.seq - b.seq);
  all.forEach((timer, rank) => {
    timer.seq = rank;
  });
}

/** A badge at a time: the whole schema's one function is too large for V8 to optimise. */
const validateSnapshot = validatorWithItemsApart(FleetSnapshotSchema, [['badges']]);

/**
 * Reads a snapshot given to `startFleet` (the object, or its JSON text) and checks it whole:
 * its format, its shape, and that what it names holds together. A FleetError names the field
 * and what to do; nothing has started yet (FS8).
 */
export function readFleetSnapshot(given: unknown, deviceIds: ReadonlySet<string>): SavedFleet {
  let data = given;
  if (typeof given === 'string') {
    try {
      data = JSON.parse(given);
    } catch (error) {
      throw new FleetError(
        `badge-sim: snapshot is not JSON (${(error as Error).message}): is the file cut short? Take it again with fleet.snapshot()`,
      );
    }
  }
  const format = (data as { format?: unknown } | null)?.format;
  if (format !== FLEET_SNAPSHOT_FORMAT) {
    throw new FleetError(
      `badge-sim: snapshot.format is ${JSON.stringify(format)}, not '${FLEET_SNAPSHOT_FORMAT}': this badge-sim reads only its own fleet snapshots; take it again with this version's fleet.snapshot()`,
    );
  }
  const error = validateSnapshot(data);
  if (error) {
    throw new FleetError(
      `badge-sim: ${fieldPath(error, 'snapshot')} ${error.message}: the snapshot was edited or cut short; take it again with fleet.snapshot()`,
    );
  }
  const snapshot = data as SavedFleet;
  checkConsistent(snapshot, deviceIds);
  return snapshot;
}

/** What the schema cannot say: devices known and once, clips named, timers not in the past. */
function checkConsistent(snapshot: SavedFleet, deviceIds: ReadonlySet<string>): void {
  const seen = new Set<string>();
  snapshot.badges.forEach((badge, i) => {
    const where = `snapshot.badges[${i}]`;
    const refuse = (field: string, problem: string) => {
      throw new FleetError(`badge-sim: ${where}.${field} ${problem}`);
    };
    if (!deviceIds.has(badge.deviceId))
      refuse(
        'deviceId',
        `'${badge.deviceId}' is not a device of this fleet: start it on the fixtures (and group, devices, count) the snapshot was taken with, or remove that badge from the snapshot`,
      );
    if (seen.has(badge.deviceId))
      refuse('deviceId', `'${badge.deviceId}' is in the snapshot twice: keep one`);
    seen.add(badge.deviceId);
    if (badge.machine.context.deviceId !== badge.deviceId)
      refuse(
        'machine.context.deviceId',
        `'${badge.machine.context.deviceId}' is not the badge's device '${badge.deviceId}'`,
      );
    const { heard, activity } = badge;
    if (heard.clip.length !== heard.at.length || activity.kind.length !== activity.at.length)
      refuse('heard', 'and activity need as many instants (at) as entries (clip, kind)');
    const clip = heard.clip.findIndex((c) => c >= snapshot.clips.length);
    if (clip >= 0)
      refuse(
        `heard.clip[${clip}]`,
        `names clip ${heard.clip[clip]}, but the snapshot has ${snapshot.clips.length}`,
      );
    if (badge.clip && !badge.machine.context.current)
      refuse('clip', 'is a clip timer, but machine.context.current plays no clip');
    const early = timersOf(badge).find((t) => t.due < snapshot.at);
    if (early)
      refuse('', `has a timer due at ${early.due}, before the snapshot's instant ${snapshot.at}`);
    if (badge.behaviourState && !badge.behaviour)
      refuse('behaviourState', 'is given, but the badge has no behaviour');
  });
}
