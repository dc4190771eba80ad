/**
 * `npm run bench:http`: how the stub's HTTP routes compare with a bare fastify 5 route, and
 * how long a default-timeout alert takes to run to its end on the virtual clock.
 *
 *   BENCH_SECONDS=5 BENCH_ROUNDS=3 npm run bench:http
 *
 * Part 1 (HTTP): the servers run in child processes (`bench/http-server.bench.ts`: bare,
 * stub, stub-events), listening on 127.0.0.1; autocannon runs here, so load generator and
 * server never share an event loop (on a 2-core machine: one core each). All three stay up;
 * only one is loaded at a time. Each round measures every target in turn, a stub route right
 * after its bare counterpart, each with a 1 s warm-up and a fixed run of BENCH_SECONDS
 * (default 5) with 10 connections and no pipelining; BENCH_ROUNDS rounds (default 3), so that
 * a passing disturbance of a shared machine moves one round, not the verdict (the ratio is
 * the median of the per-round ratios). Latency percentiles come from autocannon's own
 * per-response timings (2xx only, as autocannon's histogram), kept at µs resolution instead
 * of the whole milliseconds of its histogram.
 *
 * Part 2 (virtual clock): in this process, a fresh StubCore per round; one alert with no
 * timeout (300 s) to a group of 10 devices, `advanceBy(300_000)`, wall time by
 * `performance.now()`.
 *
 * Results go to stdout as Markdown (ready to paste into an issue note); progress goes to
 * stderr. Exit code 0 even when a goal fails (it prints FAIL); non-zero only when something
 * crashed, a server did not start, or a target answered wrongly before the measurement.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { generateFixtures } from '../fixtures/generate-fixtures.ts';
import { StubCore } from '../server-stub/stub-core.ts';
import {
  awaitChildLine,
  environmentLines,
  loadavg,
  percentile,
  readNumber,
  stopChild,
} from './bench-support.ts';
import type { FillInfo, ServerKind } from './http-server.bench.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SERVER_SCRIPT = 'bench/http-server.bench.ts';

const SECONDS = readNumber('BENCH_SECONDS', 5, 600);
const ROUNDS = Math.round(readNumber('BENCH_ROUNDS', 3, 20));
const CONNECTIONS = 10;
const WARMUP_SECONDS = 1;
/** The goal of the HTTP part: a stub route serves at least this share of the bare route's rate. */
const RATIO_GOAL = 0.5;
/** The goal of the virtual-clock part: a 300 s alert runs to its end in less wall time than this. */
const ALERT_WALL_GOAL_MS = 100;
const ALERT_ROUNDS = 20;
/** How long a child may take to print its port (the events fill takes a few seconds). */
const START_TIMEOUT_MS = 120_000;

const ACCOUNT = { id: '100001', key: 'demo-api-key-riverside-0001', group: 'Nurses' } as const;
const API = `/subscribers/${ACCOUNT.id}/api/v1`;
const AUTH = { authorization: `ServiceApiKey ${ACCOUNT.key}` };
const ALERT_BODY = JSON.stringify({ notification: 'Bench', groups: [ACCOUNT.group], timeout: 60 });

interface Target {
  id: string;
  label: string;
  kind: ServerKind;
  method: 'GET' | 'POST';
  /** The path, given what the child reported (the events middle instant). */
  path: (info: FillInfo | undefined) => string;
  headers?: Record<string, string>;
  body?: string;
  /** Checks one answer before the measurement; throws when the target answers wrongly. */
  check: (status: number, body: unknown, info: FillInfo | undefined) => void;
}

const expectTaskId = (status: number, body: unknown) => {
  if (status !== 200 || typeof (body as { task_id?: unknown })?.task_id !== 'string') {
    throw new Error(`expected 200 with a task_id, got ${status} ${JSON.stringify(body)}`);
  }
};

