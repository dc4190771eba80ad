/**
 * `npm run bench:soak`: does memory hold flat over a long run? Issue 28, point 5: 1,000 badges
 * and their stub over 24 h of virtual time, without a reset, hold flat memory. A stub and a
 * fleet run rounds of alerts on the virtual clock; after every round both processes are
 * measured after a full GC; the bench prints an hour a line, what each side dropped past its
 * caps, and the slope of memory per virtual hour after the warm-up, with PASS or FAIL.
 *
 *   npm run bench:soak                         1,000 badges, 24 h of 5-minute rounds (288)
 *   npm run bench:soak -- --hours 8            a shorter look (the goal still asks for 24 h)
 *   npm run bench:soak -- --reset              then a reset, beside a fresh stub (H6, H9)
 *
 * Settings (a flag wins over its variable): `--badges` / BENCH_BADGES (default 1,000),
 * `--hours` / BENCH_HOURS (virtual hours, default 24), `--warmup` / BENCH_WARMUP (virtual
 * hours left out of the slope, default 12: half the run), `--reset` (after the rounds: POST /_stub/reset with
 * the fleet connected, and a fresh stub measured the same way; figures only),
 * BENCH_TIMEOUT_S (the whole bench, default 3,600 s; 24 h of rounds take about 20 to 40
 * minutes of wall time on a loaded 2-core machine), and BENCH_STUB_ARGS (more arguments for
 * the stub, space-separated, to tell what grows: `--journal-limit 1` leaves the request
 * journal out; the goal is judged only without them).
 *
 * 1. The stub runs in a child process started with the CLI (`badge-sim stub --port 0
 *    --generate N --seed 1 --clock virtual --quiet`, on 127.0.0.1), under `node --expose-gc`
 *    with bench/soak-probe.ts preloaded: asked over IPC, it answers `process.memoryUsage()`
 *    after a full GC. (Bench only: the product has no memory endpoint.) It runs with
 *    `MALLOC_ARENA_MAX=2`, as the image runs it (H9). The fixtures get one group 'Everyone'
 *    with every device (PUT /_stub/fixtures), as in bench:fleet.
 * 2. The fleet runs here (`startFleet` on the stub's URL): even badges acknowledge 5 s after
 *    an alert first plays, odd badges never do.
 * 3. Each round, 5 virtual minutes: alert A to everyone (timeout 60 s, `on_ack`, `on_timeout`:
 *    half acknowledge, the rest time out), alert B (name `drill`, timeout 240 s) cancelled with
 *    DELETE after 10 s; the clock moves on through the fleet's `advanceBy`. About 1,000 events,
 *    5 transcript lines a device and 2 ended tasks of 1,000 recipients a round: 24 alerts an
 *    hour to every badge, a busy day.
 * 4. What each side dropped past its caps (`GET /_stub/kept`, `fleet.kept()`) says when its
 *    stores are full: with this load the stub's events (50,000 an account), ended tasks
 *    (100,000 recipients) and transcript lines (100 a device) and the fleet's clips (100 a
 *    badge) are all dropping by 5 virtual hours. The heap's objects are flat from then on; the
 *    stub's V8 old space still grows for some hours after (heap used flat, heap total up about
 *    0.5 MiB an hour, then level by about 18 h): fragments of what dies oldest first, events
 *    above all, until freed space is reused. The warm-up (12 h, half the run) is left out of
 *    the slope; the per-space sizes of the stub are printed with the growth to show it.
 * 5. Growth: the least-squares slope of heap used and RSS over the rounds after the warm-up,
 *    in MiB per virtual hour.
 *
 * The goal: flat memory, for the stub and the fleet: heap used and RSS each grow less than
 * 0.25 MiB per virtual hour after the warm-up. Why 0.25: the smallest leak worth catching, one
 * 16-byte object kept per badge per alert, grows 1,000 × 24 × 16 B = 0.37 MiB an hour at this
 * load; the noise of a slope fitted over 12 hours of rounds is far below it (heap used after a
 * full GC varies by a few tenths of a MiB round to round; the slope's standard error is then
 * about 0.01 MiB an hour for heap used, a few hundredths for RSS). Results go to stdout as Markdown, progress to stderr.
 * Exit code 0 even when the goal fails (it prints FAIL); 1 when something crashed.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { FixtureBehaviour, Fixtures } from '../fixtures/fixtures.schema.ts';
import { CONTROL_PREFIX, type StubKept } from '../protocol/control-api.schema.ts';
import { startFleet } from '../simulator/fleet.ts';
import type { FleetHandle, FleetKept } from '../simulator/fleet-options.ts';
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
import { GOALS, verdict } from './goals.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MIB = 1024 * 1024;
const HOUR_MS = 3600 * 1000;
/** A round of alerts, and what it lasts on the virtual clock. */
const ROUND_MS = 5 * 60 * 1000;
const ROUNDS_AN_HOUR = HOUR_MS / ROUND_MS;
const START_TIMEOUT_MS = 120_000;
const CONNECT_TIMEOUT_MS = 120_000;
/**
 * The stub runs as the image runs it (decision H9): glibc keeps at most 2 malloc arenas, so
 * memory freed by retention leaves RSS. `MALLOC_ARENA_MAX=` (empty) in the environment
 * measures glibc's default instead.
 */
