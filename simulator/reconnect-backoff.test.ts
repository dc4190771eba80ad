/** The reconnect delays of a badge: bounded, doubling, jittered from a seeded stream. */
import { describe, expect, test } from 'vitest';
import { seededRandom } from '../protocol/seeded-random.ts';
import { Backoff, DEFAULT_RECONNECT } from './transport.ts';

const delays = (backoff: Backoff, n: number) => Array.from({ length: n }, () => backoff.next());

describe('reconnect backoff', () => {
  test('100 ms doubling to a 5 s cap, each delay drawn from its upper half (equal jitter); reset starts over', () => {
    expect(DEFAULT_RECONNECT).toEqual({ initialMs: 100, maxMs: 5_000 });
    expect(delays(new Backoff(DEFAULT_RECONNECT, () => 0), 9)).toEqual([
      50, 100, 200, 400, 800, 1_600, 2_500, 2_500, 2_500,
    ]);
    const highest = new Backoff(DEFAULT_RECONNECT, () => 0.999_999);
    expect(delays(highest, 9)).toEqual([100, 200, 400, 800, 1_600, 3_200, 5_000, 5_000, 5_000]);
    highest.reset();
    expect(highest.next()).toBe(100);
  });

  test('the same seed and device draw the same delays; another device draws others', () => {
    const of = (seed: number, device: string) =>
      delays(new Backoff(DEFAULT_RECONNECT, seededRandom(seed, device, 'reconnect')), 8);
    expect(of(0, '350000000000001')).toEqual(of(0, '350000000000001'));
    expect(of(0, '350000000000001')).not.toEqual(of(0, '350000000000002'));
    expect(of(0, '350000000000001')).not.toEqual(of(1, '350000000000001'));
  });
});
