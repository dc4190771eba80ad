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
import { formatTimestamp } from '../protocol/timestamp.ts';
import type { BadgeClock, StubConnection } from '../stub-connection/stub-connection.ts';
import type { Badge } from './badge.ts';
import { checkSavedBehaviours, type FleetBadgeParts, makeFleetBadges } from './fleet-badges.ts';
import {
  checkOpenFiles,
  connectionOf,
  FleetError,
  firstContactError,
  StubUnreachableError,
} from './fleet-connect.ts';
import { makeFleetHandle } from './fleet-handle.ts';
import {
  type FleetHandle,
  type FleetOptions,
  type FleetSummary,
  keptPerBadge,
  selectDevices,
  type WorkerFleetOptions,
} from './fleet-options.ts';
import type { WorkerFleetHandle } from './fleet-workers.ts';
import { roomForBadges } from './open-files.ts';
import {
  readFleetSnapshot,
  type SavedFleet,
  takeFleetSnapshot,
} from './snapshot/fleet-snapshot.ts';
import { BadgeLink, DEFAULT_RECONNECT, type LinkHandlers, Outstanding } from './transport.ts';
import { createTextToSpeech, type TextToSpeech } from './tts/text-to-speech.ts';

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
    if (options.snapshot !== undefined)
      throw new FleetError(
        'badge-sim: snapshot restores a fleet in this thread; leave workers out to restore it (decision FS10)',
      );
    const { startFleetInWorkers } = await import('./fleet-workers.ts');
    return startFleetInWorkers(options as WorkerFleetOptions);
  }
  return startFleetHere(options);
}

async function startFleetHere(options: FleetOptions): Promise<FleetHandle> {
  // Set once the badges exist: what an unreachable stub means for them.
  let started: readonly Badge[] | undefined;
  let summary: () => FleetSummary;
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
  // A stub in this process holds the other end of every badge's socket here too; badges that
  // dial it without a socket (SP5) hold no file at all: the connection says which, and then
  // the limit is not read (a file read each scenario, for a check that cannot fail).
  const socketsPerBadge = connection.socketsPerBadge ?? 1;
  if (socketsPerBadge > 0) checkOpenFiles(devices.length, roomForBadges(), socketsPerBadge);
  const { restored, seed } = restoreFrom(options, devices);
  const tts =
    typeof options.tts === 'object'
      ? options.tts
      : await createTextToSpeech(options.tts ?? 'estimate');
  const guardMs = options.settleGuardMs ?? 5_000;
  const reconnect = checkReconnect(options.reconnect);
  const outstanding = new Outstanding();
  const cleanups: (() => void)[] = [];
  const badgeClock = await connection.badgeClock(() => started ?? []);
  const clock = badgeClock.clock;
  checkClockAt(restored, badgeClock);
  // A timer of a badge (a tap) sends on that badge's own socket: the clock waits until the
  // stub has handled it, whichever clock it is.
  cleanups.push(
    clock.onSettle(async () => {
      if (outstanding.count === 0) return false;
      await outstanding.quiet(guardMs);
      return true;
    }),
  );
  const fleetBadges = makeFleetBadges(
    devices,
    options,
    badgePartsOf(options, devices.length, {
      clock,
      badgeClock,
      connection,
      outstanding,
      seed,
      tts,
      reconnect,
      ca,
      locationOf: locationsOnConnect(fixtures),
    }),
    restored,
  );
  const badges = fleetBadges.map((b) => b.badge);
  for (const { run } of fleetBadges) if (run) cleanups.push(() => run.stop());
  started = badges;
  const byId = new Map(badges.map((b) => [b.deviceId, b]));
  // Badges waiting their turn to connect for the first time (they count as connecting).
  const queued = new Set<Badge>();
  if (options.connect ?? true) cleanups.push(connectInWaves(wave(badges, restored), queued));

  const handle = makeFleetHandle({
    badges,
    byId,
    queued,
    clock,
    badgeClock,
    connection,
    outstanding,
    guardMs,
    reconnect,
    cleanups,
    snapshot: () => takeFleetSnapshot(fleetBadges, clock, seed),
  });
  summary = handle.summary;
  return handle;
}