const expectEvents = (from?: (info: FillInfo | undefined) => string | undefined) => {
  return (status: number, body: unknown, info: FillInfo | undefined) => {
    if (status !== 200 || !Array.isArray(body) || body.length !== 100) {
      throw new Error(`expected 200 with 100 events, got ${status} ${describe(body)}`);
    }
    const oldest = from?.(info);
    if (oldest !== undefined) {
      const first = Date.parse((body[0] as { timestamp: string }).timestamp);
      if (first < Date.parse(oldest) || first > Date.parse(oldest) + 1000) {
        throw new Error(`expected events from ${oldest}, the first is at ${body[0].timestamp}`);
      }
    }
  };
};

const middle = (info: FillInfo | undefined) => {
  if (!info) throw new Error('the stub-events child reported no INFO line');
  return info.middle;
};

/** In the order of a round: each stub route right after the bare route it is compared with. */
const TARGETS: Target[] = [
  {
    id: 'bare-post',
    label: 'bare POST /bare',
    kind: 'bare',
    method: 'POST',
    path: () => '/bare',
    headers: { 'content-type': 'application/json' },
    body: ALERT_BODY,
    check: expectTaskId,
  },
  {
    id: 'stub-post-alerts',
    label: 'stub POST alerts',
    kind: 'stub',
    method: 'POST',
    path: () => `${API}/alerts`,
    headers: { ...AUTH, 'content-type': 'application/json' },
    body: ALERT_BODY,
    check: expectTaskId,
  },
  {
    id: 'bare-get',
    label: 'bare GET /bare',
    kind: 'bare',
    method: 'GET',
    path: () => '/bare',
    check: expectTaskId,
  },
  {
    id: 'stub-get-events',
    label: 'stub GET events',
    kind: 'stub-events',
    method: 'GET',
    path: () => `${API}/events`,
    headers: AUTH,
    check: expectEvents(),
  },
  {
    id: 'stub-get-events-oldest',
    label: 'stub GET events?oldest=<middle>&limit=100',
    kind: 'stub-events',
    method: 'GET',
    path: (info) => `${API}/events?oldest=${encodeURIComponent(middle(info))}&limit=100`,
    headers: AUTH,
    check: expectEvents(middle),
  },
  {
    id: 'bare-get-100',
    label: 'bare GET /bare-events (same 100-event payload, info)',
    kind: 'bare',
    method: 'GET',
    path: () => '/bare-events',
    check: expectEvents(),
  },
  {
    id: 'bare-get-100-prebuilt',
    label: 'bare GET /bare-events-prebuilt (same payload serialised once: the floor, info)',
    kind: 'bare',
    method: 'GET',
    path: () => '/bare-events-prebuilt',
    check: expectEvents(),
  },
];

/** Stub route against bare route; each must reach RATIO_GOAL. */
const COMPARISONS: { stub: string; bare: string }[] = [
  { stub: 'stub-post-alerts', bare: 'bare-post' },
  { stub: 'stub-get-events', bare: 'bare-get' },
  { stub: 'stub-get-events-oldest', bare: 'bare-get' },
];

const children = new Set<ChildProcess>();

