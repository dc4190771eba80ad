/**
 * The invariant checker of the property tests catches what it must: each history below breaks
 * one invariant of issue 18 and is named for it; a good history breaks none.
 */
import { describe, expect, test } from 'vitest';
import { brokenInvariants, type SeenEvent, type SeenTask } from './schedules.ts';

const task: SeenTask = { key: 't0', createdAt: 0, timeoutMs: 60_000, quorum: 2, reached: 2 };
const start: SeenEvent = { type: 'start', task: 't0', at: 0 };
const ack = (device: string, at: number): SeenEvent => ({
  type: 'acknowledged',
  task: 't0',
  at,
  device,
});
const end = (at: number, status = 'normal'): SeenEvent => ({ type: 'end', task: 't0', at, status });
const timedOut = (at: number): SeenEvent => ({ type: 'timed_out', task: 't0', at });

describe('the invariants of a history', () => {
  test('a good history breaks none', () => {
    expect(
      brokenInvariants([start, ack('Ada', 5_000), ack('Ben', 9_000), end(9_000)], [task]),
    ).toEqual([]);
    expect(
      brokenInvariants([start, ack('Ada', 5_000), timedOut(60_000), end(60_000)], [task]),
    ).toEqual([]);
  });

  test.each([
    ['two starts', [start, start, end(60_000)], /2 start events/],
    ['no end', [start], /0 end events/],
    [
      'events out of time order',
      [start, ack('Ada', 9_000), ack('Ben', 5_000), end(9_000)],
      /comes after/,
    ],
    [
      'more acknowledgements than devices reached',
      [start, ack('Ada', 1), ack('Ben', 2), ack('Cleo', 3), end(3)],
      /3 acknowledgements from 2 devices/,
    ],
    [
      'an acknowledgement after the end',
      [start, timedOut(60_000), end(60_000), ack('Ada', 61_000)],
      /acknowledged after its end/,
    ],
    ['timed_out before the timeout', [start, timedOut(59_000), end(59_000)], /not at its timeout/],
    [
      'timed_out not right before the end',
      [start, timedOut(60_000), ack('Ada', 60_000), end(60_000)],
      /not right before its end/,
    ],
    [
      'a met quorum that does not end the task then',
      [start, ack('Ada', 1_000), ack('Ben', 2_000), end(3_000)],
      /quorum 2 met at 2000 ms/,
    ],
    [
      'an event of no task',
      [start, end(60_000), { type: 'start', task: 'zz', at: 0 }],
      /an event of no task/,
    ],
  ])('%s is caught', (_, events, message) => {
    expect(brokenInvariants(events as SeenEvent[], [task]).join('\n')).toMatch(message);
  });
});
