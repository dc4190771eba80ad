/**
 * What bench/fleet-run.ts prints of memory and its goals, and the RESULT line that
 * bench/fleet.bench.ts reads.
 */
import type { ProcessMemory } from './bench-support.ts';
import {
  BADGES,
  FLEET_MEMORY_GOAL_KB,
  gc,
  PLAY_GOAL_MS,
  POST_GOAL_MS,
  SETTLE_S,
  STUB_MEMORY_GOAL_KB,
  WORKERS,
} from './fleet-run-config.ts';
import type { ConnectResult } from './fleet-run-connect.ts';
import { kb, mb, memoryTable, ms, seconds, verdict } from './fleet-run-format.ts';
import type { SettledMemory } from './fleet-run-probes.ts';

export const print = (line = '') => process.stdout.write(`${line}\n`);

export function perBadgeUs(cpu: number): string {
  return Number.isNaN(cpu) ? '–' : `${Math.round((cpu * 1000) / BADGES)} µs`;
}

export interface Connected {
  connect: ConnectResult;
  count: number;
  before: ProcessMemory;
  after: ProcessMemory;
  beforeSettled: SettledMemory | undefined;
  stubRssIdle: number;
  stubRssConnected: number;
  selfCpu: number;
  stubCpu: number;
}

/** The alert's figures; the POST's time as the stub's journal has it (postMs) and as seen here. */
export interface Alerted
  extends Pick<FleetRunResult, 'postMs' | 'postSeenMs' | 'played' | 'p50' | 'p99' | 'max'> {
  taskId: string;
  ok: boolean;
  selfCpu: number;
  stubCpu: number;
  stubRss: number;
}

export interface MemoryFigures {
  /** KB per badge, settled where measured, else just after connecting. */
  fleetKb: number;
  stubKb: number;
  fleetKbConnected: number;
  stubKbConnected: number;
  fleetHeapKb: number;
  fleetExternalKb: number;
  when: string;
}

export function printMemory(
  stubPid: number,
  c: Connected,
  stubRssAlert: number,
  afterSettled: SettledMemory | undefined,
): MemoryFigures {
  const perBadge = (d: number) => d / 1024 / BADGES;
  const beforeSettled = c.beforeSettled;
  const settled = beforeSettled && afterSettled ? { beforeSettled, afterSettled } : undefined;
  const figures: MemoryFigures = {
    fleetKbConnected: perBadge(c.after.rss - c.before.rss),
    stubKbConnected: (c.stubRssConnected - c.stubRssIdle) / Math.max(1, c.count),
    fleetKb: 0,
    stubKb: 0,
    fleetHeapKb: perBadge(c.after.heapUsed - c.before.heapUsed),
    fleetExternalKb: perBadge(c.after.external - c.before.external),
    when: settled ? 'settled RSS' : 'RSS just after connecting',
  };
  figures.fleetKb = settled
    ? perBadge(settled.afterSettled.fleetRss - settled.beforeSettled.fleetRss)
    : figures.fleetKbConnected;
  figures.stubKb = settled
    ? (settled.afterSettled.stubRssKb - settled.beforeSettled.stubRssKb) / Math.max(1, c.count)
    : figures.stubKbConnected;
  print('### Memory');
  print();
  printFleetMemory(c, settled);
  print(
    `Stub process (pid ${stubPid}, VmRSS): ${mb(c.stubRssIdle * 1024)} with the fixtures loaded, ` +
      `${mb(c.stubRssConnected * 1024)} with ${c.count.toLocaleString('en-US')} badges online ` +
      `(${kb(((c.stubRssConnected - c.stubRssIdle) * 1024) / Math.max(1, c.count))} per badge), ` +
      `${mb(stubRssAlert * 1024)} after the alert.` +
      (settled
        ? ` Settled (lowest over the same waits, reached ${settled.beforeSettled.stubAtS} s and ` +
          `${settled.afterSettled.stubAtS} s in): ${mb(settled.beforeSettled.stubRssKb * 1024)} before the ` +
          `fleet, ${mb(settled.afterSettled.stubRssKb * 1024)} with it online ` +
          `(${kb(figures.stubKb * 1024)} per badge).`
        : ''),
  );
  print();
  return figures;
}

