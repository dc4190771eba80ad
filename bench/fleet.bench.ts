/**
 * `npm run bench:fleet`: how cost grows with the fleet. For each size it runs bench/fleet-run.ts
 * in a fresh process (a stub in a child process, the fleet in that process or its worker
 * threads), prints that run's report, then a table of every size side by side.
 *
 *   npm run bench:fleet                                        1,000 and 10,000 badges
 *   npm run bench:fleet -- --badges 1000,10000,25000,50000 --workers 2
 *
 * --badges: comma-separated sizes (each 100 to 100,000; default 1000,10000).
 * --workers: worker threads for the badges (0 to 64; default 0: the fleet's own thread).
 * Sizes run one after another, never together: each has the machine to itself. The package is
 * built first (`node scripts/build-package.mjs`): the fleet and the stub run from dist/, as
 * installed. Memory per badge is judged settled (bench/fleet-run.ts: idle up to BENCH_SETTLE_S,
 * default 90 s, before the fleet and after its alert, until V8 has handed memory back); the
 * figure just after connecting is printed beside it. After each size, bench/fleet-floor-run.ts
 * measures the floors under its fan-out on this machine (bare WebSockets, then with one badge
 * machine each), and the table gives the first-play p99 as a ratio to them.
 */
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { FloorResult } from './fleet-floor-run.ts';
import type { FleetRunResult } from './fleet-run-report.ts';
import { GOALS, verdict } from './goals.ts';

/** The size issue 28 judges the fan-out at. */
const FAN_OUT_GOAL_BADGES = 10_000;

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** A size's RESULT line, with the same size's floors (bench/fleet-floor-run.ts), run right after it. */
type RunResult = FleetRunResult & { floor?: FloorResult };

function usage(problem: string): never {
  process.stderr.write(
    `bench:fleet: ${problem}\nusage: npm run bench:fleet -- [--badges 1000,10000,25000,50000] [--workers N]\n`,
  );
  process.exit(2);
}

function options(): { sizes: number[]; workers: number } {
  let values: { badges?: string; workers?: string };
  try {
    ({ values } = parseArgs({
      options: { badges: { type: 'string' }, workers: { type: 'string' } },
      strict: true,
    }));
  } catch (error) {
    usage((error as Error).message);
  }
  const sizes = (values.badges ?? '1000,10000').split(',').map((word) => {
    const n = Number(word.trim().replace(/_/g, ''));
    if (!(Number.isInteger(n) && n >= 100 && n <= 100_000))
      usage(`--badges '${word}' is not a whole number from 100 to 100000`);
    return n;
  });
  const workers = Number(values.workers ?? 0);
  if (!(Number.isInteger(workers) && workers >= 0 && workers <= 64))
    usage(`--workers '${values.workers}' is not a whole number from 0 to 64`);
  return { sizes, workers };
}

/**
 * One bench script in a fresh process (one size): its report goes through, and the JSON of its
 * line that starts with `tag` (RESULT, FLOOR) comes back.
 */
function runOne<T>(
  script: string,
  tag: string,
  badges: number,
  workers: number,
): Promise<T | undefined> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', script], {
      cwd: ROOT,
      env: { ...process.env, BENCH_BADGES: String(badges), BENCH_WORKERS: String(workers) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let result: T | undefined;
    let pending = '';
    child.stdout.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      let newline = pending.indexOf('\n');
      while (newline >= 0) {
        const line = pending.slice(0, newline);
        pending = pending.slice(newline + 1);
        if (line.startsWith(`${tag} `)) result = JSON.parse(line.slice(tag.length + 1)) as T;
        else process.stdout.write(`${line}\n`);
        newline = pending.indexOf('\n');
      }
    });
    child.on('close', () => resolve(result));
  });
}

const fixed = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '–');

