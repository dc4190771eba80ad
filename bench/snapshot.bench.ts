/**
 * `npm run bench:snapshot`: what a world snapshot of the stub costs (issue 32, point 7). A
 * world of 1,000 tasks (900 ended by their quorum, 100 alerting with their repeats and
 * timeouts) on 4 accounts of 100 devices, 100,000 events and the transcripts that came with
 * them, built through the engine directly; then, median of BENCH_SNAPSHOT_REPEATS runs
 * (default 5):
 *
 * - snapshot: `takeSnapshot` and `JSON.stringify`, what `GET /_stub/snapshot` does;
 * - restore: `JSON.parse` and `restoreSnapshot` into another stub, every check included, what
 *   `PUT /_stub/snapshot` and `--snapshot FILE` do;
 * - the document's size.
 *
 * Goals: snapshot and restore each < 200 ms, the file < 50 MB. The badges' part of the goal
 * (1,000 badges) is the fleet's snapshot, measured by its own bench.
 */
import type { Fixtures } from '../fixtures/fixtures.schema.ts';
import { restoreSnapshot, takeSnapshot } from '../server-stub/snapshot/world-snapshot.ts';
import { StubCore } from '../server-stub/stub-core.ts';
import { environmentLines, loadavg, readNumber } from './bench-support.ts';
import { verdict } from './goals.ts';

const ACCOUNTS = 4;
const DEVICES_PER_ACCOUNT = 100;
const ENDED_TASKS = 900;
const ALERTING_TASKS = 100;
/** Acknowledgements of each alerting task: the rest of its devices repeat (timers). */
const ALERTING_ACKS = 80;
const GOAL_MS = 200;
const GOAL_BYTES = 50 * 1024 * 1024;

function fixtures(): Fixtures {
  return {
    accounts: Array.from({ length: ACCOUNTS }, (_, a) => {
      const devices = Array.from({ length: DEVICES_PER_ACCOUNT }, (_, d) => ({
        id: `35${a}${String(d).padStart(12, '0')}`,
        user: `User ${a}-${d}`,
      }));
      return {
        subscriber_id: `10000${a}`,
        name: `Account ${a}`,
        api_keys: [`bench-api-key-${a}-0000`],
        groups: [{ id: `9${a}`, name: 'Everyone', members: devices.map((d) => d.id) }],
        devices,
      };
    }),
  };
}

/** 1,000 tasks and about 100,000 events, on the virtual clock a second apart. */
async function buildWorld(core: StubCore): Promise<void> {
  const accounts = core.fixtures.accounts;
  for (let i = 0; i < ENDED_TASKS + ALERTING_TASKS; i++) {
    const account = accounts[i % ACCOUNTS]!;
    // A name of its own: every device plays it at once, so each can acknowledge it now.
    const { taskId } = core.engine.createAlert(account.subscriber_id, {
      notification: `Bench alert ${i}`,
      groups: ['Everyone'],
      name: `bench-${i}`,
      timeout: 3_600,
    });
    const acks = i < ENDED_TASKS ? DEVICES_PER_ACCOUNT : ALERTING_ACKS;
    for (const device of account.devices.slice(0, acks)) core.engine.acknowledge(device.id, taskId);
    await core.clock.advanceBy(1_000);
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function main(): Promise<void> {
  const repeats = readNumber('BENCH_SNAPSHOT_REPEATS', 5, 50);
  const world = fixtures();
  const core = new StubCore({ fixtures: world, seed: 1 });
  process.stderr.write('building the world…\n');
  await buildWorld(core);
  const stats = core.engine.stats();
  const snapshotMs: number[] = [];
  const restoreMs: number[] = [];
  const parseMs: number[] = [];
  let bytes = 0;
  for (let run = 0; run < repeats; run++) {
    let started = performance.now();
    const text = JSON.stringify(takeSnapshot(core));
    snapshotMs.push(performance.now() - started);
    bytes = Buffer.byteLength(text);
    // The floor: JSON.parse of the same text, which every restore of it pays first.
    started = performance.now();
    JSON.parse(text);
    parseMs.push(performance.now() - started);
    const target = new StubCore({ fixtures: world });
    started = performance.now();
    restoreSnapshot(target, JSON.parse(text));
    restoreMs.push(performance.now() - started);
    process.stderr.write(`run ${run + 1}/${repeats}\n`);
  }
  const snap = median(snapshotMs);
  const restore = median(restoreMs);
  const floor = median(parseMs);
  console.log(`# bench:snapshot — the stub's world snapshot (issue 32)

${environmentLines(['fastify'])}
load average: ${loadavg()}

World: ${stats.tasks} tasks (${stats.alerting} alerting), ${stats.events} events, ${stats.transcriptEntries} transcript lines, ${ACCOUNTS} accounts × ${DEVICES_PER_ACCOUNT} devices; ${core.clock.state.pendingTimers} pending timers.

| measure (median of ${repeats}) | figure | goal | verdict |
|---|---|---|---|
| snapshot (takeSnapshot + JSON.stringify) | ${snap.toFixed(1)} ms | < ${GOAL_MS} ms | ${verdict(snap < GOAL_MS)} |
| restore (JSON.parse + checks + restoreSnapshot) | ${restore.toFixed(1)} ms | < ${GOAL_MS} ms | ${verdict(restore < GOAL_MS)} |
| floor: JSON.parse of the same text alone | ${floor.toFixed(1)} ms | (part of the restore) | — |
| document size | ${(bytes / 1024 / 1024).toFixed(1)} MB | < 50 MB | ${verdict(bytes < GOAL_BYTES)} |

All runs: snapshot ${snapshotMs.map((ms) => ms.toFixed(0)).join(', ')} ms; restore ${restoreMs.map((ms) => ms.toFixed(0)).join(', ')} ms; JSON.parse alone ${parseMs.map((ms) => ms.toFixed(0)).join(', ')} ms.

The stub's part only: the 1,000 badges of the issue's goal are the fleet's snapshot (fleet.snapshot()), measured by the fleet's bench.
`);
}

await main();