function printFleetMemory(
  { connect, before, after }: Connected,
  settled: { beforeSettled: SettledMemory; afterSettled: SettledMemory } | undefined,
): void {
  print(
    `Fleet process (this one), after a full GC${gc ? '' : ' (not available: no GC forced)'}: ` +
      'before `startFleet` and once every badge was online' +
      (connect.allAt === undefined
        ? ` (here: when the wait gave up, ${seconds(connect.waitedAt)} in; V8 may have handed ` +
          'memory back meanwhile, so the RSS delta reads low)'
        : '') +
      '.',
  );
  print();
  const settledRow: [string, number, number][] = settled
    ? [['RSS, settled', settled.beforeSettled.fleetRss, settled.afterSettled.fleetRss]]
    : [];
  const rows: [string, number, number][] = [
    ['RSS', before.rss, after.rss],
    ...settledRow,
    ['heap used', before.heapUsed, after.heapUsed],
    ['heap total', before.heapTotal, after.heapTotal],
    ['external (incl. array buffers)', before.external, after.external],
  ];
  for (const line of memoryTable(rows, BADGES)) print(line);
  print();
  if (!settled) return;
  const { beforeSettled, afterSettled } = settled;
  print(
    `Settled: the lowest RSS while both processes sat idle (at most ${SETTLE_S} s, ` +
      `BENCH_SETTLE_S): before the fleet ${beforeSettled.waitedS} s, lowest ${beforeSettled.fleetAtS} s in; ` +
      `with the fleet online, its alert cancelled, ${afterSettled.waitedS} s, lowest ` +
      `${afterSettled.fleetAtS} s in. A wait that ran its whole length may have ended before ` +
      'V8 handed memory back: a larger BENCH_SETTLE_S tells.',
  );
  print();
}

/** The RESULT line: what bench/fleet.bench.ts tabulates of each size. */
export interface FleetRunResult {
  badges: number;
  workers: number;
  connected: number;
  connectS: number;
  postMs: number;
  postSeenMs: number;
  played: number;
  p50: number;
  p99: number;
  max: number;
  /** Settled RSS per badge (just after connecting where BENCH_SETTLE_S=0). */
  fleetKb: number;
  fleetKbConnected: number;
  fleetHeapKb: number;
  stubKb: number;
  stubKbConnected: number;
  fleetCpuUs: number;
  stubCpuUs: number;
}

/** The goals, each PASS or FAIL, and the RESULT line bench/fleet.bench.ts reads. */
export function printGoals(c: Connected, a: Alerted, m: MemoryFigures): void {
  print('### Goals');
  print();
  print(
    `- the POST answers within ${POST_GOAL_MS} ms: ${ms(a.postMs)} in the stub (${ms(a.postSeenMs)} seen here) **${verdict(a.ok && a.postMs <= POST_GOAL_MS)}**`,
  );
  print(
    `- every badge plays within ${PLAY_GOAL_MS} ms of the POST (p99): p99 ${ms(a.p99)}, max ${ms(a.max)}, ` +
      `${a.played.toLocaleString('en-US')}/${BADGES.toLocaleString('en-US')} played ` +
      `**${verdict(a.played === BADGES && a.p99 <= PLAY_GOAL_MS)}**`,
  );
  print(
    `- at most ${FLEET_MEMORY_GOAL_KB} KB of simulator memory per badge: ${m.when} ` +
      `${kb(m.fleetKb * 1024)} per badge (just after connecting ${kb(m.fleetKbConnected * 1024)}; ` +
      `heap used of this thread ${kb(m.fleetHeapKb * 1024)}, ` +
      `external ${kb(m.fleetExternalKb * 1024)}) **${verdict(m.fleetKb <= FLEET_MEMORY_GOAL_KB)}**`,
  );
  print(
    `- at most ${STUB_MEMORY_GOAL_KB} KB of stub memory per connected badge: ${m.when} ` +
      `${kb(m.stubKb * 1024)} (just after connecting ${kb(m.stubKbConnected * 1024)}) ` +
      `**${verdict(m.stubKb <= STUB_MEMORY_GOAL_KB)}**`,
  );
  const result: FleetRunResult = {
    badges: BADGES,
    workers: WORKERS,
    connected: c.count,
    connectS: (c.connect.allAt ?? Number.NaN) / 1000,
    postMs: a.postMs,
    postSeenMs: a.postSeenMs,
    played: a.played,
    p50: a.p50,
    p99: a.p99,
    max: a.max,
    fleetKb: m.fleetKb,
    fleetKbConnected: m.fleetKbConnected,
    fleetHeapKb: WORKERS === 0 ? m.fleetHeapKb : Number.NaN,
    stubKb: m.stubKb,
    stubKbConnected: m.stubKbConnected,
    fleetCpuUs: ((c.selfCpu + a.selfCpu) * 1000) / BADGES,
    stubCpuUs: ((c.stubCpu + a.stubCpu) * 1000) / BADGES,
  };
  print();
  print(`RESULT ${JSON.stringify(result)}`);
}
