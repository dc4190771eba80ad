/**
 * `npm run bench:startup`: how fast badge-sim starts as a user installs it (issue 28, points 3
 * and 4). The checkout is packed (`npm pack`, whose prepack builds dist/) and the tarball
 * installed into a throwaway project; then, side by side in one run and in turns, so a passing
 * disturbance of a shared machine moves every figure alike:
 *
 * - `node -e 0`, the floor: what starting Node alone costs here;
 * - `badge-sim --version` and `badge-sim --help`;
 * - `badge-sim run` of one small catalogue scenario, to its exit;
 * - `badge-sim stub`, from spawn to its first 200 on `GET /_stub/health`, and its idle RSS;
 * - once: that stub's RSS after a bounded HTTP load (POST alerts, GET events) and after
 *   `POST /_stub/reset`, watched for 20 s (a reset gives memory back: H11);
 * - where a Docker engine answers: the image (built from the installed package's Dockerfile,
 *   or BENCH_STARTUP_IMAGE), from `docker start` to its first 200, beside the same image
 *   running a bare Node HTTP server (docker's own floor).
 *
 * Medians of BENCH_STARTUP_REPEATS runs (default 7); wall, CPU (user + system, told by the
 * process itself at exit) and peak RSS. The verdicts are the issue's goals: --version and
 * --help < 150 ms, run < 400 ms, first 200 < 400 ms, idle RSS < 100 MiB, RSS after load and a
 * reset within 20 % of idle.
 *
 *   npm run bench:startup
 *   BENCH_STARTUP_QUICK=1 npm run bench:startup   the CI guard: floor, --version, --help and
 *       stub start only, from this checkout's dist/ when it is newer than the sources (CI
 *       builds it first; else it is built now), dependencies linked from this checkout (no
 *       registry); exits 1 when `--version` takes more than GUARD_VERSION_MS (well above the
 *       goal, for a shared machine)
 *   BENCH_STARTUP_PACKAGE=<dir>   measure an installed consumer project instead of packing
 *
 * Markdown on stdout; progress on stderr.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { environmentLines, loadavg, readNumber, stopChild, stopOnExit } from './bench-support.ts';
import { GOALS, GUARD, verdict } from './goals.ts';
import { type ImageFigures, measureImage } from './startup-image.ts';
import {
  cpuOf,
  freePort,
  median,
  type ProcessFigures,
  ProcessMeter,
  pause,
  rssOf,
  untilOk,
} from './startup-measure.ts';
import {
  distIsFresh,
  givenPackage,
  type InstalledPackage,
  installTarball,
  packCheckout,
} from './startup-package.ts';

const QUICK = process.env.BENCH_STARTUP_QUICK === '1' || process.env.BENCH_STARTUP_QUICK === 'true';
const REPEATS = Math.round(readNumber('BENCH_STARTUP_REPEATS', QUICK ? 5 : 7, 50));

/** The goals of issue 28, exactly. */
/** Issue 28's goals (goals.ts), as this bench names them. */
const GOAL = {
  cliMs: GOALS.cliStartMs,
  runMs: GOALS.cliRunOneMs,
  firstOkMs: GOALS.stubStartMs,
  idleRssMiB: GOALS.stubIdleRssMiB,
  /** RSS after the load and a reset, at most this share above idle. */
  afterResetShare: GOALS.stubRssAfterLoadRatio - 1,
} as const;
/** The CI guard's floor (quick mode): a tenfold regression fails it, a noisy machine does not. */
const GUARD_VERSION_MS = GUARD.cliVersionMs;

/** A small scenario of the installed catalogue. */
const SCENARIO = 'dist/scenarios/catalogue/single-acknowledgement.scenario.yaml';
const HEALTH = '/_stub/health';
/** The bounded load: at most this many requests of each kind, and this long in all. */
const LOAD = { alerts: 2_000, events: 3_000, connections: 10, maxSeconds: 60 } as const;
/** How long RSS is watched after the reset. */
const AFTER_RESET_SECONDS = 20;
const ACCOUNT = { id: '100001', key: 'demo-api-key-riverside-0001', group: 'Nurses' } as const;

const children = new Set<ChildProcess>();
stopOnExit(() => {
  for (const child of children) child.kill('SIGKILL');
});

interface StubStart {
  firstOkMs: number;
  /** CPU time to the first 200 (10 ms ticks). */
  cpuMs: number;
  idleRssMiB: number;
}

