/**
 * Seeded outputs that users rely on, pinned (docs/decisions.md Y3): the task id the README
 * shows for `--seed 0`, and the instants the catalogue's random-delay scenario expects. Both
 * come from the one seeded generator (protocol/seeded-random.ts); changing it changes them.
 */
import { expect, test } from 'vitest';
import { IdSource } from '../protocol/ids.ts';
import { draw, seededRandom } from '../protocol/seeded-random.ts';

test('the README task id for seed 0 and the catalogue ack instants for seed 4 stay the same', () => {
  // README, "Worked example on the virtual clock": the first task id of `stub --seed 0`.
  expect(new IdSource(0).taskId()).toBe('B93MNo4RDz4wRO7wRyHPWT');
  // scenarios/catalogue/ack-after-random-delay.scenario.yaml: ack after 5s..40s, seed 4.
  const ackAt = (deviceId: string) => draw(seededRandom(4, deviceId), { min: 5_000, max: 40_000 });
  expect(['350000000000001', '350000000000002', '350000000000003'].map(ackAt)).toEqual([
    11_489, 26_049, 16_487,
  ]);
});