/** What every badge of a fleet is made with: its clock, engine, session, link and hooks. */
function badgePartsOf(
  options: FleetOptions,
  count: number,
  given: {
    clock: FleetBadgeParts['clock'];
    badgeClock: BadgeClock;
    connection: StubConnection;
    outstanding: Outstanding;
    seed: number;
    tts: TextToSpeech;
    reconnect: FleetBadgeParts['reconnect'];
    ca: FleetOptions['ca'];
    /** Where each badge says it is: its fixture's location, else its account's site (D16). */
    locationOf: FleetBadgeParts['locationOf'];
  },
): FleetBadgeParts {
  const { clock, badgeClock, connection, outstanding, seed, tts, reconnect, ca } = given;
  // One session a fleet: its badges' reconnects take their own connections over (D13).
  const session = options.session ?? randomBytes(12).toString('base64url');
  return {
    clock,
    seed,
    common: {
      clock,
      tts,
      session,
      keep: keptPerBadge(count),
      ...(options.inspect ? { inspect: options.inspect } : {}),
      link: (handlers) => linkOf(connection, handlers, outstanding, ca),
      onStubClock: badgeClock.follow,
      onStubTime: badgeClock.catchUp,
    },
    locationOf: given.locationOf,
    onVanish: (id) => connection.vanished && (() => connection.vanished!(id)),
    reconnect,
  };
}

/** What a fleet restores (its snapshot, read and checked whole) and the seed it draws from. */
function restoreFrom(
  options: FleetOptions,
  devices: readonly { id: string }[],
): { restored: SavedFleet | undefined; seed: number } {
  const restored =
    options.snapshot === undefined
      ? undefined
      : readFleetSnapshot(options.snapshot, new Set(devices.map((d) => d.id)));
  if (restored) checkSavedBehaviours(restored);
  return { restored, seed: seedOf(options.seed, restored) };
}

/** A restore needs the stub's clock at the snapshot's instant or later (FS11). */
function checkClockAt(restored: SavedFleet | undefined, badgeClock: BadgeClock): void {
  const now = badgeClock.clock.now();
  if (!restored || now >= restored.at) return;
  badgeClock.dispose();
  throw new FleetError(
    `badge-sim: snapshot.at is ${formatTimestamp(restored.at)}, but the stub's clock is at ${formatTimestamp(now)}: restore the stub's world first, or move its clock to the snapshot's instant (POST /_stub/clock)`,
  );
}

/** A badge's link to the stub: a WebSocket to its device URL, or its in-process pair (SP5). */
function linkOf(
  connection: StubConnection,
  handlers: LinkHandlers,
  outstanding: Outstanding,
  ca: FleetOptions['ca'],
): BadgeLink {
  return new BadgeLink(
    connection.devicesUrl,
    handlers,
    outstanding,
    ca,
    undefined,
    connection.dialDevice,
  );
}

/**
 * The seed a fleet draws from: a restored fleet goes on with its snapshot's (FS7), and a seed
 * given beside it must be the same one.
 */
function seedOf(given: number | undefined, restored: SavedFleet | undefined): number {
  if (restored && given !== undefined && given !== restored.seed) {
    throw new FleetError(
      `badge-sim: seed is ${given}, but snapshot.seed is ${restored.seed}: a restored fleet goes on with its snapshot's draws; leave seed out (or give ${restored.seed})`,
    );
  }
  return restored?.seed ?? given ?? 0;
}

/**
 * The badges as the connect waves take them: a restored badge that was online or connecting
 * opens a new link where it is (`resumeLink`, FS6); one that gave up stays offline; the rest
 * connect as new.
 */
function wave(badges: readonly Badge[], restored: SavedFleet | undefined): Waving[] {
  if (!restored) return badges as Badge[];
  const saved = new Map(restored.badges.map((b) => [b.deviceId, b]));
  return badges.flatMap((badge): Waving[] => {
    const state = saved.get(badge.deviceId);
    if (!state || state.machine.value === 'offline') {
      return state?.link.gaveUpOn != null ? [] : [badge];
    }
    return [
      {
        on: (type, listener) => badge.on(type, listener),
        connect: () => badge.resumeLink(restored.at),
        offlineOnPurpose: false,
        status: 'offline',
      },
    ];
  });
}

type Waving = Pick<Badge, 'on' | 'connect' | 'offlineOnPurpose' | 'status'>;

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
  badges: readonly Waving[],
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
