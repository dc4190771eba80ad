/**
 * `npm run bench:soak`: does memory come back? A stub and a fleet run round after round of
 * alerts on the virtual clock; the bench prints what each process holds after every round,
 * the growth per round, what a reset gives back, and a fresh stub's memory to compare.
 *
 *   npm run bench:soak                                   1,000 badges, 20 rounds of 5 minutes
 *   npm run bench:soak -- --rounds 14 --round 1d         retention at work: the window fills
 *   BENCH_BADGES=200 BENCH_ROUNDS=4 npm run bench:soak
 *
 * Settings (a flag wins over its variable): `--badges` / BENCH_BADGES (default 1,000),
 * `--rounds` / BENCH_ROUNDS (20), `--round` / BENCH_ROUND (virtual length of a round,
 * default `5m`; at least `5m`), `--warmup` / BENCH_WARMUP (rounds left out of the slope;
 * default: the rounds it takes to fill the 7-day retention window, plus one, when that leaves
 * at least 3 rounds to measure, else 1), `--cycles` / BENCH_CYCLES (1 or 2, default 2: the
 * rounds run a second time on the same stub, with a new fleet, and it is reset again), and
 * BENCH_TIMEOUT_S (the whole bench, default 1,800 s).
 *
 * 1. The stub runs in a child process started with the CLI (`badge-sim stub --port 0
 *    --generate N --seed 1 --clock virtual --quiet`, on 127.0.0.1), under `node --expose-gc`
 *    with bench/soak-probe.ts preloaded: asked over IPC, it answers `process.memoryUsage()`
 *    after a full GC. (Bench only: the product has no memory endpoint.) The fixtures get one
 *    group 'Everyone' with every device (PUT /_stub/fixtures), as in bench:fleet.
 * 2. The fleet runs here (`startFleet` on the stub's URL): even badges acknowledge 5 s after
 *    an alert first plays, odd badges never do.
 * 3. Each round: alert A to everyone (timeout 60 s, `on_ack`, `on_timeout`: half acknowledge,
 *    the rest time out), alert B (name `drill`, timeout 240 s) cancelled with DELETE after
 *    10 s; the clock moves on 5 minutes through the control API (the fleet's `advanceBy`),
 *    then to the round's end. Then both processes are measured after a full GC.
 * 4. Growth: least-squares slope in MiB per round of RSS and heap used, over the rounds after
 *    the warm-up. With rounds of 1 day, the 7-day window is full from round 8 on: from then
 *    each round adds what the round 7 days before it drops, so a flat slope shows retention
 *    at work. With 5-minute rounds nothing reaches the window in a run this short, and the
 *    slope is what a round of alerts adds (kept 7 days by design: V4, H1–H2).
 * 5. `POST /_stub/reset` with the fleet still connected, and the stub measured; with 2 cycles
 *    the same rounds run again on that stub (a new fleet) and it is reset and measured again:
 *    what a reset keeps must not add up. Then the fleet closes, the stub stops, and a fresh
 *    stub with the same fixtures and a fresh fleet of the same badges is measured the same way.
 *
 * Goals: the stub's RSS and heap-used slopes under 0.5 MiB a round after the warm-up; the
 * stub's RSS after a reset within 10 % of the fresh stub's. RSS after a reset also holds what
 * glibc's malloc arenas keep (the gap shows as RSS − heap total): the stub runs with
 * `MALLOC_ARENA_MAX=2`, as the image runs it; `MALLOC_ARENA_MAX=` (empty) measures glibc's
 * default (RSS after a reset then varies from ×0.9 to ×1.14 run to run). Results go to stdout
 * as Markdown, progress to stderr.
 * Exit code 0 even when a goal fails (it prints FAIL); 1 when something crashed.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { FixtureBehaviour, Fixtures } from '../fixtures/fixtures.schema.ts';
import { CONTROL_PREFIX } from '../protocol/control-api.schema.ts';
import { formatDuration, parseDuration } from '../protocol/duration.ts';
import { type FleetHandle, startFleet } from '../simulator/fleet.ts';
import {
  awaitChildLine,
  environmentLines,
  exposeGc,
  loadavg,
  memoryAfterGc,
  type ProcessMemory,
  putEveryoneGroup,
  readNumber,
  stopChild,
  stopOnExit,
} from './bench-support.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MIB = 1024 * 1024;
const DAY_MS = 24 * 3600 * 1000;
/** The stub's retention of events, tasks and transcripts (EVENT_RETENTION_MS). */
const RETENTION_MS = 7 * DAY_MS;
/** The alerting part of a round: everything of a round's alerts happens within it. */
const ACTIVE_MS = 5 * 60 * 1000;
const START_TIMEOUT_MS = 120_000;
/**
 * The stub runs as the image runs it (decision H9): glibc keeps at most 2 malloc arenas, so
 * memory freed by a reset or by retention leaves RSS. `MALLOC_ARENA_MAX=` (empty) in the
 * environment measures glibc's default instead.
 */