function table(results: RunResult[]): string[] {
  const header = [
    'badges',
    'workers',
    'connected',
    'all online',
    'POST (stub)',
    'POST (seen)',
    'first play p50',
    'p99',
    'max',
    'fleet KB/badge',
    'settled',
    'stub KB/badge',
    'settled',
    'fleet CPU/badge',
    'stub CPU/badge',
    'floor p99: sockets',
    '+ machine',
    'p99 ÷ floor',
  ];
  const rows = results.map((r) => [
    r.badges.toLocaleString('en-US'),
    String(r.workers),
    r.connected.toLocaleString('en-US'),
    `${fixed(r.connectS, 2)} s`,
    `${fixed(r.postMs)} ms`,
    `${fixed(r.postSeenMs)} ms`,
    `${fixed(r.p50, 0)} ms`,
    `${fixed(r.p99, 0)} ms`,
    `${fixed(r.max, 0)} ms`,
    fixed(r.fleetKbConnected),
    fixed(r.fleetKb),
    fixed(r.stubKbConnected),
    fixed(r.stubKb),
    `${fixed(r.fleetCpuUs, 0)} µs`,
    `${fixed(r.stubCpuUs, 0)} µs`,
    `${fixed(r.floor?.sockets.p99 ?? Number.NaN, 0)} ms`,
    `${fixed(r.floor?.machine.p99 ?? Number.NaN, 0)} ms`,
    `× ${fixed(r.p99 / (r.floor?.machine.p99 ?? Number.NaN), 2)}`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
  return [line(header), rule, ...rows.map(line)];
}

/** The package as it ships, so the bench measures what users run (not tsx's transform). */
function build(): void {
  process.stderr.write('bench:fleet: building the package (dist/)…\n');
  const built = spawnSync(process.execPath, ['scripts/build-package.mjs'], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (built.status !== 0) {
    process.stderr.write('bench:fleet: `node scripts/build-package.mjs` failed; see above\n');
    process.exit(1);
  }
}

async function main(): Promise<void> {
  const { sizes, workers } = options();
  build();
  const results: RunResult[] = [];
  for (const badges of sizes) {
    process.stderr.write(`bench:fleet: ${badges} badges, ${workers} worker threads…\n`);
    const result = await runOne<RunResult>('bench/fleet-run.ts', 'RESULT', badges, workers);
    if (!result) {
      process.stderr.write(`bench:fleet: the run of ${badges} badges gave no result\n`);
      continue;
    }
    process.stderr.write(`bench:fleet: the floors under ${badges} bare WebSockets…\n`);
    result.floor = await runOne<FloorResult>('bench/fleet-floor-run.ts', 'FLOOR', badges, 0);
    if (!result.floor)
      process.stderr.write(`bench:fleet: the floors of ${badges} gave no result\n`);
    results.push(result);
  }
  const print = (line = '') => process.stdout.write(`${line}\n`);
  print();
  print('## bench:fleet: every size');
  print();
  print(
    'Connect time from `startFleet` to all online; the POST to every badge, as the stub timed it ' +
      '(its request journal) and as the fleet process saw it (busy with the plays as the answer ' +
      'came); first play after the ' +
      'POST; RSS per badge (fleet process, all its threads; stub process, per connected badge), ' +
      'just after connecting and settled (lowest over the idle wait, when V8 has handed back ' +
      'what the handshakes left committed); ' +
      'CPU per badge while connecting and playing the alert. ' +
      'Floors, run right after each size on the same machine (bench/fleet-floor-run.ts): the ' +
      'p99 arrival of one frame at as many bare WebSockets, alone and with one badge-machine ' +
      'PLAY each (better of two rounds); p99 ÷ floor is the first-play p99 (the better of two ' +
      'alerts, likewise) over the second.',
  );
  print();
  for (const line of table(results)) print(line);
  if (results.length > 1) {
    const [a, b] = [results[0]!, results.at(-1)!];
    const grow = (x: number, y: number) => fixed(y / x, 2);
    print();
    print(
      `From ${a.badges.toLocaleString('en-US')} to ${b.badges.toLocaleString('en-US')} badges ` +
        `(× ${grow(a.badges, b.badges)}): connect × ${grow(a.connectS, b.connectS)}, POST × ` +
        `${grow(a.postMs, b.postMs)}, first-play p99 × ${grow(a.p99, b.p99)}, fleet KB/badge × ` +
        `${grow(a.fleetKb, b.fleetKb)}, fleet CPU/badge × ${grow(a.fleetCpuUs, b.fleetCpuUs)}.`,
    );
    // What one more badge costs, free of what any fleet costs once (compiled code, modules).
    const marginal = (perBadge: (r: RunResult) => number) =>
      fixed((perBadge(b) * b.badges - perBadge(a) * a.badges) / (b.badges - a.badges));
    print(
      `Each badge beyond the first ${a.badges.toLocaleString('en-US')} (settled RSS): fleet ` +
        `${marginal((r) => r.fleetKb)} KB, stub ${marginal((r) => r.stubKb)} KB.`,
    );
  }
  const tenThousand = results.find((r) => r.badges === FAN_OUT_GOAL_BADGES);
  print();
  print(
    `Goal (issue 28): at ${FAN_OUT_GOAL_BADGES.toLocaleString('en-US')} badges, first-play p99 at ` +
      `most ${GOALS.fanOutVsFloor} × the floor with one badge machine each, measured beside it: ` +
      (tenThousand?.floor
        ? `p99 ${fixed(tenThousand.p99, 0)} ms ÷ floor ${fixed(tenThousand.floor.machine.p99, 0)} ms = ` +
          `× ${fixed(tenThousand.p99 / tenThousand.floor.machine.p99, 2)} ` +
          verdict(tenThousand.p99 <= GOALS.fanOutVsFloor * tenThousand.floor.machine.p99)
        : `not measured in this run (sizes ${sizes.join(', ')}) ${verdict(false)}`),
  );
  if (results.length < sizes.length) process.exit(1);
}

await main();
