/**
 * One size of `npm run bench:fleet` (bench/fleet.bench.ts runs this once per size, each in a
 * fresh process): how many virtual badges one stub takes, how fast an alert reaches all of
 * them, and what a badge costs the simulator and the stub in memory and CPU. Alone:
 *
 *   npm run build && BENCH_BADGES=2000 BENCH_WORKERS=2 node --expose-gc --import tsx bench/fleet-run.ts
 *
 * BENCH_WORKERS > 0 runs the badges in that many worker threads (`startFleet({ workers })`);
 * 0 (the default) in this thread. The last line of stdout is `RESULT {json}` for the table.
 *
 * The stub runs in a child process, started with the CLI exactly as a user would
 * (`badge-sim stub --port 0 --generate N --seed 1 --clock real --quiet`, listening on
 * 127.0.0.1); the fleet of N badges (BENCH_BADGES, default 10000) runs here, so stub and
 * badges never share an event loop (on a 2-core machine: one core each). BENCH_STUB_NODE_ARGS
 * (space-separated) go to the stub's node, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to
 * profile it (NODE_OPTIONS refuses --cpu-prof); BENCH_PROFILE=dir profiles this process over the
 * alert (see startProfile).
 *
 * 1. Fixtures: GET /_stub/fixtures gives the account (subscriber id, API key, devices); the
 *    same document plus one group 'Everyone' holding every device goes back with
 *    PUT /_stub/fixtures (which also resets), so one alert reaches all badges (beyond the
 *    stub's 1 MiB body limit, about 11,000 devices, the alert names every generated group).
 * 2. Connect: `startFleet({ stub: url, count: N, tts: 'estimate' })`, then
 *    `waitUntilConnected` (bounded by BENCH_CONNECT_TIMEOUT_S, default 120 s); a sampler
 *    (every 50 ms, bounded by the same deadline) notes when 50 %, 90 %, 99 % and 100 % are
 *    online and writes a progress line to stderr every 0.5 s.
 * 3. Alert: an `onAlertPlay` listener on every badge keeps the `performance.now()` of its
 *    first play; one `POST /subscribers/{id}/api/v1/alerts` to 'Everyone' (timeout 60 s),
 *    timed from just before the request; waits (at most 30 s) until every badge has played.
 * 4. Memory of this process (RSS, heap used), after a full GC, before the fleet is created
 *    and once every badge is online; the stub's RSS from /proc/<pid>/status. Settled: both
 *    processes sit idle up to BENCH_SETTLE_S seconds (default 90; 0 skips it; see settle), RSS
 *    sampled every second, before the fleet and after the alert (cancelled first); the lowest
 *    is the figure the memory goals are judged on. Idling before the alert instead would
 *    chill it: V8 drops compiled code and shrinks its heaps meanwhile.
 * The fleet and the stub run from dist/ (`npm run build`), as the installed package does.
 *
 * Results go to stdout as Markdown; progress goes to stderr. Exit code 0 even when a goal
 * fails (it prints FAIL); non-zero only when something crashed or the stub did not start.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { clearLine, createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Fixtures } from '../fixtures/fixtures.schema.ts';
import { CONTROL_PREFIX } from '../protocol/control-api.schema.ts';
import type { FleetActivity } from '../simulator/fleet-activity.ts';
import type { FleetHandle } from '../simulator/fleet-options.ts';
import type { WorkerFleetHandle } from '../simulator/fleet-workers.ts';
import {
  awaitChildLine,
  environmentLines,
  exposeGc,
  loadavg,
  memoryAfterGc,
  percentile,
  putEveryoneGroup,
  readNumber,
  stopChild,
  stopOnExit,
} from './bench-support.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * The fleet and the stub run from the compiled package (dist/), as the installed package and the
 * image run them: through tsx, every closure of the sources carries its own `name` (esbuild's
 * keepNames), about 3 KB per badge that no user pays. `npm run bench:fleet` builds it first.
 */
