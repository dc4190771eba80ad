/**
 * The HTTP half of `npm run bench:http` and of the CI guard (`npm run bench:guard`): the
 * servers in child processes (`http-server.bench.ts`), autocannon runs of the targets
 * (`http-targets.ts`: stub routes and the bare fastify routes they are compared with), and the
 * table of results.
 *
 * Load generator and server never share an event loop (on a 2-core machine: one core each).
 * Each round measures every target in turn, a stub route right after its bare counterpart,
 * each with a warm-up and a fixed run; a ratio is the median of the per-round ratios, so a
 * passing disturbance of a shared machine moves one round, not the verdict. Latency
 * percentiles come from autocannon's own per-response timings (2xx only), kept at µs
 * resolution instead of the whole milliseconds of its histogram.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { awaitChildLine, percentile, stopChild } from './bench-support.ts';
import type { FillInfo, ServerKind } from './http-server.bench.ts';
import type { Comparison, Target } from './http-targets.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SERVER_SCRIPT = 'bench/http-server.bench.ts';
const CONNECTIONS = 10;
/** How long a child may take to print its port (the events fill takes a few seconds). */
const START_TIMEOUT_MS = 120_000;

/** What one measurement of some targets gives: a row each, and the events fill. */
export interface Measured {
  rows: Row[];
  fill: FillInfo | undefined;
}

/**
 * Starts the servers the targets need, checks one answer of each, runs `rounds` rounds of
 * every target (warm-up, then `seconds` of load), stops the servers.
 */
export async function measureTargets(
  targets: Target[],
  options: { seconds: number; rounds: number; warmupSeconds: number },
): Promise<Measured> {
  const servers = new Map<ServerKind, Server>();
  try {
    // The events fill first (it is the CPU-heavy start); then every server stays up.
    const kinds = (['stub-events', 'bare', 'stub'] as const).filter((kind) =>
      targets.some((t) => t.kind === kind),
    );
    for (const kind of kinds) servers.set(kind, await startServer(kind));
    const urls = new Map<string, string>();
    for (const target of targets) {
      const server = servers.get(target.kind)!;
      const url = `http://127.0.0.1:${server.port}${target.path(server.info)}`;
      urls.set(target.id, url);
      await checkTarget(target, url, server.info);
    }
    const samples = new Map<string, Sample[]>(targets.map((t) => [t.id, []]));
    const latencies = new Map<string, number[]>(targets.map((t) => [t.id, []]));
    for (let round = 1; round <= options.rounds; round++) {
      for (const target of targets) {
        const server = servers.get(target.kind)!;
        process.stderr.write(
          `round ${round}/${options.rounds} ${target.label}: warm-up ${options.warmupSeconds} s, run ${options.seconds} s…\n`,
        );
        const sample = await measure(
          target,
          urls.get(target.id)!,
          server,
          options,
          latencies.get(target.id)!,
        );
        samples.get(target.id)!.push(sample);
        if (server.child.exitCode !== null || server.child.signalCode !== null) {
          throw new Error(`server '${target.kind}' died during '${target.label}'`);
        }
      }
    }
    const rows = targets.map((target) => {
      const all = latencies.get(target.id)!.sort((a, b) => a - b);
      return summarise(target, urls.get(target.id)!, samples.get(target.id)!, all);
    });
    return { rows, fill: servers.get('stub-events')?.info };
  } finally {
    for (const server of servers.values()) await stopChild(server.child);
  }
}

/** The median of the per-round ratios of a stub route to its bare route, and their range. */
export function ratioOf(
  rows: Row[],
  comparison: Comparison,
): { ratio: number; low: number; high: number; stub: Row; bare: Row } {
  const stub = rows.find((r) => r.target.id === comparison.stub)!;
  const bare = rows.find((r) => r.target.id === comparison.bare)!;
  const ratios = stub.perRound.map((rps, i) => rps / bare.perRound[i]!);
  return { ratio: median(ratios), low: Math.min(...ratios), high: Math.max(...ratios), stub, bare };
}

const children = new Set<ChildProcess>();

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

export function killChildren(): void {
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
  options: { seconds: number; warmupSeconds: number },
  latencies: number[],
): Promise<Sample> {
  await run(target, url, options.warmupSeconds);
  const cpu0 = childCpuMs(server.child);
  const self0 = process.cpuUsage();
  const t0 = performance.now();
  const result = await run(target, url, options.seconds, latencies);
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

export interface Row {
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

export function table(rows: Row[]): string[] {
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
