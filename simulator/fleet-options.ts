/**
 * What a fleet is asked for and what it answers, shared by a fleet in this thread (fleet.ts)
 * and one over worker threads (fleet-workers.ts): its options, the devices they select, the
 * behaviours they give (checked as strictly as fixtures), and its handle and summary.
 */
import type { InspectionEvent } from 'xstate';
import type { CaPem } from '../client/trust.ts';
import type { Clock } from '../clock/clock.ts';
import { deviceFaultProblem } from '../fixtures/device-faults.ts';
import {
  FixtureBehaviour as BehaviourSchema,
  type FixtureBehaviour,
  type FixtureDevice,
  type Fixtures,
} from '../fixtures/fixtures.schema.ts';
import { flakyEveryProblem } from '../fixtures/flaky-every.ts';
import { nearestWord } from '../input/nearest-word.ts';
import { hasOwn } from '../input/own.ts';
import { shardOf } from '../input/shard.ts';
import { parseDurationRange } from '../protocol/duration.ts';
import { fieldPath, validatorOf } from '../protocol/validator.ts';
import type { StubTarget } from '../stub-connection/stub-connection.ts';
import { ACTIVITY_CAP, type Badge, type BadgeStatus, HEARD_CAP, type HeardEntry } from './badge.ts';
import { FleetError } from './fleet-connect.ts';
import type { FleetSnapshot } from './snapshot/fleet-snapshot.ts';
import type { TextToSpeech, TtsName } from './tts/text-to-speech.ts';

export interface FleetOptions {
  /** An embedded stub (shared clock), the base URL of a running stub, or a connection to one. */
  stub: StubTarget;
  /** The control token of a running stub whose control API is locked (`--control-token`). */
  controlToken?: string;
  /**
   * PEM of a CA to trust besides Node's (and `NODE_EXTRA_CA_CERTS`), for an `https://` stub
   * in another process (`badge-sim stub --tls` prints its file). An embedded TLS stub's CA is
   * trusted without it.
   */
  ca?: CaPem;
  /** Only the devices of this group (name, in any account). */
  group?: string;
  /** Only the devices of this account. */
  subscriberId?: string;
  /** At most this many badges (the first of the selection). */
  count?: number;
  /**
   * One slice of the selection (after `count`): the i-th of n contiguous slices, so n fleets
   * (processes, machines) drive one stub between them, each device in exactly one.
   */
  shard?: { index: number; total: number };
  /**
   * The session the badges' hellos name (default: new for each fleet): the stub refuses a
   * device online in another session (decision D13).
   */
  session?: string;
  /** Told of everything each badge's machine does (xstate's inspection): for coverage. */
  inspect?: (event: InspectionEvent) => void;
  /** Behaviour of badges whose fixture gives none. */
  behaviour?: FixtureBehaviour;
  /** Behaviours by device id: before the fixture's and the default. */
  behaviours?: Record<string, FixtureBehaviour>;
  /** Exactly these devices (ids), instead of a group or everyone. */
  devices?: string[];
  /** Text-to-speech engine (default `estimate`). */
  tts?: TextToSpeech | TtsName;
  /** Seed of the behaviours' draws. */
  seed?: number;
  /** Connect every badge at start (default true). */
  connect?: boolean;
  /** Real time to wait for quiet wires before the clock goes on (transport guard). */
  settleGuardMs?: number;
  /**
   * Reconnecting after the stub closes a connection or is unreachable (it restarted, it is
   * down): real time, exponential backoff from `initialMs` (default 100) doubling to `maxMs`
   * (default 5,000), equal jitter drawn from the fleet's seed. A refused hello (4001) or a
   * replaced connection (4003) never reconnects. `false`: a badge that loses its connection
   * stays offline.
   */
  reconnect?: { initialMs?: number; maxMs?: number } | false;
  /**
   * Carry on from a fleet's snapshot (`fleet.snapshot()`, or its JSON text): each badge it holds
   * resumes where it was (its machine, the clip it plays, its behaviour's timers and draws);
   * a selected device it does not hold starts fresh. Checked whole before anything starts
   * (docs/decisions.md FS1–FS19). Not with `workers`.
   */
  snapshot?: FleetSnapshot | string;
}

