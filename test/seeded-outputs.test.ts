/**
 * Seeded outputs that users rely on, pinned (docs/decisions.md Y3): the task id the README
 * shows for `--seed 0`, and the instants the catalogue's random-delay scenario expects. Each
 * comes from its own generator; changing either generator changes them.
 */
import { expect, test } from 'vitest';
import { IdSource } from '../protocol/ids.ts';
import { draw, seededRandom } from '../simulator/seeded-random.ts';

test('the README task id for seed 0 and the catalogue ack instants for seed 42 stay the same', () => {
  // README, "Worked example on the virtual clock": the first task id of `stub --seed 0`.
  expect(new IdSource(0).taskId()).toBe('B93MNo4RDz4wRO7wRyHPWT');
  // scenarios/catalogue/ack-after-random-delay.scenario.yaml: ack after 5s..40s, seed 42.
  const ackAt = (deviceId: string) => draw(seededRandom(42, deviceId), { min: 5_000, max: 40_000 });
  expect(['350000000000001', '350000000000002', '350000000000003'].map(ackAt)).toEqual([
    19_728, 13_203, 26_672,
  ]);
});
