/**
 * A fleet: many virtual badges connected to one stub, with one handle (`await using`).
 *
 * The fleet reaches its stub through a `StubConnection` (stub-connection.ts): one in this
 * process (a `StubHandle`: badges share its virtual clock) or one by URL (badges follow the
 * stub's clock). The fleet adds a settle hook to the badges' clock, so that the clock waits
 * until the stub has handled what the badges sent.
 */
import { randomBytes } from 'node:crypto';
import { locationsOnConnect } from '../fixtures/badge-location.ts';
import { ownValue } from '../input/own.ts';
import { seededRandom } from '../protocol/seeded-random.ts';
import { Badge } from './badge.ts';
import { runBehaviour } from './behaviours.ts';
import {
  checkOpenFiles,
  connectAndSettle,
  connectionOf,
  FleetError,
  firstContactError,
  StubUnreachableError,
} from './fleet-connect.ts';
import {
  checkBehaviour,
  emptySummary,
  type FleetHandle,
  type FleetKept,
  type FleetOptions,
  type FleetSummary,
  keptPerBadge,
  selectDevices,
  type WorkerFleetOptions,
} from './fleet-options.ts';
import type { WorkerFleetHandle } from './fleet-workers.ts';
import { roomForBadges } from './open-files.ts';
import { BadgeLink, DEFAULT_RECONNECT, Outstanding } from './transport.ts';
import { createTextToSpeech } from './tts/text-to-speech.ts';

export { waitForStub } from './fleet-connect.ts';
export { FleetError };

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
  const fixtures = await connection.fixtures();
  const devices = selectDevices(fixtures, options);
  // Every badge connects somewhere: its fixture's location, else its account's site (D16).
  const locationOf = locationsOnConnect(fixtures);
  // A stub in this process holds the other end of every badge's socket here too; badges that
  // dial it without a socket (SP5) hold no file at all: the connection says which.
  checkOpenFiles(devices.length, roomForBadges(), connection.socketsPerBadge ?? 1);
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
        location: locationOf(device),
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

/** First connects in flight at once: more only queue up in the stub's accept backlog. */
const CONNECT_WINDOW = 256;
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