const STUB_MALLOC_ARENA_MAX = process.env.MALLOC_ARENA_MAX ?? '2';

/** The goal (issue 28, point 5) and the tolerance of "flat" (see the header). */
const GOAL_BADGES = 1_000;
const GOAL_HOURS = 24;
const FLAT_MIB_PER_HOUR = GOALS.soakMiBPerHour;

const { values: flags } = parseArgs({
  options: {
    badges: { type: 'string' },
    hours: { type: 'string' },
    warmup: { type: 'string' },
    reset: { type: 'boolean' },
  },
  allowPositionals: false,
});

const BADGES = Math.round(setting('badges', 'BENCH_BADGES', GOAL_BADGES, 20_000));
const HOURS = Math.round(setting('hours', 'BENCH_HOURS', GOAL_HOURS, 24 * 14));
const WARMUP_HOURS = warmupHours();
const ROUNDS = HOURS * ROUNDS_AN_HOUR;
const TIMEOUT_MS = readNumber('BENCH_TIMEOUT_S', 3_600, 86_400) * 1000;
const EXTRA_STUB_ARGS = (process.env.BENCH_STUB_ARGS ?? '').split(/\s+/).filter(Boolean);

interface Memory extends ProcessMemory {
  /** The stub only: compiled code, V8's malloc'd memory, and the sizes of its young and old spaces. */
  codeSpace?: number;
  malloced?: number;
  newSpace?: number;
  oldSpace?: number;
}

