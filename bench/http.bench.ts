/**
 * `npm run bench:http`: how the stub's HTTP routes compare with bare fastify 5 routes, with
 * the request journal on (the default) and nobody reading it, and how long a default-timeout
 * alert takes to run to its end on the virtual clock. The goals are issue 28's (goals.ts).
 *
 *   BENCH_SECONDS=5 BENCH_ROUNDS=3 npm run bench:http
 *
 * Part 1 (HTTP, http-measure.ts): servers in child processes, autocannon here; each round
 * measures every target, a stub route right after its bare counterpart, a 1 s warm-up and a
 * run of BENCH_SECONDS (default 5) with 10 connections; BENCH_ROUNDS rounds (default 3). The
 * floor for GET events is a bare route sending the same 100 events serialised once: what an
 * answer of that size costs here, whoever serves it.
 *
 * Part 2 (virtual clock): in this process, a fresh StubCore per round; one alert with no
 * timeout (300 s) to a group of 10 devices, `advanceBy(300_000)`, wall time by
 * `performance.now()`.
 *
 * Results go to stdout as Markdown (ready to paste into an issue note); progress goes to
 * stderr. Exit code 0 even when a goal fails (it prints FAIL); non-zero only when something
 * crashed, a server did not start, or a target answered wrongly before the measurement.
 */
import { generateFixtures } from '../fixtures/generate-fixtures.ts';
import { StubCore } from '../server-stub/stub-core.ts';
import { environmentLines, loadavg, readNumber } from './bench-support.ts';
import { GOALS, verdict } from './goals.ts';
import { killChildren, measureTargets, ratioOf, table } from './http-measure.ts';
import { ACCOUNT, COMPARISONS, TARGETS } from './http-targets.ts';

const SECONDS = readNumber('BENCH_SECONDS', 5, 600);
const ROUNDS = Math.round(readNumber('BENCH_ROUNDS', 3, 20));
const WARMUP_SECONDS = 1;
const ALERT_ROUNDS = 20;

async function main(): Promise<void> {
  const print = (line = '') => process.stdout.write(`${line}\n`);

  print('## bench:http');
  print();
  print(environmentLines(['fastify', 'autocannon']));
  print();

  const loadBefore = loadavg();
  const { rows, fill } = await measureTargets(TARGETS, {
    seconds: SECONDS,
    rounds: ROUNDS,
    warmupSeconds: WARMUP_SECONDS,
  });
  const loadAfter = loadavg();

  print(
    `### HTTP: 10 connections; ${ROUNDS} round(s), each target ${WARMUP_SECONDS} s ` +
      `warm-up + ${SECONDS} s per round; servers in child processes; the stub's request journal on (default), unread`,
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
  for (const comparison of COMPARISONS) {
    const { ratio, low, high, stub, bare } = ratioOf(rows, comparison);
    const ok = ratio >= comparison.goal && stub.non2xx === 0 && stub.errors === 0;
    const range = ROUNDS > 1 ? `, rounds ${low.toFixed(2)}–${high.toFixed(2)}` : '';
    print(
      `- ${stub.target.label} vs ${bare.target.label}: ${ratio.toFixed(2)}× (median${range}; ` +
        `goal ≥ ${comparison.goal}×) ${verdict(ok)}` +
        (stub.non2xx || stub.errors ? ` (${stub.non2xx} non-2xx, ${stub.errors} errors)` : ''),
    );
  }
  const through = ratioOf(rows, { stub: 'stub-get-events', bare: 'bare-get-100', goal: 0 });
  print(
    `- for reference, stub GET events vs a bare route serialising the same 100 events through ` +
      `the response schema on every request: ${through.ratio.toFixed(2)}× (no goal)`,
  );
  print();

  process.stderr.write('virtual clock: 300 s alerts…\n');
  for (const line of await alertWallTime()) print(line);
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
  return [
    '### Virtual clock: one 300 s (default timeout) alert to 10 devices, run to its end',
    '',
    `${ALERT_ROUNDS} rounds, fresh StubCore each, createAlert + \`clock.advanceBy(300_000)\`; ` +
      `each ended 'timed_out' after ${fired} timer firings and ${plays} plays.`,
    '',
    `- wall time: median ${median.toFixed(2)} ms, max ${max.toFixed(2)} ms ` +
      `(first, cold: ${walls[0]!.toFixed(2)} ms; min ${sorted[0]!.toFixed(2)} ms)`,
    `- goal: median < ${GOALS.timeoutScenarioMs} ms, the issue's goal for a whole 300 s ` +
      `scenario of which this is the stub's part: ${verdict(median < GOALS.timeoutScenarioMs)}`,
  ];
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