const DIST = new URL('../dist/', import.meta.url);
if (!existsSync(new URL('simulator/fleet.js', DIST))) {
  process.stderr.write(
    'bench:fleet measures the compiled package, and dist/ has none: run `npm run build` first ' +
      '(`npm run bench:fleet` does)\n',
  );
  process.exit(2);
}
const { startFleet } = (await import(
  new URL('simulator/fleet.js', DIST).href
)) as typeof import('../simulator/fleet.ts');
const { FleetActivity: Activity } = (await import(
  new URL('simulator/fleet-activity.js', DIST).href
)) as typeof import('../simulator/fleet-activity.ts');

const BADGES = Math.round(readNumber('BENCH_BADGES', 10_000, 100_000));
const WORKERS = Number(process.env.BENCH_WORKERS ?? 0);
const CONNECT_TIMEOUT_MS = readNumber('BENCH_CONNECT_TIMEOUT_S', 120, 600) * 1000;
/**
 * How long both processes sit idle, before the fleet and once it is online, for their settled
 * memory. Right after the connects, much of the RSS is heap V8 has committed for the handshakes'
 * garbage and not yet handed back; its memory reducer does that after some seconds idle (about 20
 * here, 55 s after a burst of plays). The goals are judged on the settled figures; both are
 * printed. 0: not measured.
 */
const SETTLE_S =
  process.env.BENCH_SETTLE_S === '0' ? 0 : Math.round(readNumber('BENCH_SETTLE_S', 90, 600));
const SETTLE_DROP = 0.9;
const SETTLE_QUIET_S = 5;
/** How long the alert may take to reach every badge before the bench stops waiting. */
const PLAY_WAIT_MS = 30_000;
/** How long the stub may take to print its banner (generating 10,000 devices takes a few s). */
const START_TIMEOUT_MS = 120_000;
const SAMPLE_MS = 50;
const PROGRESS_EVERY = 10; // samples: a progress line every 0.5 s
/** Off a terminal, an unchanged count is written again only this often (samples: 10 s). */
const QUIET_EVERY = 200;

/** The goals (issue 17): the POST answers at once, every badge plays soon, memory per badge. */
const POST_GOAL_MS = 20;
const PLAY_GOAL_MS = BADGES > 10_000 ? 1500 : 300;
const FLEET_MEMORY_GOAL_KB = 12;
const STUB_MEMORY_GOAL_KB = 8;

let stub: ChildProcess | undefined;
let fleet: FleetHandle | WorkerFleetHandle | undefined;
/** What the badges of a fleet in this thread did (a worker fleet keeps its own). */
let activity: FleetActivity | undefined;

const gc = exposeGc();