const STUB_MALLOC_ARENA_MAX = process.env.MALLOC_ARENA_MAX ?? '2';
const CONNECT_TIMEOUT_MS = 120_000;

/** The goals. */
const SLOPE_GOAL_MIB = 0.5;
const RESET_GOAL_RATIO = 1.1;

const { values: flags } = parseArgs({
  options: {
    badges: { type: 'string' },
    rounds: { type: 'string' },
    round: { type: 'string' },
    warmup: { type: 'string' },
    cycles: { type: 'string' },
  },
  allowPositionals: false,
});

const BADGES = Math.round(setting('badges', 'BENCH_BADGES', 1_000, 20_000));
const ROUNDS = Math.round(setting('rounds', 'BENCH_ROUNDS', 20, 1_000));
const ROUND_MS = roundLength();
const TIMEOUT_MS = readNumber('BENCH_TIMEOUT_S', 1_800, 86_400) * 1000;
const WINDOW_ROUNDS = Math.ceil(RETENTION_MS / ROUND_MS) + 1;
const WARMUP = warmupRounds();
const CYCLES = Math.round(setting('cycles', 'BENCH_CYCLES', 2, 2));

interface Memory extends ProcessMemory {
  /** The stub only: compiled code, and V8's malloc'd memory. */
  codeSpace?: number;
  malloced?: number;
}

interface Round {
  round: number;
  stub: Memory;
  fleet: Memory;
  wallMs: number;
}

let stub: ChildProcess | undefined;
let fleet: FleetHandle | undefined;
let stopping = false;
const gc = exposeGc();
const print = (line = '') => process.stdout.write(`${line}\n`);

