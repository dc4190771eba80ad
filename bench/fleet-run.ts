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
 *    Twice, the first cancelled and 2 s of rest between: the goals judge the better of the two
 *    alerts, as the floors are the better of two rounds (the first alert after connecting runs
 *    code V8 has not compiled hot yet, a fixed cost of a few hundred ms; it is printed too).
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
import { existsSync } from 'node:fs';
import type { Fixtures } from '../fixtures/fixtures.schema.ts';
import { CONTROL_PREFIX } from '../protocol/control-api.schema.ts';
import type { FleetActivity } from '../simulator/fleet-activity.ts';
import type { FleetHandle } from '../simulator/fleet-options.ts';
import type { WorkerFleetHandle } from '../simulator/fleet-workers.ts';
import {
  environmentLines,
  loadavg,
  memoryAfterGc,
  percentile,
  putEveryoneGroup,
  stopOnExit,
} from './bench-support.ts';
import { cancelAlert, postAlert } from './fleet-run-alerts.ts';
import {
  BADGES,
  CONNECT_TIMEOUT_MS,
  gc,
  PLAY_GOAL_MS,
  PLAY_WAIT_MS,
  SAMPLE_MS,
  SETTLE_S,
  WORKERS,
} from './fleet-run-config.ts';
import { waitForConnections } from './fleet-run-connect.ts';
import { ms, progress, progressEnd, seconds, share, treeState } from './fleet-run-format.ts';
import {
  cpuMs,
  deliverySpan,
  getJson,
  journalDuration,
  procCpuMs,
  procRssKb,
  settle,
  startProfile,
  tcpCounters,
  tcpDelta,
} from './fleet-run-probes.ts';
import {
  type Alerted,
  type Connected,
  perBadgeUs,
  print,
  printGoals,
  printMemory,
} from './fleet-run-report.ts';
import { killStub, startStubProcess, stopStub } from './fleet-run-stub.ts';

/**
 * The fleet and the stub run from the compiled package (dist/), as the installed package and the
 * image run them: through tsx, every closure of the sources carries its own `name` (esbuild's
 * keepNames), about 3 KB per badge that no user pays. `npm run bench:fleet` builds it first.
 */
const DIST = new URL('../dist/', import.meta.url);
/** Between the two alerts (idle, as the floors' rounds are): the first's stops, the reports sent. */
const REST_BETWEEN_ALERTS_MS = 2_000;
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

let fleet: FleetHandle | WorkerFleetHandle | undefined;
/** What the badges of a fleet in this thread did (a worker fleet keeps its own). */
let activity: FleetActivity | undefined;

interface Prepared {
  url: string;
  stubPid: number;
  subscriberId: string;
  apiKey: string;
  /** The account's first and last device of the fleet: the span of the stub's delivery loop. */
  firstId: string;
  lastId: string;
  alert: { notification: string; groups: string[]; timeout: number };
  target: string;
}

async function main(): Promise<void> {
  print('## bench:fleet');
  print();
  print(environmentLines(['ws', 'xstate', 'fastify'], true));
  print(
    `- badges: ${BADGES.toLocaleString('en')} (BENCH_BADGES), ${WORKERS === 0 ? 'all in this thread' : `in ${WORKERS} worker threads of this process (BENCH_WORKERS)`}; the stub in a child process`,
  );
  print(`- tree: ${treeState()}`);
  const loadBefore = loadavg();
  const prepared = await prepare();
  const connected = await connectFleet(prepared);
  const first = await alertEveryone(prepared, 1);
  await cancelAlert(prepared, first.taskId);
  // The stops delivered and the badges' state reports sent (decision D18: within 1 s).
  await new Promise((resolve) => setTimeout(resolve, REST_BETWEEN_ALERTS_MS));
  const second = await alertEveryone(prepared, 2);
  const alerted = second.p99 < first.p99 ? second : first;
  print(
    `The goals judge the better alert (p99 ${ms(alerted.p99)}), as the floors are the better of ` +
      `two rounds; the first alert after connecting, with code not yet compiled hot: p99 ${ms(first.p99)}.`,
  );
  print();
  if (SETTLE_S > 0) await cancelAlert(prepared, alerted.taskId);
  const afterSettled = await settle(
    'the fleet online, its alert cancelled',
    prepared.stubPid,
    SETTLE_S,
    gc,
  );
  const memory = printMemory(prepared.stubPid, connected, alerted.stubRss, afterSettled);
  print(`Load average (1 min) before/after the bench: ${loadBefore} / ${loadavg()}.`);
  print();
  printGoals(connected, alerted, memory);
  await cleanUp();
}