async function main(): Promise<void> {
  const print = (line = '') => process.stdout.write(`${line}\n`);

  print('## bench:http');
  print();
  print(environmentLines(['fastify', 'autocannon']));
  print();

  const loadBefore = loadavg();
  // The events fill first (it is the CPU-heavy start); then every server stays up, so each
  // round measures a stub route right after its bare counterpart.
  const servers = new Map<ServerKind, Server>();
  for (const kind of ['stub-events', 'bare', 'stub'] as const) {
    servers.set(kind, await startServer(kind));
  }
  const fill = servers.get('stub-events')!.info;
  const urls = new Map<string, string>();
  for (const target of TARGETS) {
    const server = servers.get(target.kind)!;
    const url = `http://127.0.0.1:${server.port}${target.path(server.info)}`;
    urls.set(target.id, url);
    await checkTarget(target, url, server.info);
  }

  const samples = new Map<string, Sample[]>(TARGETS.map((t) => [t.id, []]));
  const latencies = new Map<string, number[]>(TARGETS.map((t) => [t.id, []]));
  for (let round = 1; round <= ROUNDS; round++) {
    for (const target of TARGETS) {
      const server = servers.get(target.kind)!;
      process.stderr.write(
        `round ${round}/${ROUNDS} ${target.label}: warm-up ${WARMUP_SECONDS} s, run ${SECONDS} s…\n`,
      );
      samples
        .get(target.id)!
        .push(await measure(target, urls.get(target.id)!, server, latencies.get(target.id)!));
      if (server.child.exitCode !== null || server.child.signalCode !== null) {
        throw new Error(`server '${target.kind}' died during '${target.label}'`);
      }
    }
  }
  for (const server of servers.values()) await stopChild(server.child);
  const loadAfter = loadavg();

  const rows = TARGETS.map((target) => {
    const all = latencies.get(target.id)!.sort((a, b) => a - b);
    return summarise(target, urls.get(target.id)!, samples.get(target.id)!, all);
  });

  print(
    `### HTTP: ${CONNECTIONS} connections; ${ROUNDS} round(s), each target ${WARMUP_SECONDS} s ` +
      `warm-up + ${SECONDS} s per round; servers in child processes`,
  );
  print();
  if (fill) {
    const types = Object.entries(fill.byType)
      .map(([type, n]) => `${type} ${n}`)
      .join(', ');
    print(
      `Events store before the GET runs: ${fill.storedEvents} events in account ${ACCOUNT.id} ` +
        `(${types}) from ${fill.alerts} alerts, ${fill.firstEventAt} … ${fill.lastEventAt}; ` +
        `oldest=${fill.middle}; filled in ${fill.fillMs} ms.`,
    );
    print();
  }
  for (const line of table(rows)) print(line);
  print();
  print(
    'requests/s: median of the rounds (each round: autocannon’s mean of per-second counts); ' +
      'p50/p99: all 2xx responses of all rounds; CPU: % of one core during the measured runs ' +
      '(server = the child process, load gen = autocannon in this process).',
  );
  print();
  print(`Stub requests (\`Authorization: ServiceApiKey ${ACCOUNT.key}\`):`);
  for (const row of rows.filter((r) => r.target.kind !== 'bare')) {
    const path = new URL(row.url);
    const body = row.target.body ? ` ${row.target.body}` : '';
    print(`- ${row.target.label}: \`${row.target.method} ${path.pathname}${path.search}${body}\``);
  }
  print();
  print(`Load average (1 min) before/after the HTTP runs: ${loadBefore} / ${loadAfter}.`);
  print();
  for (const { stub, bare } of COMPARISONS) {
    const s = rows.find((r) => r.target.id === stub)!;
    const b = rows.find((r) => r.target.id === bare)!;
    const ratios = s.perRound.map((rps, i) => rps / b.perRound[i]!);
    const ratio = median(ratios);
    const ok = ratio >= RATIO_GOAL && s.non2xx === 0 && s.errors === 0;
    const range =
      ratios.length > 1
        ? `, rounds ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}`
        : '';
    print(
      `- ${s.target.label} vs ${b.target.label}: ${ratio.toFixed(2)}× (median${range}; ` +
        `goal ≥ ${RATIO_GOAL}×) **${ok ? 'PASS' : 'FAIL'}**` +
        (s.non2xx || s.errors ? ` (${s.non2xx} non-2xx, ${s.errors} errors)` : ''),
    );
  }
  const canned = rows.find((r) => r.target.id === 'bare-get-100');
  const events = rows.find((r) => r.target.id === 'stub-get-events');
  if (canned && events) {
    const ratios = events.perRound.map((rps, i) => rps / canned.perRound[i]!);
    print(
      `- for reference, stub GET events vs the bare route sending the same 100-event payload: ` +
        `${median(ratios).toFixed(2)}× (median; no goal)`,
    );
  }
  const floor = rows.find((r) => r.target.id === 'bare-get-100-prebuilt');
  if (floor && events) {
    const ratios = events.perRound.map((rps, i) => rps / floor.perRound[i]!);
    print(
      `- for reference, stub GET events vs a bare route sending the same payload serialised once: ` +
        `${median(ratios).toFixed(2)}× (median; no goal: what a response of this size costs here)`,
    );
  }
  print();

  process.stderr.write('virtual clock: 300 s alerts…\n');
  for (const line of await alertWallTime()) print(line);
}

// ---------------------------------------------------------------------------------------------
// Child servers

interface Server {
  kind: ServerKind;
  child: ChildProcess;
  port: number;
  info: FillInfo | undefined;
}