async function main(): Promise<void> {
  print('## bench:soak');
  print();
  print(environmentLines(['ws', 'xstate', 'fastify'], true));
  print(
    `- badges: ${BADGES.toLocaleString('en-US')}; rounds: ${ROUNDS} of ${formatDuration(ROUND_MS)} ` +
      `virtual time (alerts in the first ${formatDuration(ACTIVE_MS)}); warm-up: ${WARMUP} ` +
      `round${WARMUP === 1 ? '' : 's'} (the 7-day window is full after ${WINDOW_ROUNDS} rounds of ` +
      `${formatDuration(ROUND_MS)}${WINDOW_ROUNDS > ROUNDS ? ': not within this run' : ''})`,
  );
  print(
    `- the stub: a child process on the virtual clock, measured over IPC after a full GC, with ` +
      `MALLOC_ARENA_MAX=${STUB_MALLOC_ARENA_MAX || '(unset)'}${STUB_MALLOC_ARENA_MAX === '2' ? ' as the image runs it' : ''}; ` +
      `the fleet: this process${gc ? ', after a full GC' : ' (no GC could be forced)'}`,
  );
  const loadBefore = loadavg();

  // ---- The stub and the fleet ---------------------------------------------------------------
  progress(`starting the stub with ${BADGES} generated devices…`);
  const url = await startStubProcess();
  const { groups, subscriberId, apiKey } = await everyoneFixtures(url);
  const idle = await stubMemory();
  progress(`connecting ${BADGES} badges…`);
  fleet = await connectFleet(url);
  const connected = { stub: await stubMemory(), fleet: memoryAfterGc(gc) };
  print(
    `- stub pid ${stub!.pid}, ${url}: RSS ${mib(idle.rss)} with the fixtures loaded, ` +
      `${mib(connected.stub.rss)} with ${fleet.connectedCount()} badges online`,
  );
  print();

  // ---- Rounds -------------------------------------------------------------------------------
  const api = `${url}/subscribers/${subscriberId}/api/v1`;
  const auth = { authorization: `ServiceApiKey ${apiKey}`, 'content-type': 'application/json' };
  const refusals: string[] = [];
  const expectStatus = (what: string, response: Response, status: number) => {
    if (response.status !== status) refusals.push(`${what}: ${response.status}`);
  };
  const rounds: Round[] = [{ round: 0, ...connected, wallMs: 0 }];
  print(
    '| round | virtual time | stub RSS | stub heap used | fleet RSS | fleet heap used | wall |',
  );
  print(
    '|------:|-------------:|---------:|---------------:|----------:|----------------:|-----:|',
  );
  printRound(rounds[0]!);
  const soakRound = (round: number) => runRound(api, auth, groups, round, expectStatus);
  for (let round = 1; round <= ROUNDS; round++) {
    const t0 = performance.now();
    await soakRound(round);
    const measured: Round = {
      round,
      stub: await stubMemory(),
      fleet: memoryAfterGc(gc),
      wallMs: performance.now() - t0,
    };
    rounds.push(measured);
    printRound(measured);
  }
  print();
  const health = (await (await fetch(`${url}${CONTROL_PREFIX}/health`)).json()) as {
    clock: { now: string; pending_timers: number };
  };
  print(
    `The stub's clock after the rounds: ${health.clock.now}, ${health.clock.pending_timers} timers pending. ` +
      `Refused requests: ${refusals.length === 0 ? 'none' : refusals.join('; ')}. ` +
      `Badges online: ${fleet.connectedCount()} of ${BADGES}.`,
  );
  print();

  // ---- Reset, then a fresh stub -------------------------------------------------------------
  const beforeReset = rounds.at(-1)!.stub;
  const reset = await fetch(`${url}${CONTROL_PREFIX}/reset`, { method: 'POST' });
  await reset.arrayBuffer();
  const afterReset = await stubMemory();
  // A second cycle on the same stub: does a reset give back the same again, or does what it
  // keeps add up? (A new fleet: the old one's clock is where the stub's was before the reset.)
  let secondCycle: { beforeReset: Memory; afterReset: Memory } | undefined;
  if (CYCLES > 1) {
    progress(`cycle 2: a new fleet, the same ${ROUNDS} rounds, and a reset…`);
    await fleet.close();
    fleet = await connectFleet(url);
    for (let round = 1; round <= ROUNDS; round++) {
      await soakRound(round);
      progress(`cycle 2: round ${round}/${ROUNDS}`);
    }
    const before = await stubMemory();
    await (await fetch(`${url}${CONTROL_PREFIX}/reset`, { method: 'POST' })).arrayBuffer();
    secondCycle = { beforeReset: before, afterReset: await stubMemory() };
  }
  progress('closing the fleet and stopping the stub; starting a fresh one…');
  await closeAll();
  const freshUrl = await startStubProcess();
  await everyoneFixtures(freshUrl);
  fleet = await connectFleet(freshUrl);
  const fresh = await stubMemory();
  await closeAll();

  // ---- Results ------------------------------------------------------------------------------
  const measured = rounds.filter((r) => r.round > WARMUP);
  const slope = (pick: (r: Round) => number) =>
    leastSquaresSlope(measured.map((r) => [r.round, pick(r) / MIB]));
  const stubRssSlope = slope((r) => r.stub.rss);
  const stubHeapSlope = slope((r) => r.stub.heapUsed);
  const fleetRssSlope = slope((r) => r.fleet.rss);
  const fleetHeapSlope = slope((r) => r.fleet.heapUsed);
  const ratio = afterReset.rss / fresh.rss;
  const heapRatio = afterReset.heapUsed / fresh.heapUsed;
  const over = measured.length >= 2 ? `rounds ${WARMUP + 1}–${ROUNDS}` : 'too few rounds';

  print('### Growth and reset');
  print();
  print(
    `- slope (least squares, ${over}): stub RSS ${perRound(stubRssSlope)}, heap used ` +
      `${perRound(stubHeapSlope)}; fleet RSS ${perRound(fleetRssSlope)}, heap used ${perRound(fleetHeapSlope)}`,
  );
  print(
    `- stub after the last round: RSS ${mib(beforeReset.rss)}, heap used ${mib(beforeReset.heapUsed)}; ` +
      `after POST /_stub/reset (${reset.status}, ${BADGES} badges still connected): RSS ` +
      `${mib(afterReset.rss)}, heap used ${mib(afterReset.heapUsed)}`,
  );
  print(
    `- a fresh stub, same fixtures, ${BADGES} badges connected: RSS ${mib(fresh.rss)}, heap used ` +
      `${mib(fresh.heapUsed)}; after reset ÷ fresh: RSS ${ratio.toFixed(3)}, heap used ${heapRatio.toFixed(3)}`,
  );
  const parts = (m: Memory) =>
    `heap total ${mib(m.heapTotal)}, external ${mib(m.external)}, code ${mib(m.codeSpace ?? 0)}, ` +
    `V8 malloc ${mib(m.malloced ?? 0)}, RSS − heap total ${mib(m.rss - m.heapTotal)}`;
  print(`- after reset: ${parts(afterReset)}; fresh: ${parts(fresh)}`);
  if (secondCycle) {
    print(
      `- cycle 2 (the same rounds again on this stub, a new fleet, then a reset): RSS ` +
        `${mib(secondCycle.beforeReset.rss)} before the reset, ${mib(secondCycle.afterReset.rss)} ` +
        `after (heap used ${mib(secondCycle.afterReset.heapUsed)}; ${parts(secondCycle.afterReset)}); ` +
        `after reset 2 − after reset 1: RSS ${signedMib(secondCycle.afterReset.rss - afterReset.rss)}, ` +
        `heap used ${signedMib(secondCycle.afterReset.heapUsed - afterReset.heapUsed)}`,
    );
  }
  print(`- load average (1 min) before/after: ${loadBefore} / ${loadavg()}`);
  print();
  print('### Goals');
  print();
  // RSS alone can hide growth (the allocator keeps or returns pages as it likes): the heap's
  // objects must not grow either.
  const slopeOk =
    measured.length >= 2 && stubRssSlope < SLOPE_GOAL_MIB && stubHeapSlope < SLOPE_GOAL_MIB;
  print(
    `- stub RSS and heap used grow under ${SLOPE_GOAL_MIB} MiB a round after the warm-up (rounds ` +
      `of ${formatDuration(ROUND_MS)}, default retention): RSS ${perRound(stubRssSlope)}, heap used ` +
      `${perRound(stubHeapSlope)} **${verdict(slopeOk)}**`,
  );
  print(
    `- stub RSS after a reset within ${Math.round((RESET_GOAL_RATIO - 1) * 100)} % of a fresh stub's: ` +
      `${mib(afterReset.rss)} vs ${mib(fresh.rss)} (×${ratio.toFixed(3)}) **${verdict(ratio <= RESET_GOAL_RATIO)}**`,
  );
}

