/**
 * The defining property of world snapshots (issue 32, WS1): run a random schedule to an
 * instant, take a snapshot and go on; restore that snapshot into a fresh stub and go on the
 * same way: the two give byte-identical events, task views, transcripts and ids. In one
 * process, across two stubs over real HTTP (GET from one, PUT into the other), and through
 * a file (`startStub({ snapshot })`). On the virtual clock; few, short schedules.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { DEFAULT_FIXTURES_FILE, loadFixturesFile } from '../../fixtures/load-fixtures.ts';
import { restoreSnapshot, takeSnapshot } from '../../server-stub/snapshot/world-snapshot.ts';
import { type StubHandle, startStub } from '../../server-stub/start-stub.ts';
import { StubCore } from '../../server-stub/stub-core.ts';
import { HARBOUR, RIVERSIDE, request } from '../support/http.ts';
import { coreDriver, httpDriver, runSteps, type WorldOp, worldSchedule } from './world-schedule.ts';

const fixtures = loadFixturesFile(DEFAULT_FIXTURES_FILE);
const DEVICES = fixtures.accounts.flatMap((a) => a.devices.map((d) => d.id));

/** What users see of a core: every event, every task view, every transcript. */
function coreView(core: StubCore): string {
  return JSON.stringify({
    events: [RIVERSIDE.id, HARBOUR.id].map((id) => core.engine.eventsBytes(id).toString()),
    tasks: core.engine.tasks(),
    transcripts: DEVICES.map((id) => core.engine.transcript(id)),
    faults: core.faults.list(),
  });
}

/** What users see of a stub over HTTP, and its whole world (a snapshot) besides. */
async function httpView(stub: StubHandle): Promise<string> {
  const events = await Promise.all(
    [RIVERSIDE, HARBOUR].map((a) =>
      request(`${stub.url}/subscribers/${a.id}/api/v1/events`, {
        headers: { authorization: `ServiceApiKey ${a.key}` },
      }),
    ),
  );
  const tasks = await request(`${stub.controlUrl}/tasks`);
  const transcripts = await Promise.all(
    DEVICES.map((id) => request(`${stub.controlUrl}/devices/${id}/transcript`)),
  );
  const world = await request(`${stub.controlUrl}/snapshot`);
  return JSON.stringify({
    events: events.map((e) => e.body),
    tasks: tasks.body,
    transcripts: transcripts.map((t) => t.body),
    world: world.body,
  });
}

/**
 * Runs a schedule to `at` on a stub over HTTP, hands its snapshot to `restored` for another
 * stub, then goes on with both: what each step did and what users see must be the same.
 */
async function goOnAlike(
  ops: WorldOp[],
  at: number,
  restored: (world: unknown) => Promise<StubHandle>,
): Promise<void> {
  await using original = await startStub({ seed: 5 });
  const posted: string[] = [];
  await runSteps(httpDriver(original.url, original.controlUrl), ops, 0, at, posted);
  const taken = await request(`${original.controlUrl}/snapshot`);
  expect(taken.status).toBe(200);
  await using other = await restored(taken.body);
  const postedAgain = [...posted];
  const went = await runSteps(
    httpDriver(original.url, original.controlUrl),
    ops,
    at,
    ops.length,
    posted,
  );
  const wentAgain = await runSteps(
    httpDriver(other.url, other.controlUrl),
    ops,
    at,
    ops.length,
    postedAgain,
  );
  expect(wentAgain).toEqual(went);
  expect(await httpView(other)).toBe(await httpView(original));
}

describe('a restored world goes on as the one it was taken of (WS1)', () => {
  test('in one process: events, task views, transcripts, ids and snapshots are byte-identical', async () => {
    await fc.assert(
      fc.asyncProperty(worldSchedule, async ({ ops, at }) => {
        const original = new StubCore({ fixtures, seed: 11 });
        const posted: string[] = [];
        await runSteps(coreDriver(original), ops, 0, at, posted);
        const text = JSON.stringify(takeSnapshot(original));
        // Another seed and another instant: what the snapshot says wins.
        const restored = new StubCore({ fixtures, seed: 99, startTime: Date.UTC(2030, 0, 1) });
        restoreSnapshot(restored, JSON.parse(text));
        expect(JSON.stringify(takeSnapshot(restored))).toBe(text);
        const postedAgain = [...posted];
        const went = await runSteps(coreDriver(original), ops, at, ops.length, posted);
        const wentAgain = await runSteps(coreDriver(restored), ops, at, ops.length, postedAgain);
        expect(wentAgain).toEqual(went);
        expect(coreView(restored)).toBe(coreView(original));
        expect(JSON.stringify(takeSnapshot(restored))).toBe(JSON.stringify(takeSnapshot(original)));
        // The ids go on alike, and never back to one already issued.
        expect(restored.ids.taskId()).toBe(original.ids.taskId());
        expect(posted).not.toContain(original.ids.taskId());
      }),
      { numRuns: 30 },
    );
  });

  test('across two stubs over HTTP: GET from one, PUT into the other, both go on alike', async () => {
    await fc.assert(
      fc.asyncProperty(worldSchedule, ({ ops, at }) =>
        goOnAlike(ops, at, async (world) => {
          const other = await startStub();
          const put = await request(`${other.controlUrl}/snapshot`, { method: 'PUT', body: world });
          expect(put.status, JSON.stringify(put.body)).toBe(200);
          return other;
        }),
      ),
      { numRuns: 8 },
    );
  });

  test('through a file: startStub({ snapshot }) goes on as the stub it was taken of', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'badge-sim-snapshot-')), 'world.json');
    await fc.assert(
      fc.asyncProperty(worldSchedule, ({ ops, at }) =>
        goOnAlike(ops, at, (world) => {
          writeFileSync(file, JSON.stringify(world));
          return startStub({ snapshot: file });
        }),
      ),
      { numRuns: 5 },
    );
  });
});
