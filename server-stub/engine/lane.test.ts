import { expect, test } from 'vitest';
import { Lane } from './lane.ts';

const entry = (name: string) => ({ name, inLane: false });

test('the oldest entry still in the lane is its head; entries leave from anywhere', () => {
  const lane = new Lane<ReturnType<typeof entry>>();
  const [a, b, c, d] = ['a', 'b', 'c', 'd'].map(entry) as [
    ReturnType<typeof entry>,
    ReturnType<typeof entry>,
    ReturnType<typeof entry>,
    ReturnType<typeof entry>,
  ];
  for (const e of [a, b, c, d]) lane.add(e);
  expect(lane.size).toBe(4);
  expect(lane.head()).toBe(a);
  expect(lane.remove(c)).toBe(true); // from the middle: the head stays
  expect(lane.head()).toBe(a);
  expect(lane.remove(c)).toBe(false); // twice: not in it any more
  expect(lane.remove(a)).toBe(true);
  expect(lane.head()).toBe(b); // c left, so after b comes d
  lane.remove(b);
  expect(lane.head()).toBe(d);
  lane.remove(d);
  expect(lane.size).toBe(0);
  expect(lane.head()).toBeUndefined();
});

test('a lane whose head stays while 100,000 others come and go keeps their order and lets the dead go', () => {
  const lane = new Lane<ReturnType<typeof entry>>();
  const head = entry('head');
  lane.add(head);
  const waiting: ReturnType<typeof entry>[] = [];
  for (let i = 0; i < 100_000; i++) {
    const e = entry(String(i));
    lane.add(e);
    waiting.push(e);
    // Every other one leaves from the middle (a queued alert that timed out).
    if (i % 2 === 1) lane.remove(waiting.splice(waiting.length - 2, 1)[0]!);
  }
  expect(lane.size).toBe(1 + waiting.length);
  expect(lane.size).toBe(50_001);
  // What is held stays within about twice what is in the lane (the dead are swept out).
  expect(lane.held).toBeLessThanOrEqual(2 * lane.size + 64);
  expect(lane.head()).toBe(head);
  lane.remove(head);
  // Then they play in the order they arrived.
  const order: string[] = [];
  for (let e = lane.head(); e; e = lane.head()) {
    order.push(e.name);
    lane.remove(e);
  }
  expect(order).toEqual(waiting.map((e) => e.name));
  expect(lane.held).toBe(0);
});

test('a lane that is always played from its head does not keep what played before', () => {
  const lane = new Lane<ReturnType<typeof entry>>();
  let previous = entry('0');
  lane.add(previous);
  for (let i = 1; i < 10_000; i++) {
    const next = entry(String(i));
    lane.add(next);
    expect(lane.head()).toBe(previous);
    lane.remove(previous);
    previous = next;
  }
  expect(lane.head()).toBe(previous);
  expect(lane.held).toBeLessThanOrEqual(64);
});