async function main(): Promise<void> {
  const print = (line = '') => process.stdout.write(`${line}\n`);

  print('## bench:fleet');
  print();
  print(environmentLines(['ws', 'xstate', 'fastify'], true));
  print(
    `- badges: ${BADGES.toLocaleString('en')} (BENCH_BADGES), ${WORKERS === 0 ? 'all in this thread' : `in ${WORKERS} worker threads of this process (BENCH_WORKERS)`}; the stub in a child process`,
  );
  print(`- tree: ${treeState()}`);
  const loadBefore = loadavg();

  // ---- The stub, in a child process -------------------------------------------------------
  progress(`starting the stub with ${BADGES} generated devices…`);
  const started = await startStubProcess(BADGES);
  const { url, startMs } = started;
  const stubPid = stub!.pid!;
  print(`- stub: pid ${stubPid}, ${url}, ready in ${(startMs / 1000).toFixed(1)} s`);
  print();

  // ---- Fixtures: one group with every device -----------------------------------------------
  const fixtures = await getJson<Fixtures>(`${url}${CONTROL_PREFIX}/fixtures`);
  const account = fixtures.accounts[0]!;
  const subscriberId = account.subscriber_id;
  const apiKey = account.api_keys[0]!;
  const deviceCount = account.devices.length;
  if (deviceCount < BADGES) {
    throw new Error(
      `the stub has ${deviceCount} devices in account ${subscriberId}, not ${BADGES}`,
    );
  }
  const groups = await putEveryoneGroup(url, fixtures);
  const alert = { notification: 'Fleet bench', groups, timeout: 60 };
  const target = groups.map((g) => `'${g}'`).join(', ');
  progress(`fixtures: account ${subscriberId}, alert to ${target}: ${deviceCount} devices`);

  // ---- Connect ------------------------------------------------------------------------------
  const stubRssIdle = procRssKb(stubPid);
  const before = memoryAfterGc(gc);
  const beforeSettled = await settle('before the fleet', stubPid);
  const stubCpu0 = procCpuMs(stubPid);
  const tcp0 = tcpCounters();
  const selfCpu0 = process.cpuUsage();
  const t0 = performance.now();
  if (WORKERS > 0) fleet = await startFleet({ stub: url, count: BADGES, workers: WORKERS });
  else {
    fleet = await startFleet({ stub: url, count: BADGES, tts: 'estimate' });
    activity = new Activity(fleet.badges);
  }
  const created = performance.now() - t0;
  const connect = await waitForConnections(fleet, t0);
  const connectWall = performance.now() - t0;
  const connectSelfCpu = cpuMs(process.cpuUsage(selfCpu0));
  const connectStubCpu = procCpuMs(stubPid) - stubCpu0;
  const tcp = tcpDelta(tcp0, tcpCounters());
  const connected = fleet.connectedCount();
  const after = memoryAfterGc(gc);
  const stubRssConnected = procRssKb(stubPid);

  print(`### Connect: ${BADGES.toLocaleString('en-US')} badges, one stub`);
  print();
  print(
    `- online: ${connected.toLocaleString('en-US')} of ${BADGES.toLocaleString('en-US')}` +
      (connect.allAt !== undefined
        ? ` — all online ${seconds(connect.allAt)} after \`startFleet\` was called`
        : ` after ${seconds(CONNECT_TIMEOUT_MS)} (gave up: ${connect.error ?? 'timeout'})`),
  );
  print(
    `- \`startFleet\` resolved after ${ms(created)} (fixtures fetched, badges created, ` +
      `connects started); \`waitUntilConnected\` resolved after ${seconds(connect.waitedAt)}`,
  );
  print(
    `- online over time: ${connect.milestones.map(([p, t]) => `${p} % at ${seconds(t)}`).join(', ') || 'none'}`,
  );
  print(
    `- CPU while connecting (${seconds(connectWall)} wall): fleet process ${seconds(connectSelfCpu)} ` +
      `(${share(connectSelfCpu / connectWall)} of a core), stub ${seconds(connectStubCpu)} ` +
      `(${share(connectStubCpu / connectWall)}); per badge: fleet ${perBadgeUs(connectSelfCpu)}, ` +
      `stub ${perBadgeUs(connectStubCpu)}`,
  );
  print(`- TCP while connecting (whole machine, /proc/net/netstat): ${tcp ?? 'not available'}`);
  const errors = await errorSummary(fleet);
  print(`- badges that got an error frame or an unreadable frame: ${errors || 'none'}`);
  print();

  // ---- One alert to every badge -------------------------------------------------------------
  const online = fleet.connectedCount();
  progress(`alert: POST alerts to ${target} (${BADGES} devices, ${online} online)…`);
  const stubCpu1 = procCpuMs(stubPid);
  const selfCpu1 = process.cpuUsage();
  const profiler = await startProfile();
  const tPost = performance.now();
  const tPostEpoch = performance.timeOrigin + tPost;
  const response = await fetch(`${url}/subscribers/${subscriberId}/api/v1/alerts`, {
    method: 'POST',
    headers: { authorization: `ServiceApiKey ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(alert),
  });
  const answer = await response.text();
  const tAnswer = performance.now();
  const taskId = (JSON.parse(answer) as { task_id?: string }).task_id ?? '';
  const running = fleet;
  const firstPlays = async (): Promise<number[]> =>
    'firstPlays' in running ? running.firstPlays(taskId) : activity!.firstPlays(taskId);
  // Only badges online can hear it: the wait ends when they all have (the verdict still
  // counts every badge of the fleet). Polled every 50 ms, bounded by PLAY_WAIT_MS.
  let waiting = true;
  const everyonePlayed = (async () => {
    while (waiting && (await firstPlays()).length < online)
      await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS));
  })();
  let guard: NodeJS.Timeout | undefined;
  await Promise.race([
    everyonePlayed,
    new Promise<void>((resolve) => {
      guard = setTimeout(resolve, PLAY_WAIT_MS);
    }),
  ]);
  clearTimeout(guard);
  waiting = false;
  const tDone = performance.now();
  const profile = await profiler?.stop();
  const alertSelfCpu = cpuMs(process.cpuUsage(selfCpu1));
  const alertStubCpu = procCpuMs(stubPid) - stubCpu1;
  const stubRssAlert = procRssKb(stubPid);
  // The stub's own record of when it wrote each play (its clock runs in real time): the span
  // from the first device of the group to the last is how long its delivery loop took.
  const firstId = account.devices[0]!.id;
  const lastId = account.devices[BADGES - 1]!.id;
  const stubSpan = await deliverySpan(url, firstId, lastId);

  // The stub's own record of the POST (its request journal): arrival to the end of its answer,
  // free of this process's event loop, which is busy with the badges' plays as the answer comes.
  const stubPostMs = await journalDuration(url);
  const latencies = (await firstPlays()).map((t) => t - tPostEpoch).sort((a, b) => a - b);
  const played = latencies.length;
  const p50 = percentile(latencies, 50);
  const p99 = percentile(latencies, 99);
  const max = latencies.at(-1) ?? Number.NaN;
  const within = latencies.filter((l) => l <= PLAY_GOAL_MS).length;

  print(`### Alert: one POST to ${BADGES.toLocaleString('en-US')} badges`);
  print();
  print(
    `- \`POST /subscribers/${subscriberId}/api/v1/alerts ${JSON.stringify(alert)}\` answered ` +
      `${response.status} in ${ms(tAnswer - tPost)} here, ${ms(stubPostMs)} in the stub (its journal: arrival to the end of its answer): ${answer.slice(0, 120)}`,
  );
  print(
    `- played: ${played.toLocaleString('en-US')} of ${BADGES.toLocaleString('en-US')}` +
      (played < BADGES ? ` (stopped waiting after ${seconds(tDone - tPost)})` : '') +
      `; within ${PLAY_GOAL_MS} ms: ${within.toLocaleString('en-US')}`,
  );
  print(
    `- first play after the POST: p50 ${ms(p50)}, p99 ${ms(p99)}, max ${ms(max)} ` +
      `(min ${ms(latencies[0] ?? Number.NaN)})`,
  );
  print(
    `- CPU from the POST to the last play (${seconds(tDone - tPost)} wall): fleet process ` +
      `${seconds(alertSelfCpu)} (${share(alertSelfCpu / (tDone - tPost))}), stub ` +
      `${seconds(alertStubCpu)} (${share(alertStubCpu / (tDone - tPost))}); per badge: fleet ` +
      `${perBadgeUs(alertSelfCpu)}, stub ${perBadgeUs(alertStubCpu)}`,
  );
  if (profile) print(`- CPU profile of this process from the POST to the last play: ${profile}`);
  print(
    `- the stub's transcripts: it recorded the play on the account's first device and on its ` +
      `last ${stubSpan === undefined ? '(not available)' : `${ms(stubSpan)} apart`} ` +
      '(its delivery loop, after the POST has answered: decision D14)',
  );
  print();

  // ---- Settled memory: after the alert (idling first would chill the fan-out), cancelled so
  // that no repeat keeps the badges busy while V8 is left to hand memory back.
  if (SETTLE_S > 0) {
    const cancel = await fetch(
      `${url}/subscribers/${subscriberId}/api/v1/alerts/${encodeURIComponent(taskId)}`,
      { method: 'DELETE', headers: { authorization: `ServiceApiKey ${apiKey}` } },
    );
    await cancel.arrayBuffer();
    if (!cancel.ok) progress(`DELETE of the bench's alert answered ${cancel.status}`);
  }
  const afterSettled = await settle('the fleet online, its alert cancelled', stubPid);

  // ---- Memory -------------------------------------------------------------------------------
  const perBadge = (d: number) => d / 1024 / BADGES;
  const rssDelta = after.rss - before.rss;
  const heapDelta = after.heapUsed - before.heapUsed;
  const extDelta = after.external - before.external;
  const fleetKbConnected = perBadge(rssDelta);
  const stubKbConnected = (stubRssConnected - stubRssIdle) / Math.max(1, connected);
  const settled = beforeSettled && afterSettled;
  const fleetKb = settled
    ? perBadge(afterSettled.fleetRss - beforeSettled.fleetRss)
    : fleetKbConnected;
  const stubKb = settled
    ? (afterSettled.stubRssKb - beforeSettled.stubRssKb) / Math.max(1, connected)
    : stubKbConnected;
  const memoryWhen = settled ? 'settled RSS' : 'RSS just after connecting';
  print('### Memory');
  print();
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
  for (const line of memoryTable([
    ['RSS', before.rss, after.rss],
    ...(settled
      ? [
          ['RSS, settled', beforeSettled.fleetRss, afterSettled.fleetRss] as [
            string,
            number,
            number,
          ],
        ]
      : []),
    ['heap used', before.heapUsed, after.heapUsed],
    ['heap total', before.heapTotal, after.heapTotal],
    ['external (incl. array buffers)', before.external, after.external],
  ])) {
    print(line);
  }
  print();
  if (settled) {
    print(
      `Settled: the lowest RSS while both processes sat idle (at most ${SETTLE_S} s, ` +
        `BENCH_SETTLE_S): before the fleet ${beforeSettled.waitedS} s, lowest ${beforeSettled.fleetAtS} s in; ` +
        `with the fleet online, its alert cancelled, ${afterSettled.waitedS} s, lowest ` +
        `${afterSettled.fleetAtS} s in. A wait that ran its whole length may have ended before ` +
        'V8 handed memory back: a larger BENCH_SETTLE_S tells.',
    );
    print();
  }
  print(
    `Stub process (pid ${stubPid}, VmRSS): ${mb(stubRssIdle * 1024)} with the fixtures loaded, ` +
      `${mb(stubRssConnected * 1024)} with ${connected.toLocaleString('en-US')} badges online ` +
      `(${kb(((stubRssConnected - stubRssIdle) * 1024) / Math.max(1, connected))} per badge), ` +
      `${mb(stubRssAlert * 1024)} after the alert.` +
      (settled
        ? ` Settled (lowest over the same waits, reached ${beforeSettled.stubAtS} s and ` +
          `${afterSettled.stubAtS} s in): ${mb(beforeSettled.stubRssKb * 1024)} before the ` +
          `fleet, ${mb(afterSettled.stubRssKb * 1024)} with it online ` +
          `(${kb(stubKb * 1024)} per badge).`
        : ''),
  );
  print();

  // ---- Goals --------------------------------------------------------------------------------
  const postMs = stubPostMs;
  const postSeenMs = tAnswer - tPost;
  print(`Load average (1 min) before/after the bench: ${loadBefore} / ${loadavg()}.`);
  print();
  print('### Goals');
  print();
  print(
    `- the POST answers within ${POST_GOAL_MS} ms: ${ms(postMs)} in the stub (${ms(postSeenMs)} seen here) **${verdict(response.ok && postMs <= POST_GOAL_MS)}**`,
  );
  print(
    `- every badge plays within ${PLAY_GOAL_MS} ms of the POST (p99): p99 ${ms(p99)}, max ${ms(max)}, ` +
      `${played.toLocaleString('en-US')}/${BADGES.toLocaleString('en-US')} played ` +
      `**${verdict(played === BADGES && p99 <= PLAY_GOAL_MS)}**`,
  );
  print(
    `- at most ${FLEET_MEMORY_GOAL_KB} KB of simulator memory per badge: ${memoryWhen} ` +
      `${kb(fleetKb * 1024)} per badge (just after connecting ${kb(fleetKbConnected * 1024)}; ` +
      `heap used of this thread ${kb(perBadge(heapDelta) * 1024)}, ` +
      `external ${kb(perBadge(extDelta) * 1024)}) **${verdict(fleetKb <= FLEET_MEMORY_GOAL_KB)}**`,
  );
  print(
    `- at most ${STUB_MEMORY_GOAL_KB} KB of stub memory per connected badge: ${memoryWhen} ` +
      `${kb(stubKb * 1024)} (just after connecting ${kb(stubKbConnected * 1024)}) ` +
      `**${verdict(stubKb <= STUB_MEMORY_GOAL_KB)}**`,
  );
  const result = {
    badges: BADGES,
    workers: WORKERS,
    connected,
    connectS: (connect.allAt ?? Number.NaN) / 1000,
    postMs,
    postSeenMs,
    played,
    p50,
    p99,
    max,
    fleetKb,
    fleetKbConnected,
    fleetHeapKb: WORKERS === 0 ? perBadge(heapDelta) : Number.NaN,
    stubKb,
    stubKbConnected,
    fleetCpuUs: ((connectSelfCpu + alertSelfCpu) * 1000) / BADGES,
    stubCpuUs: ((connectStubCpu + alertStubCpu) * 1000) / BADGES,
  };
  print();
  print(`RESULT ${JSON.stringify(result)}`);

  await cleanUp();
}

// ---------------------------------------------------------------------------------------------
// The stub process

async function startStubProcess(count: number): Promise<{ url: string; startMs: number }> {
  const t0 = performance.now();
  const nodeArgs = (process.env.BENCH_STUB_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const args = [
    ...nodeArgs,
    '--enable-source-maps',
    fileURLToPath(new URL('cli/badge-sim.js', DIST)),
    'stub',
    '--port',
    '0',
    '--generate',
    String(count),
  ];
  args.push('--seed', '1', '--clock', 'real', '--quiet');
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  stub = child;
  createInterface({ input: child.stderr! }).on('line', (line) =>
    process.stderr.write(`[stub] ${line}\n`),
  );
  child.once('exit', (code, signal) => {
    if (stub === child && !stopping) {
      process.stderr.write(`[stub] exited unexpectedly (${signal ?? `code ${code}`})\n`);
    }
  });
  // The stub keeps writing to stdout (a stop message at most); the reader drains it.
  const url = await awaitChildLine(
    child,
    (line) => /control API\s+(http:\/\/127\.0\.0\.1:\d+)\/_stub\b/.exec(line)?.[1],
    { name: 'the stub', expected: 'control API URL', timeoutMs: START_TIMEOUT_MS },
  );
  return { url, startMs: performance.now() - t0 };
}

let stopping = false;

/** SIGTERM (the stub closes its connections and exits), then SIGKILL after 5 s. */
async function stopStub(): Promise<void> {
  if (!stub) return;
  stopping = true;
  await stopChild(stub);
}

function killStub(): void {
  if (stub && stub.exitCode === null && stub.signalCode === null) stub.kill('SIGKILL');
}

async function cleanUp(): Promise<void> {
  progress('cleaning up: closing the fleet, stopping the stub…');
  activity?.stop();
  const closing = fleet?.close();
  fleet = undefined;
  await closing;
  await stopStub();
}

// ---------------------------------------------------------------------------------------------
// Connecting

interface ConnectResult {
  /** ms after t0 when the sampler first saw every badge online. */
  allAt: number | undefined;
  /** ms after t0 when `waitUntilConnected` resolved or gave up. */
  waitedAt: number;
  milestones: [number, number][];
  error?: string;
}

/** `waitUntilConnected`, with a sampler beside it for milestones and the progress line. */
async function waitForConnections(
  handle: FleetHandle | WorkerFleetHandle,
  t0: number,
): Promise<ConnectResult> {
  const total = BADGES;
  const marks = [50, 90, 99, 100];
  const milestones: [number, number][] = [];
  let samples = 0;
  let allAt: number | undefined;
  let shown = -1;
  const sample = () => {
    const online = handle.connectedCount();
    const at = performance.now() - t0;
    while (marks.length > 0 && online >= Math.ceil((marks[0]! / 100) * total)) {
      milestones.push([marks.shift()!, at]);
    }
    if (online === total && allAt === undefined) allAt = at;
    const due = samples % PROGRESS_EVERY === 0;
    const changed = online !== shown || process.stderr.isTTY || samples % QUIET_EVERY === 0;
    samples++;
    if ((due && changed) || (online === total && online !== shown)) {
      shown = online;
      progressLine(`connected ${online}/${total} after ${seconds(at)}`);
    }
  };
  // Bounded: cleared when the wait ends, and the wait itself is bounded by CONNECT_TIMEOUT_MS.
  const sampler = setInterval(sample, SAMPLE_MS);
  let error: string | undefined;
  try {
    await handle.waitUntilConnected(total, CONNECT_TIMEOUT_MS);
  } catch (e) {
    error = e instanceof Error ? e.message : String(e);
  } finally {
    clearInterval(sampler);
  }
  const waitedAt = performance.now() - t0;
  sample();
  progressEnd();
  if (error) progress(`waitUntilConnected: ${error}`);
  return { allAt, waitedAt, milestones, error };
}

/**
 * BENCH_PROFILE=dir: a CPU profile of this process (its main thread) from just before the POST
 * to the last play, written to dir as fleet-alert-<badges>.cpuprofile (open it in Chrome's
 * DevTools or speedscope). The stub's own: BENCH_STUB_NODE_ARGS='--cpu-prof --cpu-prof-dir=dir'.
 */
async function startProfile(): Promise<{ stop(): Promise<string> } | undefined> {
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
      const file = join(dir, `fleet-alert-${BADGES}.cpuprofile`);
      writeFileSync(file, JSON.stringify(profile));
      return file;
    },
  };
}

interface SettledMemory {
  /** The lowest RSS of this process over the wait, in bytes, and when it was reached (s in). */
  fleetRss: number;
  fleetAtS: number;
  /** The lowest VmRSS of the stub over the wait, in KB, and when it was reached. */
  stubRssKb: number;
  stubAtS: number;
  /** How long the wait lasted (s): SETTLE_S, or less once both had handed memory back. */
  waitedS: number;
}

/**
 * Both processes idle, RSS sampled each second, for SETTLE_S seconds or until both have handed
 * back at least a tenth of their RSS and then held still SETTLE_QUIET_S seconds: the lowest of
 * each, once V8's memory reducer has returned what the last burst of work left committed. When
 * it does that varies (15 s to 55 s here), hence the long default and the early end.
 */
async function settle(what: string, stubPid: number): Promise<SettledMemory | undefined> {
  if (SETTLE_S === 0) return undefined;
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
  while (second < SETTLE_S) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    second++;
    const fleetRss = process.memoryUsage.rss();
    const stubRssKb = procRssKb(stubPid);
    if (fleetRss < low.fleetRss || stubRssKb < low.stubRssKb) quietSince = second;
    if (fleetRss < low.fleetRss) Object.assign(low, { fleetRss, fleetAtS: second });
    if (stubRssKb < low.stubRssKb) Object.assign(low, { stubRssKb, stubAtS: second });
    if (second % 5 === 0 || process.stderr.isTTY) {
      progressLine(
        `settling (${what}): ${second}/${SETTLE_S} s idle, RSS fleet ${mb(fleetRss)} ` +
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

/** How long the stub took over its latest POST alerts, by its request journal. */
async function journalDuration(url: string): Promise<number> {
  try {
    const page = await getJson<{ entries: { method: string; duration_ms: number }[] }>(
      `${url}${CONTROL_PREFIX}/journal?method=POST&path=${encodeURIComponent('/subscribers/*/api/v1/alerts')}`,
    );
    return page.entries.at(-1)?.duration_ms ?? Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** How many error frames the badges got, and the first of them. */
async function errorSummary(handle: FleetHandle | WorkerFleetHandle): Promise<string> {
  if ('refresh' in handle) await handle.refresh();
  const counts = 'refresh' in handle ? handle.activity() : activity!.counts();
  return counts.errors === 0 ? '' : `${counts.errors} (first: ${counts.firstError})`;
}

// ---------------------------------------------------------------------------------------------
// Measurement helpers

/** VmRSS of a process in KB, from /proc; NaN where there is no /proc. */
function procRssKb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return match ? Number(match[1]) : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** CPU time (ms) a process has used so far, from /proc; NaN where there is no /proc. */
function procCpuMs(pid: number): number {
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
async function deliverySpan(url: string, first: string, last: string): Promise<number | undefined> {
  const playAt = async (id: string) => {
    const entries = await getJson<{ at: string; type: string }[]>(
      `${url}${CONTROL_PREFIX}/devices/${id}/transcript`,
    );
    const play = entries.find((e) => e.type === 'play');
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
function tcpCounters(): Map<string, number> | undefined {
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

function tcpDelta(
  before: Map<string, number> | undefined,
  after: Map<string, number> | undefined,
): string | undefined {
  if (!before || !after) return undefined;
  return TCP_COUNTERS.map(
    (name) => `${name} +${(after.get(name) ?? 0) - (before.get(name) ?? 0)}`,
  ).join(', ');
}

function perBadgeUs(cpu: number): string {
  return Number.isNaN(cpu) ? '–' : `${Math.round((cpu * 1000) / BADGES)} µs`;
}

function cpuMs(usage: NodeJS.CpuUsage): number {
  return (usage.user + usage.system) / 1000;
}

async function getJson<T>(url: string): Promise<T> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`GET ${url} answered ${response.status}`);
  return (await response.json()) as T;
}

// ---------------------------------------------------------------------------------------------
// Formatting

function memoryTable(rows: [string, number, number][]): string[] {
  const header = ['', 'before', 'all online', 'delta', `per badge (÷ ${BADGES})`];
  const body = rows.map(([label, b, a]) => [label, mb(b), mb(a), mb(a - b), kb((a - b) / BADGES)]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((c) => c[i]!.length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (i > 0 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (i > 0 ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`;
  return [line(header), rule, ...body.map(line)];
}

function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`;
}

function ms(value: number): string {
  return Number.isNaN(value) ? '–' : `${value.toFixed(1)} ms`;
}

function seconds(value: number): string {
  return Number.isNaN(value) ? '–' : `${(value / 1000).toFixed(2)} s`;
}

function share(fraction: number): string {
  return Number.isNaN(fraction) ? '–' : `${Math.round(fraction * 100)} %`;
}

function verdict(ok: boolean): string {
  return ok ? 'PASS' : 'FAIL';
}

function progress(line: string): void {
  progressEnd();
  process.stderr.write(`${line}\n`);
}

let lineOpen = false;

/** A line that rewrites itself on a terminal; one line per update elsewhere. */
function progressLine(line: string): void {
  if (process.stderr.isTTY) {
    process.stderr.write(`\r${line}`);
    clearLine(process.stderr, 1);
    lineOpen = true;
  } else {
    process.stderr.write(`${line}\n`);
  }
}

function progressEnd(): void {
  if (lineOpen) process.stderr.write('\n');
  lineOpen = false;
}

/** The commit, and how many files differ from it (the bench measures the working tree). */
function treeState(): string {
  try {
    const git = (...args: string[]) =>
      execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', timeout: 5000 }).trim();
    const changed = git('status', '--porcelain').split('\n').filter(Boolean).length;
    return `git ${git('rev-parse', '--short', 'HEAD')}${changed ? ` + ${changed} changed/untracked files` : ''}`;
  } catch {
    return 'not a git checkout';
  }
}

// ---------------------------------------------------------------------------------------------

// The stub never outlives this process, however it ends (short of SIGKILL).
stopOnExit(killStub, progressEnd);

main()
  .then(() => {
    // Sockets of the closed fleet may still be finishing their close handshakes: do not wait.
    process.exit(0);
  })
  .catch((error: unknown) => {
    progressEnd();
    process.stderr.write(`bench:fleet failed: ${error instanceof Error ? error.stack : error}\n`);
    void fleet?.close();
    killStub();
    process.exit(1);
  });