/**
 * One round: alert A to everyone (half acknowledge, the rest time out), alert B cancelled
 * after 10 s, 5 minutes of virtual time, then on to the round's end.
 */
async function runRound(
  api: string,
  auth: Record<string, string>,
  groups: string[],
  round: number,
  expectStatus: (what: string, response: Response, status: number) => void,
): Promise<void> {
  const a = await fetch(`${api}/alerts`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({
      notification: `Soak ${round}: code blue in ward 7`,
      groups,
      timeout: 60,
      on_ack: 'Thank you',
      on_timeout: 'Nobody answered',
    }),
  });
  expectStatus(`round ${round}: POST alert A`, a, 200);
  const b = await fetch(`${api}/alerts`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({
      notification: `Soak ${round}: drill`,
      groups,
      name: 'drill',
      timeout: 240,
    }),
  });
  expectStatus(`round ${round}: POST alert B`, b, 200);
  const drill = ((await b.json()) as { task_id?: string }).task_id;
  await a.arrayBuffer();
  await fleet!.advanceBy(10_000);
  const cancel = await fetch(`${api}/alerts/${drill}`, { method: 'DELETE', headers: auth });
  expectStatus(`round ${round}: DELETE alert B`, cancel, 204);
  await cancel.arrayBuffer();
  await fleet!.advanceBy(ACTIVE_MS - 10_000);
  if (ROUND_MS > ACTIVE_MS) await fleet!.advanceBy(ROUND_MS - ACTIVE_MS);
}