/** The stub in a child process, and one group of its account with every device. */
async function prepare(): Promise<Prepared> {
  progress(`starting the stub with ${BADGES} generated devices…`);
  const { url, pid: stubPid, startMs } = await startStubProcess(BADGES);
  print(`- stub: pid ${stubPid}, ${url}, ready in ${(startMs / 1000).toFixed(1)} s`);
  print();
  const fixtures = await getJson<Fixtures>(`${url}${CONTROL_PREFIX}/fixtures`);
  const account = fixtures.accounts[0]!;
  const subscriberId = account.subscriber_id;
  const deviceCount = account.devices.length;
  if (deviceCount < BADGES) {
    throw new Error(
      `the stub has ${deviceCount} devices in account ${subscriberId}, not ${BADGES}`,
    );
  }
  const groups = await putEveryoneGroup(url, fixtures);
  const target = groups.map((g) => `'${g}'`).join(', ');
  progress(`fixtures: account ${subscriberId}, alert to ${target}: ${deviceCount} devices`);
  return {
    url,
    stubPid,
    subscriberId,
    apiKey: account.api_keys[0]!,
    firstId: account.devices[0]!.id,
    lastId: account.devices[BADGES - 1]!.id,
    alert: { notification: 'Fleet bench', groups, timeout: 60 },
    target,
  };
}

/** Starts the fleet, waits until every badge is online, and prints what that took. */
async function connectFleet({ url, stubPid }: Prepared): Promise<Connected> {
  const stubRssIdle = procRssKb(stubPid);
  const before = memoryAfterGc(gc);
  const beforeSettled = await settle('before the fleet', stubPid, SETTLE_S, gc);
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
  const wall = performance.now() - t0;
  const selfCpu = cpuMs(process.cpuUsage(selfCpu0));
  const stubCpu = procCpuMs(stubPid) - stubCpu0;
  const tcp = tcpDelta(tcp0, tcpCounters());
  const count = fleet.connectedCount();
  const after = memoryAfterGc(gc);
  const stubRssConnected = procRssKb(stubPid);

  print(`### Connect: ${BADGES.toLocaleString('en-US')} badges, one stub`);
  print();
  print(
    `- online: ${count.toLocaleString('en-US')} of ${BADGES.toLocaleString('en-US')}` +
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
    `- CPU while connecting (${seconds(wall)} wall): fleet process ${seconds(selfCpu)} ` +
      `(${share(selfCpu / wall)} of a core), stub ${seconds(stubCpu)} ` +
      `(${share(stubCpu / wall)}); per badge: fleet ${perBadgeUs(selfCpu)}, ` +
      `stub ${perBadgeUs(stubCpu)}`,
  );
  print(`- TCP while connecting (whole machine, /proc/net/netstat): ${tcp ?? 'not available'}`);
  const errors = await errorSummary(fleet);
  print(`- badges that got an error frame or an unreadable frame: ${errors || 'none'}`);
  print();
  const memory = { before, after, beforeSettled, stubRssIdle, stubRssConnected };
  return { connect, count, ...memory, selfCpu, stubCpu };
}

