import { clearLine } from 'node:readline';
import { formatDuration } from '../protocol/duration.ts';
import { FleetActivity, type FleetActivityCounts } from '../simulator/fleet-activity.ts';
import type { FleetHandle, FleetSummary } from '../simulator/fleet-options.ts';
import type { WorkerFleetHandle } from '../simulator/fleet-workers.ts';

// What `badge-sim devices` says of its fleet as it runs: its connections, watched, the states
// of its badges, and a line for each thing a badge of a small fleet does.

/**
 * Watches the fleet's connections every 250 ms until cleared: the progress `line` (on stderr,
 * rewritten in place; none when it gives undefined), a log line when the stub is lost, every
 * 5 s while it stays lost and when every badge is back, and `lostFor` with how long it has
 * been lost. The timer also keeps the process running while every badge waits to reconnect.
 */
export function watchConnections(
  view: FleetView,
  watch: {
    live: boolean;
    line(summary: FleetSummary): string | undefined;
    log(line: string): void;
    lostFor(ms: number): void;
  },
): NodeJS.Timeout {
  let outage: { since: number; said: number } | undefined;
  return setInterval(() => {
    const now = performance.now();
    const summary = view.summary();
    const line = watch.line(summary);
    if (line !== undefined) {
      process.stderr.write(`\r${line}`);
      if (watch.live) clearLine(process.stderr, 1);
    }
    if (summary.reconnecting > 0) {
      if (!outage) {
        outage = { since: now - summary.downForMs, said: now };
        watch.log(`lost the stub, reconnecting: ${connections(summary)}`);
      } else if (now - outage.said >= 5_000) {
        outage.said = now;
        watch.log(`still reconnecting: ${connections(summary)}`);
      }
      watch.lostFor(now - outage.since);
    } else if (outage) {
      watch.log(
        `back online: ${connections(summary)} (the stub was unreachable ${formatDuration(now - outage.since)})`,
      );
      outage = undefined;
    }
  }, 250);
}

/** One face for a fleet in this thread and one in worker threads: numbers, not badges. */
export interface FleetView {
  total: number;
  summary(): FleetSummary;
  activity(): FleetActivityCounts;
  refresh(): Promise<void>;
  waitUntilConnected(count: number, timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

export function fleetView(fleet: FleetHandle | WorkerFleetHandle): FleetView {
  if (!('badges' in fleet)) return fleet;
  const activity = new FleetActivity(fleet.badges);
  return {
    total: fleet.badges.length,
    summary: () => fleet.summary(),
    activity: () => activity.counts(),
    refresh: async () => {},
    waitUntilConnected: (count, timeoutMs) => fleet.waitUntilConnected(count, timeoutMs),
    close: () => {
      activity.stop();
      return fleet.close();
    },
  };
}

/** "idle 12 · playing 3 · offline 1" */
export function statesText(activity: FleetActivityCounts): string {
  return Object.entries(activity.states)
    .map(([state, n]) => `${state} ${n}`)
    .join(' · ');
}

/** A line for each clip a badge hears, each tap and each time it goes offline or online. */
export function logEveryBadge(fleet: FleetHandle, log: (line: string) => void): void {
  for (const badge of fleet.badges) {
    const who = () => `${badge.user ?? badge.deviceId} (${badge.deviceId})`;
    badge.on('clipStarted', ({ clip }) => {
      const what =
        clip.kind === 'alert'
          ? `alert ${clip.taskId}${clip.repeat ? ` (play ${clip.repeat + 1})` : ''}`
          : clip.kind === 'speech'
            ? `${clip.cause}`
            : 'broadcast';
      log(`${who()} hears ${what}: "${clip.text}"`);
    });
    let counted = badge.taps;
    badge.on('tapped', ({ taskId }) => {
      // The badge decides the tap's fate as it sends it: read what became of it right after.
      setImmediate(() => {
        const now = badge.taps;
        const fate =
          now.lost > counted.lost && now.sent === counted.sent
            ? `is lost on the way: the stub never hears it (the badge believes it acknowledged ${taskId})`
            : now.delayed > counted.delayed
              ? `leaves late (fault): it will acknowledge ${taskId}`
              : now.duplicated > counted.duplicated
                ? `arrives more than once (fault): acknowledges ${taskId}`
                : `acknowledges ${taskId}`;
        counted = now;
        log(`${who()} taps the talk button: the tap ${fate}`);
      });
    });
    badge.on('controlTap', ({ taskId }) => {
      log(`${who()} is tapped through the control API: acknowledges ${taskId}`);
    });
    let last: string | undefined;
    badge.on('stateChanged', ({ state }) => {
      // Online after connecting; offline after being online. A failed reconnect attempt
      // (connecting, then offline again) is not news: the reconnecting line says it.
      if (
        (state === 'offline' &&
          last !== undefined &&
          last !== 'offline' &&
          last !== 'connecting') ||
        (state === 'idle' && last === 'connecting')
      ) {
        log(`${who()} is ${state === 'offline' ? 'offline' : 'online'}`);
      }
      last = state;
    });
  }
}

/** "120 of 200 online · 80 reconnecting (stub unreachable 3s)", and what else is not online. */
export function connections(summary: FleetSummary): string {
  const n = (count: number) => count.toLocaleString('en');
  const parts = [`${n(summary.online)} of ${n(summary.total)} online`];
  if (summary.connecting > 0) parts.push(`${n(summary.connecting)} connecting`);
  if (summary.reconnecting > 0) {
    parts.push(
      `${n(summary.reconnecting)} reconnecting (stub unreachable ${formatDuration(summary.downForMs)})`,
    );
  }
  if (summary.offline > 0) {
    parts.push(
      `${n(summary.offline)} offline${summary.refused > 0 ? ` (${n(summary.refused)} refused)` : ''}`,
    );
  }
  return parts.join(' · ');
}