// ---------------------------------------------------------------------------------------------
// Settings

function setting(flag: keyof typeof flags, env: string, fallback: number, max: number): number {
  const text = flags[flag];
  if (text === undefined) return readNumber(env, fallback, max);
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0 || value > max) {
    throw new Error(`--${flag} must be a number in (0, ${max}], got '${text}'`);
  }
  return value;
}

function roundLength(): number {
  const text = flags.round ?? process.env.BENCH_ROUND ?? '5m';
  const ms = parseDuration(text);
  if (ms === undefined || ms < ACTIVE_MS || ms > 365 * DAY_MS) {
    throw new Error(`--round (BENCH_ROUND) must be a duration from 5m to 365d, got '${text}'`);
  }
  return ms;
}

function warmupRounds(): number {
  if (flags.warmup !== undefined || process.env.BENCH_WARMUP) {
    const value = Math.round(setting('warmup', 'BENCH_WARMUP', 1, 1_000));
    if (value >= ROUNDS)
      throw new Error(`--warmup (${value}) must be less than --rounds (${ROUNDS})`);
    return value;
  }
  return ROUNDS - WINDOW_ROUNDS >= 3 ? WINDOW_ROUNDS : 1;
}

// ---------------------------------------------------------------------------------------------
// The stub process

async function startStubProcess(): Promise<string> {
  stopping = false;
  const args = [
    '--expose-gc',
    '--import',
    'tsx',
    '--import',
    './bench/soak-probe.ts',
    'bin/badge-sim.js',
    'stub',
    '--port',
    '0',
    '--generate',
    String(BADGES),
    '--seed',
    '1',
    '--clock',
    'virtual',
    '--quiet',
  ];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    env: { ...process.env, MALLOC_ARENA_MAX: STUB_MALLOC_ARENA_MAX },
  });
  stub = child;
  child.stderr!.on('data', (chunk: Buffer) => process.stderr.write(`[stub] ${chunk}`));
  child.once('exit', (code, signal) => {
    if (stub === child && !stopping) {
      process.stderr.write(`[stub] exited unexpectedly (${signal ?? `code ${code}`})\n`);
    }
  });
  return awaitChildLine(
    child,
    (line) => /control API\s+(http:\/\/127\.0\.0\.1:\d+)\/_stub\b/.exec(line)?.[1],
    { name: 'the stub', expected: 'control API URL', timeoutMs: START_TIMEOUT_MS },
  );
}

let asked = 0;

/** The stub's memory after a full GC, asked over IPC (bench/soak-probe.ts). */
function stubMemory(): Promise<Memory> {
  const child = stub!;
  const id = ++asked;
  return new Promise<Memory>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.off('message', listen);
      reject(new Error('the stub did not answer the memory probe within 30 s'));
    }, 30_000);
    const listen = (message: unknown) => {
      const answer = message as (Memory & { type: string; id: number; gc: boolean }) | null;
      if (answer?.type !== 'memory' || answer.id !== id) return;
      clearTimeout(timer);
      child.off('message', listen);
      if (!answer.gc) reject(new Error('the stub runs without --expose-gc'));
      const { rss, heapUsed, heapTotal, external, codeSpace, malloced } = answer;
      resolve({ rss, heapUsed, heapTotal, external, codeSpace, malloced });
    };
    child.on('message', listen);
    child.send({ type: 'memory', id });
  });
}

