/**
 * What a badge keeps of its past (decision H4): a ring that keeps the newest `cap` entries in
 * order and counts what it drops, and a fleet's budget shared between its badges.
 */
import { describe, expect, test } from 'vitest';
import { FLEET_HEARD_BUDGET, keptPerBadge } from './fleet-options.ts';
import { KeptLog } from './kept-log.ts';

const entries = (log: KeptLog<string>) => log.map((at, value) => `${value}@${at}`);

describe('KeptLog', () => {
  test("refilled from a snapshot's columns: the newest cap entries, the rest added to its dropped count", () => {
    const log = new KeptLog<string>(2);
    const values = ['a', 'b', 'c'];
    log.load([10, 20, 30], (i) => values[i]!, 5);
    expect(entries(log)).toEqual(['b@20', 'c@30']);
    expect(log.dropped).toBe(6);
    const none = new KeptLog<string>(0);
    none.load([10, 20], (i) => values[i]!, 1);
    expect([entries(none), none.dropped]).toEqual([[], 3]);
  });

  test('keeps the newest cap entries, oldest first, across many turns of the ring, and counts the rest', () => {
    const log = new KeptLog<string>(3);
    for (let i = 0; i < 11; i++) log.push(i, `v${i}`);
    expect(entries(log)).toEqual(['v8@8', 'v9@9', 'v10@10']);
    expect(log.size).toBe(3);
    expect(log.dropped).toBe(8);
    expect(log.last()).toBe('v10');
  });

  test('drops what is older than a cutoff, wherever the ring starts, and goes on in order', () => {
    const log = new KeptLog<string>(4);
    for (let i = 0; i < 6; i++) log.push(i * 10, `v${i}`);
    log.dropBefore(35);
    expect(entries(log)).toEqual(['v4@40', 'v5@50']);
    expect(log.dropped).toBe(4);
    log.dropBefore(35); // nothing older now: nothing more counted
    expect(log.dropped).toBe(4);
    for (let i = 6; i < 9; i++) log.push(i * 10, `v${i}`);
    expect(entries(log)).toEqual(['v5@50', 'v6@60', 'v7@70', 'v8@80']);
    expect(log.dropped).toBe(5);
  });

  test('replaces the newest entry (a clip cut short), and a cap of 0 keeps nothing but counts', () => {
    const log = new KeptLog<string>(2);
    log.replaceLast('nothing yet');
    expect(log.size).toBe(0);
    log.push(1, 'a');
    log.push(2, 'b');
    log.push(3, 'c');
    log.replaceLast('c cut');
    expect(entries(log)).toEqual(['b@2', 'c cut@3']);
    const none = new KeptLog<string>(0);
    none.push(1, 'a');
    expect(entries(none)).toEqual([]);
    expect(none.dropped).toBe(1);
    expect(() => new KeptLog(-1)).toThrow(RangeError);
  });
});

describe("a fleet's budget", () => {
  test('is shared equally: a small fleet keeps the full caps, a large one a share, never less than 1', () => {
    expect(keptPerBadge(3)).toEqual({ heard: 1_000, activity: 1_000 });
    expect(keptPerBadge(1_000)).toEqual({ heard: 100, activity: 100 });
    expect(keptPerBadge(30_000)).toEqual({ heard: 3, activity: 3 });
    expect(keptPerBadge(FLEET_HEARD_BUDGET * 2)).toEqual({ heard: 1, activity: 1 });
  });
});