/** One POST alerts to every badge; waits until every online badge has played it. */
async function alertEveryone(prepared: Prepared, round: 1 | 2): Promise<Alerted> {
  const { url, stubPid } = prepared;
  const online = fleet!.connectedCount();
  progress(`alert: POST alerts to ${prepared.target} (${BADGES} devices, ${online} online)…`);
  const stubCpu1 = procCpuMs(stubPid);
  const selfCpu1 = process.cpuUsage();
  const profiler = await startProfile(BADGES);
  const tPost = performance.now();
  const tPostEpoch = performance.timeOrigin + tPost;
  const response = await postAlert(prepared);
  const answer = await response.text();
  const tAnswer = performance.now();
  const taskId = (JSON.parse(answer) as { task_id?: string }).task_id ?? '';
  const firstPlays = firstPlaysOf(fleet!, taskId);
  await untilPlayed(firstPlays, online);
  const tDone = performance.now();
  const profile = await profiler?.stop();
  const selfCpu = cpuMs(process.cpuUsage(selfCpu1));
  const stubCpu = procCpuMs(stubPid) - stubCpu1;
  const stubRss = procRssKb(stubPid);
  // The stub's own record of when it wrote each play (its clock runs in real time): the span
  // from the first device of the group to the last is how long its delivery loop took.
  const stubSpan = await deliverySpan(url, prepared.firstId, prepared.lastId, taskId);
  // The stub's own record of the POST (its request journal): arrival to the end of its answer,
  // free of this process's event loop, which is busy with the badges' plays as the answer comes.
  const postMs = await journalDuration(url);
  const latencies = (await firstPlays()).map((t) => t - tPostEpoch).sort((a, b) => a - b);
  const alerted: Alerted = {
    taskId,
    ok: response.ok,
    postMs,
    postSeenMs: tAnswer - tPost,
    played: latencies.length,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: latencies.at(-1) ?? Number.NaN,
    selfCpu,
    stubCpu,
    stubRss,
  };
  const within = latencies.filter((l) => l <= PLAY_GOAL_MS).length;
  print(
    `### Alert ${round} of 2: one POST to ${BADGES.toLocaleString('en-US')} badges${round === 1 ? ' (the first after connecting)' : ''}`,
  );
  print();
  print(
    `- \`POST /subscribers/${prepared.subscriberId}/api/v1/alerts ${JSON.stringify(prepared.alert)}\` answered ` +
      `${response.status} in ${ms(alerted.postSeenMs)} here, ${ms(postMs)} in the stub (its journal: arrival to the end of its answer): ${answer.slice(0, 120)}`,
  );
  print(
    `- played: ${alerted.played.toLocaleString('en-US')} of ${BADGES.toLocaleString('en-US')}` +
      (alerted.played < BADGES ? ` (stopped waiting after ${seconds(tDone - tPost)})` : '') +
      `; within ${PLAY_GOAL_MS} ms: ${within.toLocaleString('en-US')}`,
  );
  print(
    `- first play after the POST: p50 ${ms(alerted.p50)}, p99 ${ms(alerted.p99)}, max ${ms(alerted.max)} ` +
      `(min ${ms(latencies[0] ?? Number.NaN)})`,
  );
  const wall = tDone - tPost;
  print(
    `- CPU from the POST to the last play (${seconds(wall)} wall): fleet process ` +
      `${seconds(selfCpu)} (${share(selfCpu / wall)}), stub ` +
      `${seconds(stubCpu)} (${share(stubCpu / wall)}); per badge: fleet ` +
      `${perBadgeUs(selfCpu)}, stub ${perBadgeUs(stubCpu)}`,
  );
  if (profile) print(`- CPU profile of this process from the POST to the last play: ${profile}`);
  print(
    `- the stub's transcripts: it recorded the play on the account's first device and on its ` +
      `last ${stubSpan === undefined ? '(not available)' : `${ms(stubSpan)} apart`} ` +
      '(its delivery loop, after the POST has answered: decision D14)',
  );
  print();
  return alerted;
}

/** When each badge first played the task (epoch ms), from the fleet or its worker threads. */
function firstPlaysOf(
  running: FleetHandle | WorkerFleetHandle,
  taskId: string,
): () => Promise<number[]> {
  return async () =>
    'firstPlays' in running ? running.firstPlays(taskId) : activity!.firstPlays(taskId);
}

/**
 * Only badges online can hear it: the wait ends when they all have (the verdict still counts
 * every badge of the fleet). Polled every 50 ms, bounded by PLAY_WAIT_MS.
 */
async function untilPlayed(firstPlays: () => Promise<number[]>, online: number): Promise<void> {
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
}

/**
 * Settled memory is read after the alert (idling first would chill the fan-out), cancelled so
 * that no repeat keeps the badges busy while V8 is left to hand memory back.
 */
async function cleanUp(): Promise<void> {
  progress('cleaning up: closing the fleet, stopping the stub…');
  activity?.stop();
  const closing = fleet?.close();
  fleet = undefined;
  await closing;
  await stopStub();
}

/** How many error frames the badges got, and the first of them. */
async function errorSummary(handle: FleetHandle | WorkerFleetHandle): Promise<string> {
  if ('refresh' in handle) await handle.refresh();
  const counts = 'refresh' in handle ? handle.activity() : activity!.counts();
  return counts.errors === 0 ? '' : `${counts.errors} (first: ${counts.firstError})`;
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
