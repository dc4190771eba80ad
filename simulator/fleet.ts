/**
 * A fleet: many virtual badges connected to one stub, with one handle (`await using`).
 *
 * The fleet reaches its stub through a `StubConnection` (stub-connection.ts): one in this
 * process (a `StubHandle`: badges share its virtual clock) or one by URL (badges follow the
 * stub's clock). The fleet adds a settle hook to the badges' clock, so that the clock waits
 * until the stub has handled what the badges sent.
 */
import { randomBytes } from 'node:crypto';
import type { InspectionEvent } from 'xstate';
import { StubControlClient } from '../client/control-client.ts';
import { type CaPem, fetchTrusting, untrustedCertificateHint } from '../client/trust.ts';
import { deviceFaultProblem } from '../fixtures/device-faults.ts';
import {
  FixtureBehaviour as BehaviourSchema,
  type FixtureBehaviour,
  type FixtureDevice,
  type Fixtures,
} from '../fixtures/fixtures.schema.ts';
import type { Clock } from '../protocol/clock.ts';
import { CONTROL_PREFIX } from '../protocol/control-api.schema.ts';
import { parseDurationRange } from '../protocol/duration.ts';
import { flakyEveryProblem } from '../protocol/flaky.ts';
import { nearestWord } from '../protocol/nearest-word.ts';
import { OPEN_FILES_HEADROOM, roomForBadges } from '../protocol/open-files.ts';
import { hasOwn, ownValue } from '../protocol/own.ts';
import { seededRandom } from '../protocol/seeded-random.ts';
import { shardOf } from '../protocol/shard.ts';
import { fieldPath, validatorOf } from '../protocol/validator.ts';
import type { StubHandle } from '../server-stub/start-stub.ts';
import { ACTIVITY_CAP, Badge, type BadgeStatus, HEARD_CAP, type HeardEntry } from './badge.ts';
import { runBehaviour } from './behaviours.ts';
import { connectAndSettle, FleetError, StubUnreachableError } from './fleet-connect.ts';
import type { WorkerFleetHandle } from './fleet-workers.ts';
import { HttpStubConnection } from './http-stub-connection.ts';
import { InProcessStubConnection } from './in-process-stub-connection.ts';
import type { StubConnection } from './stub-connection.ts';
import { Backoff, BadgeLink, DEFAULT_RECONNECT, Outstanding } from './transport.ts';
import { createTextToSpeech, type TextToSpeech, type TtsName } from './tts/text-to-speech.ts';

export { FleetError, StubUnreachableError };

export interface FleetOptions {
  /** An embedded stub (shared clock), the base URL of a running stub, or a connection to one. */
  stub: StubHandle | string | StubConnection;
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
}

/**
 * What a fleet's badges keep in all, shared equally between them (each at most HEARD_CAP and
 * ACTIVITY_CAP, at least 1): a fleet of 1,000 keeps 100 clips a badge, a fleet of 10 the full
 * 1,000. Memory then stays flat however large the fleet and however long it runs (H4).
 */
export const FLEET_HEARD_BUDGET = 100_000;
export const FLEET_ACTIVITY_BUDGET = 100_000;

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

/**
 * Starts a fleet: its badges in this thread (a `FleetHandle` with every `Badge`), or with
 * `workers`, split over worker threads (a `WorkerFleetHandle` with the fleet's numbers).
 */
export function startFleet(options: WorkerFleetOptions): Promise<WorkerFleetHandle>;
export function startFleet(options: FleetOptions & { workers?: undefined }): Promise<FleetHandle>;
export async function startFleet(
  options: FleetOptions & { workers?: number },
): Promise<FleetHandle | WorkerFleetHandle> {
  if (options.workers !== undefined) {
    const { startFleetInWorkers } = await import('./fleet-workers.ts');
    return startFleetInWorkers(options as WorkerFleetOptions);
  }
  return startFleetHere(options);
}