async function startServer(kind: ServerKind): Promise<Server> {
  process.stderr.write(`starting server '${kind}'…\n`);
  const child = spawn(process.execPath, ['--import', 'tsx', SERVER_SCRIPT, kind], {
    cwd: ROOT,
    // stdin stays open: the child exits when it closes, so it never outlives this process.
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  let info: FillInfo | undefined;
  const port = await awaitChildLine(
    child,
    (line) => {
      if (line.startsWith('PORT ')) return Number(line.slice(5));
      if (line.startsWith('INFO ')) info = JSON.parse(line.slice(5)) as FillInfo;
      else process.stderr.write(`[${kind}] ${line}\n`);
      return undefined;
    },
    { name: `server '${kind}'`, expected: 'port', timeoutMs: START_TIMEOUT_MS },
  );
  return { kind, child, port, info };
}

function killChildren(): void {
  for (const child of children) child.kill('SIGKILL');
}

/** CPU time (ms) a child has used so far, from /proc; NaN where there is no /proc. */
function childCpuMs(child: ChildProcess): number {
  try {
    const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime, in clock ticks (USER_HZ, 100 on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

// ---------------------------------------------------------------------------------------------
// Measurement

/** One answer, checked before any load: a misconfigured target must not be benchmarked. */
async function checkTarget(target: Target, url: string, info: FillInfo | undefined) {
  const response = await fetch(url, {
    method: target.method,
    headers: target.headers,
    body: target.body,
  });
  const text = await response.text();
  try {
    target.check(response.status, text ? JSON.parse(text) : undefined, info);
  } catch (error) {
    throw new Error(`${target.label}: ${(error as Error).message}`);
  }
}

interface Sample {
  rps: number;
  non2xx: number;
  errors: number;
  bytesPerResponse: number;
  serverCpu: number;
  loadGenCpu: number;
}

/** A warm-up run, then the measured run; latencies of 2xx answers are added to `latencies`. */
async function measure(
  target: Target,
  url: string,
  server: Server,
  latencies: number[],
): Promise<Sample> {
  await run(target, url, WARMUP_SECONDS);
  const cpu0 = childCpuMs(server.child);
  const self0 = process.cpuUsage();
  const t0 = performance.now();
  const result = await run(target, url, SECONDS, latencies);
  const wall = performance.now() - t0;
  const self = process.cpuUsage(self0);
  return {
    rps: result.requests.average,
    non2xx: result.non2xx,
    errors: result.errors,
    bytesPerResponse: result['2xx'] > 0 ? result.throughput.total / result['2xx'] : 0,
    serverCpu: (childCpuMs(server.child) - cpu0) / wall,
    loadGenCpu: (self.user + self.system) / 1000 / wall,
  };
}

function run(
  target: Target,
  url: string,
  seconds: number,
  latencies?: number[],
): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url,
        method: target.method,
        headers: target.headers,
        body: target.body,
        connections: CONNECTIONS,
        pipelining: 1,
        duration: seconds,
        timeout: 10,
      },
      (error: unknown, result) => (error ? reject(error) : resolve(result)),
    );
    if (latencies) {
      instance.on('response', (_client, statusCode, _bytes, responseTime) => {
        if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
      });
    }
  });
}

interface Row {
  target: Target;
  url: string;
  rps: number;
  perRound: number[];
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  bytesPerResponse: number;
  serverCpu: number;
  loadGenCpu: number;
}