/** Starts `badge-sim stub`, times its first 200, reads its idle RSS; leaves it running. */
async function startStub(meter: ProcessMeter, pkg: InstalledPackage) {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(pkg.bin, ['stub', '--port', String(port), '--quiet'], {
    cwd: pkg.consumer,
    env: meter.env(meter.usageFile()),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  const url = `http://127.0.0.1:${port}`;
  const firstOkMs = await untilOk(`${url}${HEALTH}`, started, () => child.exitCode !== null);
  const cpuMs = cpuOf(child.pid!);
  // Idle: nothing asked of it for a second after it is up.
  await pause(1_000);
  return { child, url, firstOkMs, cpuMs, idleRssMiB: rssOf(child.pid!).rssMiB };
}

/** One stub start, to its first 200 and idle RSS, then stopped. */
async function stubStart(meter: ProcessMeter, pkg: InstalledPackage): Promise<StubStart> {
  const { child, firstOkMs, cpuMs, idleRssMiB } = await startStub(meter, pkg);
  await stopChild(child);
  return { firstOkMs, cpuMs, idleRssMiB };
}

/** A bounded autocannon run (a count of requests, and at most LOAD.maxSeconds): its 2xx answers. */
function load(options: autocannon.Options): Promise<number> {
  return new Promise((resolve, reject) => {
    const instance = autocannon({ ...options, connections: LOAD.connections }, (error, result) => {
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(result['2xx']);
    });
    const timer = setTimeout(() => instance.stop(), LOAD.maxSeconds * 1_000);
  });
}

interface MemoryFigures {
  idleRssMiB: number;
  afterLoadRssMiB: number;
  peakRssMiB: number;
  afterResetRssMiB: number;
  /** RSS each second after the reset. */
  afterResetSeries: number[];
  requests: number;
}

/** A stub's RSS idle, after the HTTP load (and its peak), and after a reset. */
async function memoryUnderLoad(meter: ProcessMeter, pkg: InstalledPackage): Promise<MemoryFigures> {
  const { child, url, idleRssMiB } = await startStub(meter, pkg);
  const api = `${url}/subscribers/${ACCOUNT.id}/api/v1`;
  const auth = `ServiceApiKey ${ACCOUNT.key}`;
  process.stderr.write(`load: ${LOAD.alerts} POST alerts, ${LOAD.events} GET events…\n`);
  const posted = await load({
    url: `${api}/alerts`,
    method: 'POST',
    amount: LOAD.alerts,
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify({ notification: 'Bench', groups: [ACCOUNT.group], timeout: 60 }),
  });
  const read = await load({
    url: `${api}/events?limit=100`,
    amount: LOAD.events,
    headers: { authorization: auth },
  });
  await pause(1_000);
  const afterLoad = rssOf(child.pid!);
  const reset = await fetch(`${url}/_stub/reset`, { method: 'POST' });
  if (!reset.ok) throw new Error(`POST /_stub/reset answered ${reset.status}`);
  // What a user sees over the next seconds, the stub left alone: a reset collects at once and
  // again once the stub is quiet (H11); RSS read each second, the goal judged on the last.
  const afterResetSeries: number[] = [];
  for (let second = 1; second <= AFTER_RESET_SECONDS; second++) {
    await pause(1_000);
    afterResetSeries.push(rssOf(child.pid!).rssMiB);
  }
  const afterReset = rssOf(child.pid!);
  await stopChild(child);
  return {
    idleRssMiB,
    afterLoadRssMiB: afterLoad.rssMiB,
    peakRssMiB: afterReset.peakMiB,
    afterResetRssMiB: afterReset.rssMiB,
    afterResetSeries,
    requests: posted + read,
  };
}

function preparePackage(work: string): InstalledPackage {
  const given = process.env.BENCH_STARTUP_PACKAGE;
  if (given) return givenPackage(given);
  // Quick (the CI guard): the dist/ CI has just built, when it is newer than the sources.
  const reuseDist = QUICK && distIsFresh();
  process.stderr.write(
    reuseDist
      ? "packing this checkout with the dist/ it has (built after the sources' last change)…\n"
      : 'packing this checkout (npm pack: the build runs first)…\n',
  );
  const pkg = installTarball(work, packCheckout(work, reuseDist), !QUICK);
  return {
    ...pkg,
    how: `${pkg.how}${reuseDist ? "; this checkout's fresh dist/" : '; built now'}`,
  };
}

const ms = (value: number) => `${Math.round(value)} ms`;
const mib = (value: number) => (Number.isNaN(value) ? '–' : `${value.toFixed(1)} MiB`);

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'badge-sim-startup-'));
  const keep = process.env.BENCH_STARTUP_KEEP === '1';
  stopOnExit(() => {
    if (!keep) rmSync(work, { recursive: true, force: true });
  });
  const pkg = preparePackage(work);
  const meter = new ProcessMeter(work);
  const scenario = join(pkg.installed, SCENARIO);
  if (!existsSync(scenario)) throw new Error(`no ${SCENARIO} in the installed package`);

  const commands: { label: string; run: () => Promise<ProcessFigures> }[] = [
    {
      label: '`node -e 0` (the floor)',
      run: () => meter.run(process.execPath, ['-e', '0'], pkg.consumer),
    },
    { label: '`badge-sim --version`', run: () => meter.run(pkg.bin, ['--version'], pkg.consumer) },
    { label: '`badge-sim --help`', run: () => meter.run(pkg.bin, ['--help'], pkg.consumer) },
  ];
  if (!QUICK) {
    commands.push({
      label: '`badge-sim run single-acknowledgement.scenario.yaml`',
      run: () => meter.run(pkg.bin, ['run', scenario], pkg.consumer, 120_000),
    });
  }
  const loadBefore = loadavg();
  const figures = commands.map(() => [] as ProcessFigures[]);
  const starts: StubStart[] = [];
  // One warm-up round (the file cache), not counted.
  for (const command of commands) await command.run();
  for (let round = 1; round <= REPEATS; round++) {
    process.stderr.write(`round ${round}/${REPEATS}\n`);
    for (const [i, command] of commands.entries()) figures[i]!.push(await command.run());
    starts.push(await stubStart(meter, pkg));
  }
  const memory = QUICK ? undefined : await memoryUnderLoad(meter, pkg);
  const image = QUICK ? undefined : await measureImage(pkg, REPEATS);
  const loadAfter = loadavg();

  const floor = median(figures[0]!.map((f) => f.wallMs));
  const print = (line = '') => process.stdout.write(`${line}\n`);
  print(`## bench:startup${QUICK ? ' (quick)' : ''}`);
  print();
  print(environmentLines(['fastify']));
  print(`- package: ${pkg.how}`);
  print(
    `- load average (1 min) before/after: ${loadBefore} / ${loadAfter}; ${REPEATS} rounds, medians`,
  );
  print();
  print('| what | wall | × `node -e 0` | CPU | peak RSS | goal |');
  print('|---|---:|---:|---:|---:|---|');
  const goals = [undefined, GOAL.cliMs, GOAL.cliMs, GOAL.runMs];
  for (const [i, command] of commands.entries()) {
    const wall = median(figures[i]!.map((f) => f.wallMs));
    const goal = goals[i];
    print(
      `| ${command.label} | ${ms(wall)} | ${(wall / floor).toFixed(1)}× | ${ms(median(figures[i]!.map((f) => f.cpuMs)))} | ${mib(median(figures[i]!.map((f) => f.maxRssMiB)))} | ${goal === undefined ? '–' : `< ${goal} ms ${verdict(wall < goal)}`} |`,
    );
  }
  const firstOk = median(starts.map((s) => s.firstOkMs));
  const idle = median(starts.map((s) => s.idleRssMiB));
  print(
    `| \`badge-sim stub\`: spawn to first 200 on ${HEALTH} | ${ms(firstOk)} | ${(firstOk / floor).toFixed(1)}× | ${ms(median(starts.map((s) => s.cpuMs)))} | | < ${GOAL.firstOkMs} ms ${verdict(firstOk < GOAL.firstOkMs)} |`,
  );
  print(
    `| \`badge-sim stub\`: idle RSS | | | | ${mib(idle)} | < ${GOAL.idleRssMiB} MiB ${verdict(idle < GOAL.idleRssMiB)} |`,
  );
  if (memory) printMemory(print, memory);
  if (image) printImage(print, image);
  print();
  print(
    'wall: spawn to exit as this process sees it (stub: to its first 200); CPU: user + system of the whole process, as it tells at exit (stub: to its first 200, from /proc, 10 ms ticks); peak RSS: its maxRSS.',
  );
  if (!image && !QUICK) print('Image: not measured (no Docker engine answers here).');
  if (QUICK) {
    const version = median(figures[1]!.map((f) => f.wallMs));
    const ok = version < GUARD_VERSION_MS;
    print();
    print(
      `guard: \`badge-sim --version\` ${ms(version)} (floor ${GUARD_VERSION_MS} ms) ${verdict(ok)}`,
    );
    if (!ok) process.exitCode = 1;
  }
}