/**
 * What a fleet's badges keep in all, shared equally between them (each at most HEARD_CAP and
 * ACTIVITY_CAP, at least 1): a fleet of 1,000 keeps 100 clips a badge, a fleet of 10 the full
 * 1,000. Memory then stays flat however large the fleet and however long it runs (H4).
 */
export const FLEET_HEARD_BUDGET = 100_000;
const FLEET_ACTIVITY_BUDGET = 100_000;

/** What each of `badges` badges keeps out of the fleet's budgets. */
export function keptPerBadge(badges: number): { heard: number; activity: number } {
  const share = (budget: number, cap: number) =>
    Math.max(1, Math.min(cap, Math.floor(budget / Math.max(1, badges))));
  return {
    heard: share(FLEET_HEARD_BUDGET, HEARD_CAP),
    activity: share(FLEET_ACTIVITY_BUDGET, ACTIVITY_CAP),
  };
}

/** What the fleet's badges keep at most in all, and have forgotten so far (`fleet.kept()`). */
export type FleetKept = Record<'heard' | 'activity' | 'errors', { cap: number; dropped: number }>;

/** The fleet's connections at a glance (`fleet.summary()`). */
export interface FleetSummary {
  total: number;
  /** Welcomed by the stub. */
  online: number;
  /** Connecting for the first time (or after `comeBack`), not yet welcomed. */
  connecting: number;
  /** Lost the connection unexpectedly, or could not make one: trying again with backoff. */
  reconnecting: number;
  /** Offline and not trying: on purpose (a behaviour, `goOffline`), or refused. */
  offline: number;
  /** Of the offline: refused (4001) or replaced (4003), so they stopped trying. */
  refused: number;
  /** Times a badge was welcomed after an unexpected close or a failed connect, since the start. */
  reconnects: number;
  /** Real ms the longest-reconnecting badge has been trying; 0 when none is. */
  downForMs: number;
}

/** A summary of `total` badges before any is counted. */
export function emptySummary(total: number): FleetSummary {
  return {
    total,
    online: 0,
    connecting: 0,
    reconnecting: 0,
    offline: 0,
    refused: 0,
    reconnects: 0,
    downForMs: 0,
  };
}

export interface FleetHandle extends AsyncDisposable {
  readonly badges: readonly Badge[];
  /** The clock the badges run on (the stub's when embedded). */
  readonly clock: Clock;
  badge(deviceId: string): Badge;
  status(deviceId: string): BadgeStatus;
  transcript(deviceId: string): readonly HeardEntry[];
  connectedCount(): number;
  /** Online, connecting, reconnecting and offline counts, and reconnects so far. */
  summary(): FleetSummary;
  /**
   * What the badges keep at most in all (clips heard, activity, errors) and how many entries
   * they have forgotten so far, past their caps or their 7 days (H4).
   */
  kept(): FleetKept;
  /**
   * Waits (real time, at most `timeoutMs`) until `count` badges (all by default) are online
   * and settled. A stub lost meanwhile is waited for while the badges reconnect (F11).
   */
  waitUntilConnected(count?: number, timeoutMs?: number): Promise<void>;
  /** Resolves when every frame the badges sent has been handled by the stub. */
  settled(): Promise<void>;
  /** Advances domain time: the embedded clock, or the external stub's through its control API. */
  advanceBy(ms: number): Promise<void>;
  /**
   * Every badge as plain JSON data at this instant (format `badge-sim-fleet/1`): give it to
   * `startFleet({ snapshot })` to carry on from here (docs/decisions.md FS1–FS19).
   */
  snapshot(): FleetSnapshot;
  close(): Promise<void>;
}

const validateBehaviour = validatorOf(BehaviourSchema);

