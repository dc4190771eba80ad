/**
 * What bench/fleet-run.ts reads of its two processes and the machine while it measures: RSS and
 * CPU time from /proc, the kernel's TCP counters, the stub's own records of what it did (its
 * request journal, its transcripts), and each process's settled memory.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONTROL_PREFIX } from '../protocol/control-api.schema.ts';
import { mb, progressEnd, progressLine } from './fleet-run-format.ts';

/** Settled once both have handed back at least this share of their RSS and then held still. */
const SETTLE_DROP = 0.9;
const SETTLE_QUIET_S = 5;

/** VmRSS of a process in KB, from /proc; NaN where there is no /proc. */
export function procRssKb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return match ? Number(match[1]) : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** CPU time (ms) a process has used so far, from /proc; NaN where there is no /proc. */
export function procCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime, in clock ticks (USER_HZ, 100 on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

/** The stub's transcript times of the alert's play on two devices, in ms apart. */
export async function deliverySpan(
  url: string,
  first: string,
  last: string,
  taskId: string,
): Promise<number | undefined> {
  const playAt = async (id: string) => {
    const entries = await getJson<{ at: string; type: string; task_id: string }[]>(
      `${url}${CONTROL_PREFIX}/devices/${id}/transcript`,
    );
    const play = entries.find((e) => e.type === 'play' && e.task_id === taskId);
    if (!play) return Number.NaN;
    // ISO 8601 with microseconds: Date.parse keeps the milliseconds, the rest is added here.
    const micros = Number(/\.\d{3}(\d{3})Z$/.exec(play.at)?.[1] ?? 0);
    return Date.parse(play.at) + micros / 1000;
  };
  try {
    const span = (await playAt(last)) - (await playAt(first));
    return Number.isNaN(span) ? undefined : span;
  } catch {
    return undefined;
  }
}

const TCP_COUNTERS = ['ListenOverflows', 'ListenDrops', 'TCPSynRetrans', 'SyncookiesSent'] as const;

/** TCP counters of the machine's network namespace (all processes), from /proc/net/netstat. */
export function tcpCounters(): Map<string, number> | undefined {
  try {
    const lines = readFileSync('/proc/net/netstat', 'utf8').split('\n');
    const counters = new Map<string, number>();
    for (let i = 0; i + 1 < lines.length; i += 2) {
      const names = lines[i]!.split(/\s+/);
      const values = lines[i + 1]!.split(/\s+/);
      if (names[0] !== 'TcpExt:') continue;
      names.forEach((name, j) => {
        if (j > 0) counters.set(name, Number(values[j]));
      });
    }
    return counters;
  } catch {
    return undefined;
  }
}

export function tcpDelta(
  before: Map<string, number> | undefined,
  after: Map<string, number> | undefined,
): string | undefined {
  if (!before || !after) return undefined;
  return TCP_COUNTERS.map(
    (name) => `${name} +${(after.get(name) ?? 0) - (before.get(name) ?? 0)}`,
  ).join(', ');
}

export function cpuMs(usage: NodeJS.CpuUsage): number {
  return (usage.user + usage.system) / 1000;
}

export async function getJson<T>(url: string): Promise<T> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`GET ${url} answered ${response.status}`);
  return (await response.json()) as T;
}

/** How long the stub took over its latest POST alerts, by its request journal. */
export async function journalDuration(url: string): Promise<number> {
  try {
    const page = await getJson<{ entries: { method: string; duration_ms: number }[] }>(
      `${url}${CONTROL_PREFIX}/journal?method=POST&path=${encodeURIComponent('/subscribers/*/api/v1/alerts')}`,
    );
    return page.entries.at(-1)?.duration_ms ?? Number.NaN;
  } catch {
    return Number.NaN;
  }
}

export interface SettledMemory {
  /** The lowest RSS of this process over the wait, in bytes, and when it was reached (s in). */
  fleetRss: number;
  fleetAtS: number;
  /** The lowest VmRSS of the stub over the wait, in KB, and when it was reached. */
  stubRssKb: number;
  stubAtS: number;
  /** How long the wait lasted (s): BENCH_SETTLE_S, or less once both had handed memory back. */
  waitedS: number;
}

/**
 * Both processes idle, RSS sampled each second, for `settleS` seconds or until both have handed
 * back at least a tenth of their RSS and then held still SETTLE_QUIET_S seconds: the lowest of
 * each, once V8's memory reducer has returned what the last burst of work left committed. When
 * it does that varies (15 s to 55 s here), hence the long default and the early end.
 */
export async function settle(
  what: string,
  stubPid: number,
  settleS: number,
  gc: (() => void) | undefined,
): Promise<SettledMemory | undefined> {
  if (settleS === 0) return undefined;
  gc?.();
  const low = {
    fleetRss: process.memoryUsage.rss(),
    fleetAtS: 0,
    stubRssKb: procRssKb(stubPid),
    stubAtS: 0,
  };
  const start = { fleetRss: low.fleetRss, stubRssKb: low.stubRssKb };
  let second = 0;
  let quietSince = 0;
  while (second < settleS) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    second++;
    const fleetRss = process.memoryUsage.rss();
    const stubRssKb = procRssKb(stubPid);
    if (fleetRss < low.fleetRss || stubRssKb < low.stubRssKb) quietSince = second;
    if (fleetRss < low.fleetRss) Object.assign(low, { fleetRss, fleetAtS: second });
    if (stubRssKb < low.stubRssKb) Object.assign(low, { stubRssKb, stubAtS: second });
    if (second % 5 === 0 || process.stderr.isTTY) {
      progressLine(
        `settling (${what}): ${second}/${settleS} s idle, RSS fleet ${mb(fleetRss)} ` +
          `(lowest ${mb(low.fleetRss)}), stub ${mb(stubRssKb * 1024)} (lowest ${mb(low.stubRssKb * 1024)})`,
      );
    }
    // Done early once both have handed back a tenth of their RSS and nothing more for 5 s.
    const handedBack =
      low.fleetRss < start.fleetRss * SETTLE_DROP && low.stubRssKb < start.stubRssKb * SETTLE_DROP;
    if (handedBack && second - quietSince >= SETTLE_QUIET_S) break;
  }
  progressEnd();
  return { ...low, waitedS: second };
}

/**
 * BENCH_PROFILE=dir: a CPU profile of this process (its main thread) from just before the POST
 * to the last play, written to dir as fleet-alert-<badges>.cpuprofile (open it in Chrome's
 * DevTools or speedscope). The stub's own: BENCH_STUB_NODE_ARGS='--cpu-prof --cpu-prof-dir=dir'.
 */
export async function startProfile(
  badges: number,
): Promise<{ stop(): Promise<string> } | undefined> {
  const dir = process.env.BENCH_PROFILE;
  if (!dir) return undefined;
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return {
    async stop() {
      const { profile } = await session.post('Profiler.stop');
      session.disconnect();
      mkdirSync(dir, { recursive: true });
      const file = join(dir, `fleet-alert-${badges}.cpuprofile`);
      writeFileSync(file, JSON.stringify(profile));
      return file;
    },
  };
}
