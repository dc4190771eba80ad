/**
 * Task and event ids are the stream's draws written as the service writes ids: a task id is 22
 * draws, each a base-62 digit (`draw % 62`); an event id is 4 draws, each 8 lowercase hex
 * digits, high first. Seeded runs and scenarios pin these ids, so however `IdSource` builds
 * them (decision 6), they must stay these exact characters.
 */
import { expect, test } from 'vitest';
import { IdSource } from './ids.ts';
import { Sfc32, seedBytes } from './seeded-random.ts';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** The ids as the stream's draws define them, written the plainest way. */
function referenceIds(stream: Sfc32) {
  return {
    taskId: () => Array.from({ length: 22 }, () => BASE62[stream.nextUint32() % 62]).join(''),
    eventId: () =>
      Array.from({ length: 4 }, () => stream.nextUint32().toString(16).padStart(8, '0')).join(''),
  };
}

test.each([
  ['seeded', () => new IdSource(7), () => new Sfc32(seedBytes('badge-sim ids:7'))],
  [
    'unseeded (a given start)',
    () => new IdSource(undefined, new Uint8Array(16).fill(0xff)),
    () => new Sfc32(new Uint8Array(16).fill(0xff)),
  ],
])(
  '%s: task and event ids are exactly the draws of the stream, in the order asked',
  (_, make, stream) => {
    const ids = make();
    const reference = referenceIds(stream());
    for (let i = 0; i < 2_000; i++) {
      // Interleaved as an engine asks: a task, then some of its events.
      expect(ids.taskId()).toBe(reference.taskId());
      for (let e = 0; e < i % 3; e++) expect(ids.eventId()).toBe(reference.eventId());
    }
    const taskId = ids.taskId();
    const eventId = ids.eventId();
    expect(taskId).toMatch(/^[0-9A-Za-z]{22}$/);
    expect(eventId).toMatch(/^[0-9a-f]{32}$/);
  },
);

test('an event id shows leading zeros of a draw (8 digits a draw, always)', () => {
  // Over 4,000 draws, some begin with a zero nibble (1 in 16): each still gives 8 digits.
  const ids = new IdSource(3);
  const reference = referenceIds(new Sfc32(seedBytes('badge-sim ids:3')));
  let sawLeadingZero = false;
  for (let i = 0; i < 1_000; i++) {
    const id = ids.eventId();
    expect(id).toBe(reference.eventId());
    for (let d = 0; d < 32; d += 8) sawLeadingZero ||= id[d] === '0';
  }
  expect(sawLeadingZero).toBe(true);
});
