/**
 * `badge-sim analytics` lists every event of the window, however the events fall on the
 * pages of 100 (decision P4): the CLI runs as a child process against a stub on a real port,
 * with events that share a timestamp where two pages meet, at instants with sub-microsecond
 * parts (a running clock's).
 */
import { execFile } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import type { AnalyticEvent } from '../../protocol/service-api.schema.ts';
import { type StubHandle, startStub } from '../../server-stub/start-stub.ts';
import { BIN } from '../support/cli.ts';
import { controlClient, RIVERSIDE, serviceClient } from '../support/http.ts';

/** Runs `badge-sim analytics` to its end without blocking this process (the stub is in it). */
function analytics(stub: StubHandle, ...args: string[]) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [BIN, 'analytics', '--base-url', stub.url, '-s', RIVERSIDE.id, ...args],
      { env: { ...process.env, BADGE_SIM_API_KEY: RIVERSIDE.key }, timeout: 45_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

/**
 * Moves the clock to the next whole ms and three quarters of a µs (a double near 2026 keeps
 * 0.73 µs of it), as a running clock's instants carry part of a microsecond: printed rounded
 * half-up, such an instant showed a µs later than it was, and `oldest` then skipped it.
 */
const nextInstant = (stub: StubHandle) =>
  stub.core.clock.advanceTo(Math.floor(stub.core.clock.now()) + 1 + 0.00075);

/**
 * Alerts to Security in groups: each number is how many alerts start at one instant (their
 * start events share a timestamp). Returns each task's expected events.
 */
async function startsInGroups(stub: StubHandle, groups: number[]): Promise<string[]> {
  const expected: string[] = [];
  for (const size of groups) {
    await nextInstant(stub);
    for (let i = 0; i < size; i++) {
      const request = { notification: 'drill', groups: ['Security'] };
      expected.push(`${stub.core.engine.createAlert(RIVERSIDE.id, request).taskId} start`);
    }
  }
  return expected;
}

const ones = (n: number) => Array.from({ length: n }, () => 1);

/** Each expected event exactly once, and nothing else. */
function expectExactly(events: AnalyticEvent[], expected: string[]): void {
  expect(new Set(events.map((e) => e.event_id)).size).toBe(events.length);
  expect(events.map((e) => `${e.task.id} ${e.content.type}`).sort()).toEqual(expected.sort());
}

describe('badge-sim analytics across pages', () => {
  test.each([
    ['100, the last four at one instant', [...ones(96), 4]],
    ['101, four at one instant across the page edge', [...ones(97), 4]],
    ['200, ten across the first edge and five at the second', [...ones(95), 10, ...ones(90), 5]],
    ['201, ten across the first edge and six across the second', [...ones(95), 10, ...ones(90), 6]],
  ])('lists every event: %s', async (_, groups) => {
    await using stub = await startStub();
    const expected = await startsInGroups(stub, groups);
    const listing = await analytics(stub, '--limit', '1000', '--json');
    expect(listing.stderr).toBe('');
    expect(listing.code).toBe(0);
    expectExactly(JSON.parse(listing.stdout), expected);
  });

  test('122 events, a timed_out last on the first page and its end first on the next: --limit 200 lists all 122', async () => {
    await using stub = await startStub();
    const api = serviceClient(stub);
    // Two alerts that stay open, then 40 that time out one after the other: start, then a
    // timed_out and an end at one instant. Event 100 is a timed_out, event 101 its end.
    const expected = await startsInGroups(stub, [1, 1]);
    for (let i = 0; i < 40; i++) {
      await nextInstant(stub);
      const { body } = await api.alert({ notification: 'drill', groups: ['Nurses'], timeout: 1 });
      expect((await controlClient(stub).advance('1s')).status).toBe(200);
      expected.push(`${body.task_id} start`, `${body.task_id} timed_out`, `${body.task_id} end`);
    }
    const firstPage = (await api.events()).body;
    expect(firstPage[99].content.type).toBe('timed_out');
    const listing = await analytics(stub, '--limit', '200', '--json');
    expect(listing.code).toBe(0);
    const events = JSON.parse(listing.stdout);
    expect(events).toHaveLength(122);
    expectExactly(events, expected);
    expect(events.map((e: AnalyticEvent) => e.timestamp)).toEqual(
      events.map((e: AnalyticEvent) => e.timestamp).sort(),
    );
    // The table says so too: every row, and the count.
    const table = await analytics(stub, '--limit', '200');
    expect(table.stderr).toBe('122 of 122 events of the last 7 days\n');
    expect(table.stdout.trim().split('\n')).toHaveLength(123);
  });

  test('more than 100 events at one instant: a clear error, exit 2, nothing listed', async () => {
    await using stub = await startStub();
    await startsInGroups(stub, [1, 150, 1]);
    const shared = (await serviceClient(stub).events()).body[1].timestamp;
    const listing = await analytics(stub, '--limit', '1000');
    expect(listing.code).toBe(2);
    expect(listing.stdout).toBe('');
    expect(listing.stderr).toBe(
      `badge-sim: 100 or more events share the timestamp ${shared}; the service answers at most 100 from one 'oldest', so paging by time cannot get past them\n`,
    );
  });
});