/** The fixtures plus one group with every device (beyond the body limit: every group). */
async function everyoneFixtures(
  url: string,
): Promise<{ groups: string[]; subscriberId: string; apiKey: string }> {
  const fixtures = (await (await fetch(`${url}${CONTROL_PREFIX}/fixtures`)).json()) as Fixtures;
  const account = fixtures.accounts[0]!;
  const groups = await putEveryoneGroup(url, fixtures);
  return { groups, subscriberId: account.subscriber_id, apiKey: account.api_keys[0]! };
}

async function connectFleet(url: string): Promise<FleetHandle> {
  const fixtures = (await (await fetch(`${url}${CONTROL_PREFIX}/fixtures`)).json()) as Fixtures;
  const ids = fixtures.accounts[0]!.devices.slice(0, BADGES).map((d) => d.id);
  const acknowledging: FixtureBehaviour = { ack: { after: '5s' } };
  const never: FixtureBehaviour = { ack: 'never' };
  const handle = await startFleet({
    stub: url,
    devices: ids,
    tts: 'estimate',
    behaviours: Object.fromEntries(ids.map((id, i) => [id, i % 2 === 0 ? acknowledging : never])),
  });
  await handle.waitUntilConnected(BADGES, CONNECT_TIMEOUT_MS);
  return handle;
}

async function closeAll(): Promise<void> {
  const closing = fleet?.close();
  fleet = undefined;
  await closing;
  if (stub) {
    stopping = true;
    await stopChild(stub);
    stub = undefined;
  }
}

function killStub(): void {
  if (stub && stub.exitCode === null && stub.signalCode === null) stub.kill('SIGKILL');
}

// ---------------------------------------------------------------------------------------------
// Measurement

/** Least-squares slope of y over x; NaN with fewer than two points. */
export function leastSquaresSlope(points: [number, number][]): number {
  const n = points.length;
  if (n < 2) return Number.NaN;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (const [x, y] of points) {
    sxy += (x - mx) * (y - my);
    sxx += (x - mx) ** 2;
  }
  return sxy / sxx;
}

// ---------------------------------------------------------------------------------------------
// Formatting

function printRound(r: Round): void {
  print(
    `| ${r.round} | ${r.round === 0 ? 'start' : formatDuration(r.round * ROUND_MS)} | ${mib(r.stub.rss)} | ` +
      `${mib(r.stub.heapUsed)} | ${mib(r.fleet.rss)} | ${mib(r.fleet.heapUsed)} | ` +
      `${(r.wallMs / 1000).toFixed(1)} s |`,
  );
  progress(
    `round ${r.round}/${ROUNDS}: stub RSS ${mib(r.stub.rss)}, heap ${mib(r.stub.heapUsed)}; ` +
      `fleet RSS ${mib(r.fleet.rss)}, heap ${mib(r.fleet.heapUsed)}`,
  );
}

function mib(bytes: number): string {
  return `${(bytes / MIB).toFixed(1)} MiB`;
}

function signedMib(bytes: number): string {
  return `${bytes >= 0 ? '+' : ''}${(bytes / MIB).toFixed(1)} MiB`;
}

function perRound(value: number): string {
  return Number.isNaN(value) ? '–' : `${value >= 0 ? '+' : ''}${value.toFixed(3)} MiB/round`;
}

function verdict(ok: boolean): string {
  return ok ? 'PASS' : 'FAIL';
}

function progress(line: string): void {
  process.stderr.write(`${line}\n`);
}

// ---------------------------------------------------------------------------------------------

// The stub never outlives this process, however it ends (short of SIGKILL).
stopOnExit(killStub);
// Bounded in time: a bench that hangs says so and stops.
setTimeout(() => {
  process.stderr.write(`bench:soak: gave up after ${TIMEOUT_MS / 1000} s (BENCH_TIMEOUT_S)\n`);
  killStub();
  process.exit(1);
}, TIMEOUT_MS).unref();

main()
  .then(() => process.exit(0))
  .catch((error: unknown) => {
    process.stderr.write(`bench:soak failed: ${error instanceof Error ? error.stack : error}\n`);
    void fleet?.close();
    killStub();
    process.exit(1);
  });