function printMemory(print: (line?: string) => void, memory: MemoryFigures): void {
  const limit = memory.idleRssMiB * (1 + GOAL.afterResetShare);
  print(
    `| stub after the HTTP load (${memory.requests} requests: POST alerts, GET events), peak | | | | ${mib(memory.afterLoadRssMiB)} (peak ${mib(memory.peakRssMiB)}) | – |`,
  );
  print(
    `| stub after the load and \`POST /_stub/reset\`, ${AFTER_RESET_SECONDS} s later (idle ${mib(memory.idleRssMiB)}; each 5 s: ${memory.afterResetSeries
      .filter((_, i) => i % 5 === 4)
      .map(mib)
      .join(
        ', ',
      )}) | | | | ${mib(memory.afterResetRssMiB)} | ≤ ${mib(limit)} (idle + 20 %) ${verdict(memory.afterResetRssMiB <= limit)} |`,
  );
}

function printImage(print: (line?: string) => void, image: ImageFigures): void {
  print(
    `| image \`${image.tag}\`: docker start of a bare Node HTTP server to first 200 (docker's floor) | ${ms(image.floorMs)} | | | | – |`,
  );
  print(
    `| image: docker start to first 200 on ${HEALTH} | ${ms(image.firstOkMs)} | ${(image.firstOkMs / image.floorMs).toFixed(1)}× docker's floor | | | < ${GOAL.firstOkMs} ms ${verdict(image.firstOkMs < GOAL.firstOkMs)} |`,
  );
  print(
    `| image: idle RSS of the stub (PID 1) | | | | ${mib(image.idleRssMiB)} | < ${GOAL.idleRssMiB} MiB ${verdict(image.idleRssMiB < GOAL.idleRssMiB)} |`,
  );
}

await main();
