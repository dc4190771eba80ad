/**
 * Paging `GET events` by time loses nothing (decisions P1–P3): a client that passes the
 * timestamp of the last event it saw as `oldest`, and skips the event ids it has seen, gets
 * every event exactly once, however close together the events are and on every clock.
 */
import { describe, expect, test } from 'vitest';
import type { AnalyticEvent } from '../../protocol/service-api.schema.ts';
import { type StubHandle, startStub } from '../../server-stub/start-stub.ts';
import { controlClient, RIVERSIDE, serviceClient } from '../support/http.ts';

/** Pages as clients of the original do: `oldest` = the last timestamp seen, ids de-duplicated. */
async function pageAll(stub: StubHandle, limit = 100): Promise<AnalyticEvent[]> {
  const api = serviceClient(stub);
  const seen = new Set<string>();
  const all: AnalyticEvent[] = [];
  let query = `?limit=${limit}`;
  for (;;) {
    const page = await api.events(query);
    expect(page.status).toBe(200);
    const fresh = page.body.filter((e: AnalyticEvent) => !seen.has(e.event_id));
    for (const event of fresh) {
      seen.add(event.event_id);
      all.push(event);
    }
    if (page.body.length < limit) return all;
    if (fresh.length === 0) throw new Error('a full page held nothing new: paging is stuck');
    query = `?limit=${limit}&oldest=${encodeURIComponent(page.body.at(-1).timestamp)}`;
  }
}

/**
 * Alerts to Security (two badges) that time out after 1 s: start, then timed_out and end at
 * one instant. Returns the task ids, for the events every task must have produced.
 */
function alert(stub: StubHandle, i: number): string {
  const request = { notification: `drill ${i}`, groups: ['Security'], timeout: 1 };
  return stub.core.engine.createAlert(RIVERSIDE.id, request).taskId;
}

/** Every task's three events, each once, and nothing else; ids unique; oldest first. */
function expectEachOnce(events: AnalyticEvent[], taskIds: string[]): void {
  expect(new Set(events.map((e) => e.event_id)).size).toBe(events.length);
  const got = events.map((e) => `${e.task.id} ${e.content.type}`).sort();
  const expected = taskIds.flatMap((id) => [`${id} start`, `${id} timed_out`, `${id} end`]);
  expect(got).toEqual(expected.sort());
  const times = events.map((e) => e.timestamp);
  expect(times).toEqual([...times].sort());
}

describe('paging GET events by time', () => {
  test.each([
    ['0.3 ms', 0.3],
    ['1 µs', 0.001],
    ['0.6 µs', 0.0006],
  ])(
    'every event exactly once: 1500 alerts %s apart on the virtual clock, three at a time',
    async (_, stepMs) => {
      await using stub = await startStub();
      const taskIds: string[] = [];
      for (let i = 0; i < 1500; i++) {
        taskIds.push(alert(stub, i));
        // Three alerts at each instant: page edges fall inside a group of equal timestamps.
        if (i % 3 === 2) await stub.core.clock.advanceBy(stepMs);
      }
      // Every timeout fires: a timed_out and an end at each alert's instant + 1 s.
      expect((await controlClient(stub).advance('2s')).status).toBe(200);
      const events = await pageAll(stub);
      expect(events).toHaveLength(4500);
      expectEachOnce(events, taskIds);
    },
  );

  test('every event exactly once on the real clock: 1500 alerts as fast as they come, pages of 100, 99 and 37', async () => {
    await using stub = await startStub({ clock: 'real' });
    const taskIds: string[] = [];
    for (let i = 0; i < 1500; i++) taskIds.push(alert(stub, i));
    expect((await controlClient(stub).advance('2s')).status).toBe(200);
    // Page sizes of both parities: page edges fall on the first and on the second event of
    // the timed_out/end pairs that share an instant.
    for (const limit of [100, 99, 37]) {
      const events = await pageAll(stub, limit);
      expect(events).toHaveLength(4500);
      expectEachOnce(events, taskIds);
    }
  });

  test('an instant prints rounded down to the µs; an oldest with more than six digits is rounded up', async () => {
    await using stub = await startStub();
    alert(stub, 0);
    await stub.core.clock.advanceBy(0.0015); // 1.5 µs: printed .000001
    alert(stub, 1);
    const api = serviceClient(stub);
    const tasksFrom = async (oldest: string) =>
      (await api.events(`?oldest=${oldest}`)).body.map((e: AnalyticEvent) => e.task.id);
    const [first, second] = (await api.events()).body.map((e: AnalyticEvent) => e.task.id);
    expect((await api.events()).body.map((e: AnalyticEvent) => e.timestamp)).toEqual([
      '2026-01-01T00:00:00.000000Z',
      '2026-01-01T00:00:00.000001Z',
    ]);
    expect(await tasksFrom('2026-01-01T00:00:00.000000Z')).toEqual([first, second]);
    expect(await tasksFrom('2026-01-01T00:00:00.0000000Z')).toEqual([first, second]);
    expect(await tasksFrom('2026-01-01T00:00:00.000000001Z')).toEqual([second]);
    expect(await tasksFrom('2026-01-01T00:00:00.0000010Z')).toEqual([second]);
    expect(await tasksFrom('2026-01-01T00:00:00.000001001Z')).toEqual([]);
    // Ten digits: not a timestamp of the contract (at most nine), refused naming oldest.
    const tooFine = await api.events('?oldest=2026-01-01T00:00:00.0000000000Z');
    expect(tooFine.status).toBe(400);
    expect((tooFine.body as unknown as { field: string }).field).toBe('oldest');
  });
});