async function startFleetHere(options: FleetOptions): Promise<FleetHandle> {
  // Set once the badges exist: what an unreachable stub means for them.
  let started: readonly Badge[] | undefined;
  const connection = connectionOf(options, (code, error) =>
    started === undefined
      ? firstContactError(connection.url, error)
      : new StubUnreachableError(
          `badge-sim: the stub at ${connection.url} is unreachable (${code}); ${summary().reconnecting} of ${started.length} badges are reconnecting`,
          code,
        ),
  );
  const ca = options.ca ?? connection.ca;
  const devices = selectDevices(await connection.fixtures(), options);
  // A stub in this process holds the other end of every badge's socket here too; badges that
  // dial it without a socket (SP5) hold no file at all.
  if (!connection.dialDevice)
    checkOpenFiles(
      devices.length,
      roomForBadges(),
      connection instanceof InProcessStubConnection ? 2 : 1,
    );
  const tts =
    typeof options.tts === 'object'
      ? options.tts
      : await createTextToSpeech(options.tts ?? 'estimate');
  const defaultBehaviour = options.behaviour
    ? checkBehaviour(options.behaviour, 'behaviour')
    : undefined;
  const guardMs = options.settleGuardMs ?? 5_000;
  const reconnect = checkReconnect(options.reconnect);
  const outstanding = new Outstanding();
  const cleanups: (() => void)[] = [];

  const badgeClock = await connection.badgeClock(() => started ?? []);
  const clock = badgeClock.clock;
  // A timer of a badge (a tap) sends on that badge's own socket: the clock waits until the
  // stub has handled it, whichever clock it is.
  cleanups.push(
    clock.onSettle(async () => {
      if (outstanding.count === 0) return false;
      await outstanding.quiet(guardMs);
      return true;
    }),
  );

  // One session a fleet: its badges' reconnects take their own connections over (D13).
  const session = options.session ?? randomBytes(12).toString('base64url');
  const keep = keptPerBadge(devices.length);
  const badges: Badge[] = devices.map(
    (device) =>
      new Badge({
        deviceId: device.id,
        key: device.key,
        clock,
        tts,
        batteryLevel: device.battery_level,
        location: device.location ?? null,
        session,
        keep,
        ...(options.inspect ? { inspect: options.inspect } : {}),
        link: (handlers) =>
          new BadgeLink(
            connection.devicesUrl,
            handlers,
            outstanding,
            ca,
            undefined,
            connection.dialDevice,
          ),
        onStubClock: badgeClock.follow,
        onStubTime: badgeClock.catchUp,
        onVanish: connection.vanished && (() => connection.vanished!(device.id)),
        // Its own stream: reconnect draws never shift a behaviour's draws.
        reconnect: reconnect && {
          ...reconnect,
          random: seededRandom(options.seed ?? 0, device.id, 'reconnect'),
        },
      }),
  );
  started = badges;
  const byId = new Map(badges.map((b) => [b.deviceId, b]));
  devices.forEach((device, i) => {
    const given = ownValue(options.behaviours, device.id) ?? device.behaviour;
    const behaviour = given
      ? checkBehaviour(given, `behaviour of device ${device.id}`)
      : defaultBehaviour;
    if (behaviour) {
      cleanups.push(
        runBehaviour(
          badges[i]!,
          behaviour,
          clock,
          seededRandom(options.seed ?? 0, device.id),
          // Its own stream: adding a device fault shifts no ack or flaky draw.
          seededRandom(options.seed ?? 0, device.id, 'faults'),
        ),
      );
    }
  });
  // Badges waiting their turn to connect for the first time (they count as connecting).
  const queued = new Set<Badge>();
  if (options.connect ?? true) cleanups.push(connectInWaves(badges, queued));

  const badge = (deviceId: string) => {
    const found = byId.get(deviceId);
    if (!found) throw new FleetError(`badge-sim: no badge '${deviceId}' in this fleet`);
    return found;
  };
  const connectedCount = () => badges.reduce((n, b) => n + (b.online ? 1 : 0), 0);
  const summary = (): FleetSummary => {
    const s = emptySummary(badges.length);
    for (const b of badges) {
      s.reconnects += b.reconnects;
      if (b.online) s.online++;
      else if (b.reconnecting) {
        s.reconnecting++;
        s.downForMs = Math.max(s.downForMs, b.downForMs);
      } else if (b.status === 'connecting' || queued.has(b)) s.connecting++;
      else {
        s.offline++;
        if (b.gaveUpOn !== undefined) s.refused++;
      }
    }
    return s;
  };
  /** Both sides quiet in one pass: what one answered may have given the other work. */
  const settled = async () => {
    for (let pass = 0; pass < 100; pass++) {
      const badgesBusy = outstanding.count > 0;
      await outstanding.quiet(guardMs);
      const stubBusy = await connection.settle();
      if (!badgesBusy && !stubBusy && outstanding.count === 0) return;
    }
  };
  let closed: Promise<void> | undefined;
  const close = () => {
    closed ??= (async () => {
      for (const cleanup of cleanups) cleanup();
      for (const b of badges) b.dispose();
      badgeClock.dispose();
    })();
    return closed;
  };

  return {
    badges,
    clock,
    badge,
    status: (id) => badge(id).status,
    transcript: (id) => badge(id).transcript,
    connectedCount,
    summary,
    kept: () => keptBy(badges),
    waitUntilConnected: (count = badges.length, timeoutMs = 30_000) =>
      connectAndSettle({
        count,
        timeoutMs,
        untilOnline: (n, ms) => untilOnline(badges, n, ms),
        settled,
        reconnect,
        timedOut: (lost) => {
          const refused = badges.find((b) => b.errors.length > 0);
          const reconnecting = summary().reconnecting;
          return new FleetError(
            `badge-sim: ${connectedCount()} of ${count} badges connected after ${timeoutMs} ms` +
              (lost && reconnecting > 0
                ? `; the stub at ${connection.url} is unreachable (${lost.code}), ${reconnecting} badges reconnecting`
                : refused
                  ? ` (device ${refused.deviceId}: ${refused.errors.at(-1)!.message})`
                  : ''),
          );
        },
      }),
    settled,
    advanceBy: (ms) => badgeClock.advanceBy(ms, settled),
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** The caps and dropped counts of every badge, added up. */
function keptBy(badges: readonly Badge[]): FleetKept {
  const sum: FleetKept = {
    heard: { cap: 0, dropped: 0 },
    activity: { cap: 0, dropped: 0 },
    errors: { cap: 0, dropped: 0 },
  };
  for (const badge of badges) {
    const kept = badge.kept;
    for (const what of ['heard', 'activity', 'errors'] as const) {
      sum[what].cap += kept[what].cap;
      sum[what].dropped += kept[what].dropped;
    }
  }
  return sum;
}

/**
 * Resolves true once `count` badges are online, false after `timeoutMs` (real time: connecting
 * is network I/O). Woken by every change of a badge's state, not by polling.
 */
function untilOnline(badges: readonly Badge[], count: number, timeoutMs: number): Promise<boolean> {
  // Kept as badges change, not counted again on every change: with 50,000 badges
  // connecting, counting them all each time is billions of steps.
  const online = new Set(badges.filter((b) => b.online));
  if (online.size >= count) return Promise.resolve(true);
  return new Promise<boolean>((resolve) => {
    const subscriptions = badges.map((b) =>
      b.on('stateChanged', () => {
        if (b.online) online.add(b);
        else online.delete(b);
        if (online.size >= count) stopWaiting(true);
      }),
    );
    const guard = setTimeout(() => stopWaiting(false), timeoutMs);
    function stopWaiting(reached: boolean) {
      clearTimeout(guard);
      for (const subscription of subscriptions) subscription.unsubscribe();
      resolve(reached);
    }
  });
}

/**
 * Every badge holds a socket of this process: more badges than the process may open files
 * would connect only in part, the rest failing again and again (decision SC2).
 */
export function checkOpenFiles(badges: number, fit: number | undefined, socketsPerBadge = 1): void {
  if (fit === undefined || badges * socketsPerBadge <= fit) return;
  const n = (count: number) => count.toLocaleString('en-US');
  throw new FleetError(
    `badge-sim: ${n(badges)} badges need ${n(badges * socketsPerBadge)} sockets${socketsPerBadge > 1 ? ' (the stub is in this process: both ends of each are here)' : ''}, but this process may open at most ${n(fit + OPEN_FILES_HEADROOM)} files (ulimit -n), room for ${n(Math.floor(fit / socketsPerBadge))} badges: raise the limit (ulimit -n) or split the fleet over processes with --shard i/n (startFleet's shard), each under it.`,
  );
}

/** First connects in flight at once: more only queue up in the stub's accept backlog. */
export const CONNECT_WINDOW = 256;
/** Real ms a badge may hold its place in the window before the next one starts anyway. */
export const CONNECT_SLOT_MS = 5_000;

/**
 * Connects every badge, at most CONNECT_WINDOW at a time: each one welcomed (or failed) lets
 * the next start. Thousands of connects at once overflow the stub's listen backlog and starve
 * the event loop, so hellos leave late and the stub's handshake guard drops them. Returns the
 * function that stops starting more (the fleet closes). Exported for its tests only.
 * @internal
 */
export function connectInWaves(
  badges: readonly Pick<Badge, 'on' | 'connect' | 'offlineOnPurpose' | 'status'>[],
  queued: Set<unknown>,
  { window = CONNECT_WINDOW, slotMs = CONNECT_SLOT_MS } = {},
): () => void {
  for (const badge of badges) queued.add(badge);
  let next = 0;
  let inFlight = 0;
  let stopped = false;
  const startMore = () => {
    while (!stopped && inFlight < window && next < badges.length) {
      const badge = badges[next++]!;
      queued.delete(badge);
      // Sent offline while it waited (a behaviour, a step), or already brought online by
      // `comeBack`: nothing to start.
      if (badge.offlineOnPurpose || badge.status !== 'offline') continue;
      inFlight++;
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        clearTimeout(slowGuard);
        subscription.unsubscribe();
        inFlight--;
        startMore();
      };
      const subscription = badge.on('stateChanged', ({ state }) => {
        if (state !== 'connecting') release();
      });
      // A stub that takes the socket but never answers must not hold the line: after this
      // long (real time, a transport guard) the next badge starts; this one goes on trying.
      const slowGuard = setTimeout(release, slotMs);
      slowGuard.unref();
      badge.connect();
    }
  };
  startMore();
  // The guards of badges still in the window are unref'd: they never keep a process alive.
  return () => {
    stopped = true;
    queued.clear();
  };
}

function checkReconnect(
  given: FleetOptions['reconnect'],
): { initialMs: number; maxMs: number } | false {
  if (given === false) return false;
  const initialMs = given?.initialMs ?? DEFAULT_RECONNECT.initialMs;
  const maxMs = given?.maxMs ?? Math.max(DEFAULT_RECONNECT.maxMs, initialMs);
  if (
    !(Number.isFinite(initialMs) && initialMs > 0 && Number.isFinite(maxMs) && maxMs >= initialMs)
  ) {
    throw new FleetError(
      `badge-sim: reconnect needs 0 < initialMs <= maxMs (ms), got initialMs ${initialMs}, maxMs ${maxMs}`,
    );
  }
  return { initialMs, maxMs };
}

/**
 * Waits (real time) until something answers HTTP at `stubUrl`, retrying a refused or failed
 * connection with the reconnect backoff: for a fleet started at the same time as its stub.
 * `onWaiting` hears each failure (what went wrong, and the real ms waited so far). Throws a
 * FleetError once `timeoutMs` have passed; `timeoutMs` 0 tries once. Whether it is a stub is
 * `startFleet`'s to say.
 */
export async function waitForStub(
  stubUrl: string,
  options: {
    timeoutMs: number;
    onWaiting?: (problem: string, waitedMs: number) => void;
    /** A CA to trust besides Node's (`startFleet`'s `ca`). */
    ca?: CaPem;
  },
): Promise<void> {
  const fetch = fetchTrusting(options.ca);
  const url = `${stubUrl.replace(/\/+$/, '')}${CONTROL_PREFIX}/health`;
  const backoff = new Backoff(DEFAULT_RECONNECT);
  const started = performance.now();
  for (;;) {
    let problem: string;
    let retry: boolean;
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
      await response.body?.cancel();
      return;
    } catch (error) {
      // An untrusted certificate will not pass by waiting: say what to do.
      const untrusted = untrustedCertificateHint(error);
      if (untrusted)
        throw new FleetError(`badge-sim: cannot reach the stub at ${stubUrl}: ${untrusted}`);
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      problem = cause?.code ?? cause?.message ?? (error as Error).message;
      // A network error (refused, reset, timed out, no such host yet) may pass; a URL fetch
      // will never open (a bad port, a malformed URL) will not.
      retry = typeof cause?.code === 'string' || (error as Error).name === 'TimeoutError';
    }
    const waited = performance.now() - started;
    if (!retry || waited >= options.timeoutMs) {
      throw new FleetError(
        `badge-sim: cannot reach the stub at ${stubUrl} (${problem}${retry && options.timeoutMs > 0 ? ` for ${Math.round(waited / 1000)} s` : ''}): is it running? Start one with 'badge-sim stub'.`,
      );
    }
    options.onWaiting?.(problem, waited);
    const delay = Math.min(backoff.next(), options.timeoutMs - waited);
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

/**
 * The connection to the stub the options name: the given one, one to a stub in this process
 * (badges share its clock), or one by URL (badges follow its clock).
 */
function connectionOf(
  options: FleetOptions,
  unreachable: (code: string, error: unknown) => Error,
): StubConnection {
  const stub = options.stub;
  if (typeof stub === 'string') {
    const url = stub.replace(/\/+$/, '');
    const control = new FleetStubControl(url, {
      controlToken: options.controlToken,
      ca: options.ca,
    });
    return new HttpStubConnection(url, control, { ca: options.ca, unreachable });
  }
  if ('badgeClock' in stub) return stub;
  return new InProcessStubConnection(stub, {
    control: () => new StubControlClient(stub.url, { ca: stub.tls?.caPem }),
  });
}

/** The first call to a stub by URL failed: say whether to trust it or to start it. */
function firstContactError(stubUrl: string, error: unknown): FleetError {
  const untrusted = untrustedCertificateHint(error);
  return new FleetError(
    untrusted
      ? `badge-sim: cannot reach the stub at ${stubUrl}: ${untrusted}`
      : `badge-sim: cannot reach the stub at ${stubUrl} (${(error as Error).message}): is it running? Start one with 'badge-sim stub'.`,
  );
}

/** The control API of a stub by URL; a refusal is a FleetError saying what to fix. */
class FleetStubControl extends StubControlClient {
  constructor(
    private readonly stubUrl: string,
    private readonly options: { controlToken?: string; ca?: CaPem },
  ) {
    super(stubUrl, options);
  }

  protected override refusal(status: number, body: unknown, what: string): Error {
    const path = what.replace(/^\S+ /, '');
    if (status === 401) {
      return new FleetError(
        `badge-sim: the stub at ${this.stubUrl} locks its control API and ${this.options.controlToken === undefined ? 'no control token was given' : 'refused the control token given'}: pass its token with --control-token or BADGE_SIM_CONTROL_TOKEN (startFleet's controlToken in code).`,
      );
    }
    if (path === `${CONTROL_PREFIX}/clock/advance`) {
      return new FleetError(
        `badge-sim: the stub refused to advance its clock: ${JSON.stringify(body)}`,
      );
    }
    return new FleetError(
      `badge-sim: ${this.stubUrl} answered ${status} for ${path}${path === `${CONTROL_PREFIX}/fixtures` ? ': is it a badge-sim stub?' : ''}`,
    );
  }
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
