/**
 * A fleet's handle (fleet.ts): its badges by id, their summary and kept records, waiting for
 * them to connect, settling both sides, advancing the clock, the snapshot, and closing.
 */
import type { BadgeClock, StubConnection } from '../stub-connection/stub-connection.ts';
import type { Badge } from './badge.ts';
import { connectAndSettle, FleetError } from './fleet-connect.ts';
import {
  emptySummary,
  type FleetHandle,
  type FleetKept,
  type FleetSummary,
} from './fleet-options.ts';
import type { Outstanding } from './transport.ts';

export interface FleetHandleParts {
  badges: readonly Badge[];
  byId: ReadonlyMap<string, Badge>;
  /** Badges waiting their turn to connect for the first time (they count as connecting). */
  queued: ReadonlySet<unknown>;
  clock: FleetHandle['clock'];
  badgeClock: BadgeClock;
  connection: StubConnection;
  outstanding: Outstanding;
  guardMs: number;
  reconnect: { initialMs: number; maxMs: number } | false;
  cleanups: (() => void)[];
  snapshot: FleetHandle['snapshot'];
}

export function makeFleetHandle(parts: FleetHandleParts): FleetHandle {
  const { badges, byId, queued, clock, badgeClock, connection, outstanding, guardMs } = parts;
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
      for (const cleanup of parts.cleanups) cleanup();
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
        reconnect: parts.reconnect,
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
    snapshot: parts.snapshot,
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