function summarise(target: Target, url: string, samples: Sample[], sorted: number[]): Row {
  const sum = (pick: (s: Sample) => number) => samples.reduce((n, s) => n + pick(s), 0);
  return {
    target,
    url,
    rps: median(samples.map((s) => s.rps)),
    perRound: samples.map((s) => s.rps),
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    non2xx: sum((s) => s.non2xx),
    errors: sum((s) => s.errors),
    bytesPerResponse: sum((s) => s.bytesPerResponse) / samples.length,
    serverCpu: sum((s) => s.serverCpu) / samples.length,
    loadGenCpu: sum((s) => s.loadGenCpu) / samples.length,
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return (sorted[(sorted.length - 1) >> 1]! + sorted[sorted.length >> 1]!) / 2;
}

function table(rows: Row[]): string[] {
  const header = [
    'target',
    'requests/s',
    'per round',
    'p50 ms',
    'p99 ms',
    'non-2xx',
    'errors',
    'bytes/resp',
    'server CPU',
    'load gen CPU',
  ];
  const count = (n: number) => Math.round(n).toLocaleString('en-US');
  const share = (n: number) => (Number.isNaN(n) ? '–' : `${Math.round(n * 100)}%`);
  const body = rows.map((r) => [
    r.target.label,
    count(r.rps),
    r.perRound.map(count).join(' / '),
    r.p50.toFixed(2),
    r.p99.toFixed(2),
    String(r.non2xx),
    String(r.errors),
    String(Math.round(r.bytesPerResponse)),
    share(r.serverCpu),
    share(r.loadGenCpu),
  ]);
  const right = header.map((_, i) => i > 0);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((cells) => cells[i]!.length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (right[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (right[i] ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`;
  return [line(header), rule, ...body.map(line)];
}

// ---------------------------------------------------------------------------------------------
// Virtual clock: a default-timeout alert to 10 devices, run to its end

async function alertWallTime(): Promise<string[]> {
  const fixtures = generateFixtures({ seed: 1, devicesPerAccount: 10, groupsPerAccount: 1 });
  const account = fixtures.accounts[0]!;
  const group = account.groups[0]!;
  if (group.members.length !== 10) {
    throw new Error(`expected a group of 10 devices, got ${group.members.length}`);
  }
  const walls: number[] = [];
  let fired = 0;
  let plays = 0;
  for (let round = 0; round < ALERT_ROUNDS; round++) {
    const core = new StubCore({ fixtures, seed: 1 });
    const t0 = performance.now();
    const { taskId } = core.engine.createAlert(account.subscriber_id, {
      notification: 'Bench',
      groups: [group.name],
    });
    fired = await core.clock.advanceBy(300_000);
    const wall = performance.now() - t0;
    const task = core.engine.task(taskId);
    if (task?.state !== 'ended' || task.outcome !== 'timed_out') {
      throw new Error(
        `round ${round}: expected the alert ended with 'timed_out', got ` +
          `${task ? `${task.state}/${task.outcome}` : 'no task'}`,
      );
    }
    if (task.timeout !== 300 || task.devices.length !== 10) {
      throw new Error(`round ${round}: timeout ${task.timeout} s, ${task.devices.length} devices`);
    }
    plays = task.devices.reduce((sum, d) => sum + d.plays, 0);
    core.clock.dispose();
    walls.push(wall);
  }
  const sorted = [...walls].sort((a, b) => a - b);
  const median = (sorted[(sorted.length - 1) >> 1]! + sorted[sorted.length >> 1]!) / 2;
  const max = sorted[sorted.length - 1]!;
  const ok = max < ALERT_WALL_GOAL_MS;
  return [
    '### Virtual clock: one 300 s (default timeout) alert to 10 devices, run to its end',
    '',
    `${ALERT_ROUNDS} rounds, fresh StubCore each, createAlert + \`clock.advanceBy(300_000)\`; ` +
      `each ended 'timed_out' after ${fired} timer firings and ${plays} plays.`,
    '',
    `- wall time: median ${median.toFixed(2)} ms, max ${max.toFixed(2)} ms ` +
      `(first, cold: ${walls[0]!.toFixed(2)} ms; min ${sorted[0]!.toFixed(2)} ms)`,
    `- goal < ${ALERT_WALL_GOAL_MS} ms (max of ${ALERT_ROUNDS}): **${ok ? 'PASS' : 'FAIL'}**`,
  ];
}

// ---------------------------------------------------------------------------------------------

function describe(body: unknown): string {
  return Array.isArray(body) ? `an array of ${body.length}` : JSON.stringify(body);
}

for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const) {
  process.once(signal, () => {
    killChildren();
    process.exit(code);
  });
}

main().catch((error: unknown) => {
  killChildren();
  process.stderr.write(`bench:http failed: ${error instanceof Error ? error.stack : error}\n`);
  process.exitCode = 1;
});
