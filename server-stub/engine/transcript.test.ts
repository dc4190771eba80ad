/** A device's transcript as a ring (docs/decisions.md H2): order, the cap, the retention edge. */
import { describe, expect, it } from 'vitest';
import type { DeviceCommand } from './alert-engine.ts';
import { Transcript } from './transcript.ts';

const stop = (taskId: string): DeviceCommand => ({ type: 'stop', taskId, cause: 'quorum' });
const ids = (t: Transcript) => [...t.lines()].map((l) => (l.command as { taskId: string }).taskId);

describe('Transcript', () => {
  it('keeps lines oldest first as it grows past its first buffer', () => {
    const t = new Transcript(1_000);
    for (let i = 0; i < 40; i++) t.add(i, stop(`t${i}`));
    expect(t.size).toBe(40);
    expect(ids(t)).toEqual(Array.from({ length: 40 }, (_, i) => `t${i}`));
    expect([...t.lines()].map((l) => l.atMs)).toEqual(Array.from({ length: 40 }, (_, i) => i));
  });

  it('at its cap drops the oldest line for each new one, in order across the wrap', () => {
    const t = new Transcript(10);
    for (let i = 0; i < 25; i++) t.add(i, stop(`t${i}`));
    expect(t.size).toBe(10);
    expect(ids(t)).toEqual(Array.from({ length: 10 }, (_, i) => `t${i + 15}`));
    expect(t.dropped).toBe(15);
  });

  it("refilled from a snapshot's lines: as if added one by one, past its cap and after", () => {
    const at = Array.from({ length: 25 }, (_, i) => i);
    const loaded = new Transcript(10);
    loaded.load(at, (i) => stop(`t${i}`));
    const added = new Transcript(10);
    for (const i of at) added.add(i, stop(`t${i}`));
    expect([ids(loaded), loaded.dropped]).toEqual([ids(added), 15]);
    const roomy = new Transcript(1_000);
    roomy.load(at, (i) => stop(`t${i}`));
    roomy.add(25, stop('t25'));
    expect(ids(roomy)).toEqual(Array.from({ length: 26 }, (_, i) => `t${i}`));
  });

  it('dropBefore keeps a line exactly at the cutoff and drops the ones before it', () => {
    const t = new Transcript(10);
    for (let i = 0; i < 8; i++) t.add(i * 10, stop(`t${i}`));
    t.dropBefore(30);
    expect(ids(t)).toEqual(['t3', 't4', 't5', 't6', 't7']);
    expect(t.dropped).toBe(3);
    // Still a ring: more lines after a drop keep their order.
    for (let i = 8; i < 20; i++) t.add(i * 10, stop(`t${i}`));
    expect(ids(t)).toEqual(Array.from({ length: 10 }, (_, i) => `t${i + 10}`));
    t.dropBefore(1_000);
    expect(t.size).toBe(0);
    expect(t.dropped).toBe(20);
    expect(ids(t)).toEqual([]);
  });
});
