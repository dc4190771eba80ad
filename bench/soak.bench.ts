import type { FixtureBehaviour, Fixtures } from '../fixtures/fixtures.schema.ts';
import { CONTROL_PREFIX, type StubKept } from '../protocol/control-api.schema.ts';
import { startFleet } from '../simulator/fleet.ts';
import type { FleetHandle, FleetKept } from '../simulator/fleet-options.ts';
import {
  environmentLines,
  exposeGc,
  loadavg,
  memoryAfterGc,
  putEveryoneGroup,
  stopOnExit,
} from './bench-support.ts';
import { verdict } from './goals.ts';
import {
  BADGES,
  CONNECT_TIMEOUT_MS,
  EXTRA_STUB_ARGS,
  FLAT_MIB_PER_HOUR,
  flags,
  GOAL_BADGES,
  GOAL_HOURS,
  HOURS,
  ROUND_MS,
  ROUNDS,
  ROUNDS_AN_HOUR,
  STUB_MALLOC_ARENA_MAX,
  TIMEOUT_MS,
  WARMUP_HOURS,
} from './soak-config.ts';
import { type Memory, mib, printGrowth, type Round, slopesText } from './soak-growth.ts';
import { killStub, startStubProcess, stopStub, stubMemory, stubPid } from './soak-stub.ts';

let fleet: FleetHandle | undefined;
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
  print(`- stub pid ${stubPid()}, ${url}; ${fleet.connectedCount()} badges online`);
  print();

  const { rounds, refusals } = await runRounds(url, { groups, subscriberId, apiKey }, start);

  const slopes = printGrowth(print, rounds, {
    warmupHours: WARMUP_HOURS,
    hours: HOURS,
    roundsAnHour: ROUNDS_AN_HOUR,
  });
  const last = rounds.at(-1)!;
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
      `virtual hour after the warm-up): ${slopesText(slopes)}` +
      `${asked ? '' : ` (this run: ${BADGES} badges over ${HOURS} h${EXTRA_STUB_ARGS.length > 0 ? `, the stub with ${EXTRA_STUB_ARGS.join(' ')}` : ''}, not what the goal asks)`} ` +
      verdict(asked && flat && refusals.length === 0),
  );
}

/**
 * Every round (two alerts to every badge, five virtual minutes), the memory of both processes
 * after each, a table row each virtual hour; then the stub's clock and what its stores dropped.
 */
async function runRounds(
  url: string,
  account: { groups: string[]; subscriberId: string; apiKey: string },
  start: Round,
): Promise<{ rounds: Round[]; refusals: string[] }> {
  const running = fleet!;
  const { groups, subscriberId, apiKey } = account;
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
  printHour(0, start, await stubKept(url), running.kept(), 0);
  let hourStarted = performance.now();
  for (let round = 1; round <= ROUNDS; round++) {
    await runRound(api, auth, groups, round, expectStatus);
    rounds.push({ round, stub: await stubMemory(), fleet: memoryAfterGc(gc) });
    if (round % ROUNDS_AN_HOUR !== 0) continue;
    const hour = round / ROUNDS_AN_HOUR;
    const kept = await stubKept(url);
    const fleetKept = running.kept();
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
      `Badges online: ${running.connectedCount()} of ${BADGES}.`,
  );
  const stores = [...droppedBy(await stubKept(url), running.kept()).keys()];
  print(
    `First dropped past its cap (full from then on): ${stores
      .map((store) => `${store} ${fullAt.has(store) ? `at ${fullAt.get(store)} h` : 'never'}`)
      .join(', ')}.`,
  );
  print();

  return { rounds, refusals };
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
  await stopStub();
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
