/**
 * `npm run bench:fleet-snapshot`: what a fleet's snapshot costs at 1,000 badges (issue 32,
 * point 7, the badges' part): taking it (`fleet.snapshot()` and JSON text) and restoring it
 * (reading and checking the text, making the badges, setting their timers again), and the
 * size of the text, judged against GOALS. Each badge holds what a busy fleet's does: its
 * fleet's share of clips heard (100 each), activity, a behaviour with pending timers, and a
 * clip half played. Without a stub (test/support/badge-world.ts): the stub's part of the world
 * is bench/snapshot.bench.ts's.
 *
 *   npm run bench:fleet-snapshot                1,000 badges
 *   npm run bench:fleet-snapshot -- --badges 5000
 */
import { parseArgs } from 'node:util';
import type { StubFrame } from '../protocol/device-frames.schema.ts';
import { takeFleetSnapshot } from '../simulator/snapshot/fleet-snapshot.ts';
import { badgeWorld } from '../test/support/badge-world.ts';
import { GOALS, verdict } from './goals.ts';

const { values } = parseArgs({ options: { badges: { type: 'string', default: '1000' } } });
const count = Number(values.badges);
if (!(Number.isInteger(count) && count >= 1 && count <= 100_000)) {
  console.error(
    `bench:fleet-snapshot: --badges must be a whole number from 1 to 100000, got ${values.badges}`,
  );
  process.exit(2);
}
const ids = Array.from({ length: count }, (_, i) => `35${String(i).padStart(13, '0')}`);
const behaviour = {
  ack: { after: '30s..90s' },
  battery: { drain: 1 },
  flaky: { every: '1h..2h', down: '1m' },
} as const;
const behaviours = Object.fromEntries(ids.map((id) => [id, behaviour]));
const RUNS = 5;

/** A fleet that has heard 100 broadcasts (one clip each, shared, as a fan-out's) and is mid-alert. */
async function busyWorld() {
  const world = badgeWorld(ids, behaviours);
  for (const { badge } of world.badges) badge.connect();
  await world.clock.advanceBy(0);
  const send = async (frame: Record<string, unknown>) => {
    for (const id of ids)
      await world.handlers
        .get(id)!
        .frame({ ...frame, at: world.clock.now(), seq: 0 } as unknown as StubFrame);
  };
  for (let i = 0; i < 100; i++) {
    await send({
      type: 'broadcast',
      task_id: `b${i}`,
      text: `Broadcast number ${i} to every badge`,
    });
    await world.clock.advanceBy(10_000);
  }
  await send({
    type: 'play',
    task_id: 't1',
    name: 'alerts',
    text: 'Code blue in ward 3',
    repeat: 0,
  });
  await world.clock.advanceBy(500);
  return world;
}

function median(samples: number[]): number {
  return [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)]!;
}

const world = await busyWorld();
const takeMs: number[] = [];
let text = '';
for (let run = 0; run < RUNS; run++) {
  const start = performance.now();
  text = JSON.stringify(takeFleetSnapshot(world.badges, world.clock, 0));
  takeMs.push(performance.now() - start);
}
const restoreMs: number[] = [];
const parseMs: number[] = [];
for (let run = 0; run < RUNS; run++) {
  // The floor: JSON.parse of the same text, which every restore of it pays first.
  let start = performance.now();
  JSON.parse(text);
  parseMs.push(performance.now() - start);
  start = performance.now();
  const restored = badgeWorld(ids, behaviours, text);
  restoreMs.push(performance.now() - start);
  for (const { badge, run: r } of restored.badges) {
    r?.stop();
    badge.dispose();
  }
}
const mib = Buffer.byteLength(text) / 1024 / 1024;
const take = median(takeMs);
const restore = median(restoreMs);
const floor = median(parseMs);
console.log(`# Fleet snapshot, ${count.toLocaleString('en')} badges (median of ${RUNS})\n`);
console.log('| measure | figure | goal | verdict |');
console.log('|---|---|---|---|');
console.log(
  `| snapshot (take + JSON text) | ${take.toFixed(1)} ms | < ${GOALS.fleetSnapshotMs} ms | ${verdict(take < GOALS.fleetSnapshotMs)} |`,
);
console.log(
  `| restore (parse, check, badges, timers) | ${restore.toFixed(1)} ms | < ${GOALS.fleetSnapshotMs} ms | ${verdict(restore < GOALS.fleetSnapshotMs)} |`,
);
console.log(
  `| floor: JSON.parse of the same text alone | ${floor.toFixed(1)} ms | (part of the restore) | — |`,
);
console.log(
  `| size of the JSON text | ${mib.toFixed(2)} MiB | < ${GOALS.worldSnapshotMiB} MiB (the whole world's file) | ${verdict(mib < GOALS.worldSnapshotMiB)} |`,
);
if (
  !(take < GOALS.fleetSnapshotMs && restore < GOALS.fleetSnapshotMs && mib < GOALS.worldSnapshotMiB)
)
  process.exit(1);