interface Round {
  round: number;
  stub: Memory;
  fleet: Memory;
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
    `- badges: ${BADGES.toLocaleString('en-US')}; ${HOURS} h of virtual time in ${ROUNDS} rounds of ` +
      `5 minutes (2 alerts to every badge a round), no reset; warm-up: the first ${WARMUP_HOURS} h`,
  );
  if (EXTRA_STUB_ARGS.length > 0)
    print(
      `- the stub runs with ${EXTRA_STUB_ARGS.join(' ')} (BENCH_STUB_ARGS): not the goal's stub`,
    );
  print(
    `- the stub: a child process on the virtual clock, measured over IPC after a full GC, with ` +
      `MALLOC_ARENA_MAX=${STUB_MALLOC_ARENA_MAX || '(unset)'}; the fleet: this process` +
      `${gc ? ', after a full GC' : ' (no GC could be forced)'}; both after every round`,
  );
  const loadBefore = loadavg();

  // ---- The stub and the fleet ---------------------------------------------------------------
  progress(`starting the stub with ${BADGES} generated devices…`);
  const url = await startStubProcess();
  const { groups, subscriberId, apiKey } = await everyoneFixtures(url);
  progress(`connecting ${BADGES} badges…`);
  fleet = await connectFleet(url);
  const start: Round = { round: 0, stub: await stubMemory(), fleet: memoryAfterGc(gc) };
  print(`- stub pid ${stub!.pid}, ${url}; ${fleet.connectedCount()} badges online`);
  print();

  // ---- Rounds -------------------------------------------------------------------------------
  const api = `${url}/subscribers/${subscriberId}/api/v1`;
  const auth = { authorization: `ServiceApiKey ${apiKey}`, 'content-type': 'application/json' };
  const refusals: string[] = [];
  const expectStatus = (what: string, response: Response, status: number) => {
    if (response.status !== status) refusals.push(`${what}: ${response.status}`);
  };
  const rounds: Round[] = [start];
  /** The virtual hour each store first dropped something (full from then on). */
  const fullAt = new Map<string, number>();
  print(
    '| virtual time | stub RSS | stub heap used | fleet RSS | fleet heap used | dropped: events · ended tasks · transcript lines (stub) · clips (fleet) | wall |',
  );
  print('|---:|---:|---:|---:|---:|---|---:|');
  printHour(0, start, await stubKept(url), fleet.kept(), 0);
  let hourStarted = performance.now();
  for (let round = 1; round <= ROUNDS; round++) {
    await runRound(api, auth, groups, round, expectStatus);
    rounds.push({ round, stub: await stubMemory(), fleet: memoryAfterGc(gc) });
    if (round % ROUNDS_AN_HOUR !== 0) continue;
    const hour = round / ROUNDS_AN_HOUR;
    const kept = await stubKept(url);
    const fleetKept = fleet.kept();
    for (const [store, dropped] of droppedBy(kept, fleetKept))
      if (dropped > 0 && !fullAt.has(store)) fullAt.set(store, hour);
    printHour(hour, rounds.at(-1)!, kept, fleetKept, performance.now() - hourStarted);
    hourStarted = performance.now();
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
  const stores = [...droppedBy(await stubKept(url), fleet.kept()).keys()];
  print(
    `First dropped past its cap (full from then on): ${stores
      .map((store) => `${store} ${fullAt.has(store) ? `at ${fullAt.get(store)} h` : 'never'}`)
      .join(', ')}.`,
  );
  print();

  // ---- Growth -------------------------------------------------------------------------------
  const measured = rounds.filter((r) => r.round > WARMUP_HOURS * ROUNDS_AN_HOUR);
  const slope = (pick: (r: Round) => number) =>
    leastSquaresSlope(measured.map((r) => [r.round / ROUNDS_AN_HOUR, pick(r) / MIB]));
  const slopes = {
    'stub heap used': slope((r) => r.stub.heapUsed),
    'stub RSS': slope((r) => r.stub.rss),
    'fleet heap used': slope((r) => r.fleet.heapUsed),
    'fleet RSS': slope((r) => r.fleet.rss),
  };
  const last = rounds.at(-1)!;
  print('### Growth');
  print();
  print(
    `- slope (least squares over ${measured.length} rounds, ${WARMUP_HOURS}–${HOURS} h): ` +
      Object.entries(slopes)
        .map(([what, value]) => `${what} ${perHour(value)}`)
        .join(', '),
  );
  const stubParts = {
    'heap total': slope((r) => r.stub.heapTotal),
    'of it new space': slope((r) => r.stub.newSpace ?? 0),
    'old space': slope((r) => r.stub.oldSpace ?? 0),
    external: slope((r) => r.stub.external),
    'V8 malloc': slope((r) => r.stub.malloced ?? 0),
    'RSS − heap total − external': slope((r) => r.stub.rss - r.stub.heapTotal - r.stub.external),
  };
  print(
    `- the stub's RSS, part by part: ${Object.entries(stubParts)
      .map(([what, value]) => `${what} ${perHour(value)}`)
      .join(', ')}`,
  );
  print(
    `- from the start to the end: stub RSS ${mib(start.stub.rss)} → ${mib(last.stub.rss)}, heap used ` +
      `${mib(start.stub.heapUsed)} → ${mib(last.stub.heapUsed)}; fleet RSS ${mib(start.fleet.rss)} → ` +
      `${mib(last.fleet.rss)}, heap used ${mib(start.fleet.heapUsed)} → ${mib(last.fleet.heapUsed)}`,
  );
  print(`- load average (1 min) before/after: ${loadBefore} / ${loadavg()}`);
  print();

  if (flags.reset) await resetBesideFresh(url, last.stub);
  else await closeAll();

  // ---- The goal -----------------------------------------------------------------------------
  print('### Goal');
  print();
  const asked = BADGES === GOAL_BADGES && HOURS >= GOAL_HOURS && EXTRA_STUB_ARGS.length === 0;
  const flat = Object.values(slopes).every((value) => value < FLAT_MIB_PER_HOUR);
  print(
    `- ${GOAL_BADGES.toLocaleString('en-US')} badges over ${GOAL_HOURS} h of virtual time, fleet and stub, ` +
      `without a reset, hold flat memory (heap used and RSS each under ${FLAT_MIB_PER_HOUR} MiB per ` +
      `virtual hour after the warm-up): ${Object.entries(slopes)
        .map(([what, value]) => `${what} ${perHour(value)}`)
        .join(', ')}` +
      `${asked ? '' : ` (this run: ${BADGES} badges over ${HOURS} h${EXTRA_STUB_ARGS.length > 0 ? `, the stub with ${EXTRA_STUB_ARGS.join(' ')}` : ''}, not what the goal asks)`} ` +
      verdict(asked && flat && refusals.length === 0),
  );
}

/** Each store's dropped count, by name: the stub's (GET /_stub/kept) and the fleet's clips. */
function droppedBy(kept: StubKept, fleetKept: FleetKept): Map<string, number> {
  return new Map([
    ['stub events', kept.events.dropped],
    ['stub ended tasks', kept.ended_tasks.dropped],
    ['stub transcript lines', kept.transcript_lines.dropped],
    ['fleet clips', fleetKept.heard.dropped],
  ]);
}