/** Checks a behaviour given in code as strictly as one read from fixtures. */
export function checkBehaviour(behaviour: unknown, where: string): FixtureBehaviour {
  if (!validateBehaviour(behaviour)) {
    const error = validateBehaviour.errors![0]!;
    throw new FleetError(`badge-sim: ${fieldPath(error, where)} ${error.message}`);
  }
  const b = behaviour as FixtureBehaviour;
  const ranges = [
    b.ack && b.ack !== 'never' && hasOwn(b.ack, 'after') ? ['ack.after', b.ack.after] : undefined,
    b.flaky ? ['flaky.every', b.flaky.every] : undefined,
    b.flaky ? ['flaky.down', b.flaky.down] : undefined,
    ...(b.vanish ?? []).flatMap((gap, i) => [
      [`vanish[${i}].at`, gap.at],
      gap.for === undefined ? undefined : [`vanish[${i}].for`, gap.for],
    ]),
    // Offline times are single durations (the schema's pattern); a range check also bounds them.
    ...(b.offline ?? []).flatMap((drop, i) => [
      [`offline[${i}].at`, drop.at],
      drop.for === undefined ? undefined : [`offline[${i}].for`, drop.for],
    ]),
  ];
  for (const entry of ranges) {
    if (entry && !parseDurationRange(entry[1]!)) {
      throw new FleetError(
        `badge-sim: ${where}.${entry[0]} '${entry[1]}' is not a duration of at most 3650 days or a range low..high`,
      );
    }
  }
  const flaky = b.flaky ? flakyEveryProblem(b.flaky.every) : undefined;
  if (flaky) throw new FleetError(`badge-sim: ${where}.flaky.every ${flaky}`);
  const fault = deviceFaultProblem(b);
  if (fault) throw new FleetError(`badge-sim: ${where}.${fault.path} ${fault.message}`);
  return b;
}

/** A fleet split over worker threads: `startFleet({ ...options, workers: n })`. */
export interface WorkerFleetOptions extends FleetOptions {
  /**
   * Run the badges in this many worker threads (1 to 64), so a large fleet uses several cores:
   * the handle adds up their numbers (`WorkerFleetHandle`). The stub must be reachable by URL
   * (an embedded stub is reached by its `url`), `tts` is a name, and there is no `inspect`.
   */
  workers: number;
}

/** The devices the options select, in the fixtures' order (then `count`, then `shard`). */
export function selectDevices(fixtures: Fixtures, options: FleetOptions): FixtureDevice[] {
  if (options.devices) {
    const byId = new Map(fixtures.accounts.flatMap((a) => a.devices.map((d) => [d.id, d])));
    return options.devices.map((id) => {
      const device = byId.get(id);
      if (!device) throw new FleetError(`badge-sim: the stub has no device '${id}'`);
      return device;
    });
  }
  let accounts = fixtures.accounts;
  if (options.subscriberId) {
    accounts = accounts.filter((a) => a.subscriber_id === options.subscriberId);
    if (accounts.length === 0)
      throw new FleetError(`badge-sim: the stub has no account ${options.subscriberId}`);
  }
  let devices: FixtureDevice[];
  if (options.group) {
    const members = new Set(
      accounts.flatMap((a) =>
        a.groups.filter((g) => g.name === options.group).flatMap((g) => g.members),
      ),
    );
    if (members.size === 0) {
      const names = [...new Set(accounts.flatMap((a) => a.groups.map((g) => g.name)))];
      const nearest = nearestWord(options.group, names);
      throw new FleetError(
        `badge-sim: no group '${options.group}' with devices on the stub${nearest ? `: did you mean '${nearest}'?` : ''} (groups: ${names.join(', ')})`,
      );
    }
    devices = accounts.flatMap((a) => a.devices.filter((d) => members.has(d.id)));
  } else {
    devices = accounts.flatMap((a) => a.devices);
  }
  if (options.count !== undefined) {
    if (options.count > devices.length) {
      throw new FleetError(
        `badge-sim: asked for ${options.count} badges but the stub's fixtures have ${devices.length}` +
          `${options.group ? ` in group '${options.group}'` : ''}; generate more with 'badge-sim stub --generate ${options.count}'`,
      );
    }
    devices = devices.slice(0, options.count);
  }
  return options.shard ? shardOf(devices, options.shard) : devices;
}