/**
 * After the rounds: POST /_stub/reset with the fleet connected, the stub measured; then a
 * fresh stub with the same fixtures and a fresh fleet measured the same way (H6, H9). Figures
 * only: issue 28 sets no goal for it here.
 */
async function resetBesideFresh(url: string, beforeReset: Memory): Promise<void> {
  const reset = await fetch(`${url}${CONTROL_PREFIX}/reset`, { method: 'POST' });
  await reset.arrayBuffer();
  const afterReset = await stubMemory();
  progress('closing the fleet and stopping the stub; starting a fresh one…');
  await closeAll();
  const freshUrl = await startStubProcess();
  await everyoneFixtures(freshUrl);
  fleet = await connectFleet(freshUrl);
  const fresh = await stubMemory();
  await closeAll();
  print('### Reset');
  print();
  print(
    `- stub before the reset: RSS ${mib(beforeReset.rss)}, heap used ${mib(beforeReset.heapUsed)}; ` +
      `after POST /_stub/reset (${reset.status}, ${BADGES} badges still connected): RSS ` +
      `${mib(afterReset.rss)}, heap used ${mib(afterReset.heapUsed)}; a fresh stub, same fixtures, ` +
      `${BADGES} badges connected: RSS ${mib(fresh.rss)}, heap used ${mib(fresh.heapUsed)}; after ` +
      `reset ÷ fresh: RSS ${(afterReset.rss / fresh.rss).toFixed(3)}, heap used ` +
      `${(afterReset.heapUsed / fresh.heapUsed).toFixed(3)}`,
  );
  print();
}

/**
 * One round: alert A to everyone (half acknowledge, the rest time out), alert B cancelled
 * after 10 s, to the round's end (5 minutes).
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
  await fleet!.advanceBy(ROUND_MS - 10_000);
}

// ---------------------------------------------------------------------------------------------
// Settings

function setting(flag: 'badges' | 'hours' | 'warmup', env: string, fallback: number, max: number) {
  const text = flags[flag];
  if (text === undefined) return readNumber(env, fallback, max);
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0 || value > max) {
    throw new Error(`--${flag} must be a number in (0, ${max}], got '${text}'`);
  }
  return value;
}

function warmupHours(): number {
  const value = Math.round(
    setting('warmup', 'BENCH_WARMUP', Math.min(12, Math.floor(HOURS / 2)), 24 * 14),
  );
  if (value >= HOURS - 1)
    throw new Error(`--warmup (${value} h) must leave at least 2 hours of the ${HOURS} to measure`);
  return value;
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
    ...EXTRA_STUB_ARGS,
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
      const { rss, heapUsed, heapTotal, external, codeSpace, malloced, newSpace, oldSpace } =
        answer;
      resolve({ rss, heapUsed, heapTotal, external, codeSpace, malloced, newSpace, oldSpace });
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

function printHour(
  hour: number,
  r: Round,
  kept: StubKept,
  fleetKept: FleetKept,
  wallMs: number,
): void {
  const dropped = [...droppedBy(kept, fleetKept).values()].map((n) => n.toLocaleString('en-US'));
  print(
    `| ${hour} h | ${mib(r.stub.rss)} | ${mib(r.stub.heapUsed)} | ${mib(r.fleet.rss)} | ` +
      `${mib(r.fleet.heapUsed)} | ${dropped.join(' · ')} | ${(wallMs / 1000).toFixed(0)} s |`,
  );
  progress(
    `${hour}/${HOURS} h: stub RSS ${mib(r.stub.rss)}, heap ${mib(r.stub.heapUsed)} (total ` +
      `${mib(r.stub.heapTotal)}: new ${mib(r.stub.newSpace ?? 0)}, old ${mib(r.stub.oldSpace ?? 0)}); ` +
      `fleet RSS ${mib(r.fleet.rss)}, heap ${mib(r.fleet.heapUsed)}`,
  );
}

/** What the stub keeps and dropped past its caps. */
async function stubKept(url: string): Promise<StubKept> {
  return (await (await fetch(`${url}${CONTROL_PREFIX}/kept`)).json()) as StubKept;
}

function mib(bytes: number): string {
  return `${(bytes / MIB).toFixed(1)} MiB`;
}

function perHour(value: number): string {
  return Number.isNaN(value) ? '–' : `${value >= 0 ? '+' : ''}${value.toFixed(3)} MiB/h`;
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
