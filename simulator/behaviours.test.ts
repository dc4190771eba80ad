/**
 * Scripted behaviours against a fake badge that records what it is told to do and when
 * (ms since the behaviour started, on a virtual clock), and lets the test start alert plays.
 */
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../clock/clock.ts';
import { draw, seededRandom } from '../protocol/seeded-random.ts';
import { type Behaviour, type BehaviourTarget, runBehaviour } from './behaviours.ts';

function fakeBadge(clock: VirtualClock) {
  const t0 = clock.now();
  const at = () => clock.now() - t0;
  const calls: string[] = [];
  const listeners = new Set<(taskId: string, repeat: number) => void>();
  let battery = 100;
  const target: BehaviourTarget = {
    tap: (taskId) => calls.push(`tap ${taskId ?? '-'}@${at()}`),
    goOffline: () => calls.push(`offline@${at()}`),
    vanish: () => calls.push(`vanish@${at()}`),
    comeBack: () => calls.push(`back@${at()}`),
    onAlertPlay: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    setTapFates: () => () => {},
    setTapRule: (rule) => calls.push(`rule ${rule}@${at()}`),
    get batteryLevel() {
      return battery;
    },
    setBattery: (level) => {
      battery = level;
      calls.push(`battery ${level}@${at()}`);
    },
  };
  /** An alert play starts on the badge. */
  const play = (taskId: string, repeat: number) => {
    for (const listener of listeners) listener(taskId, repeat);
  };
  return { target, calls, play, listeners };
}

function start(behaviour: Behaviour, random: () => number = seededRandom('test')) {
  const clock = new VirtualClock();
  const badge = fakeBadge(clock);
  const stop = runBehaviour(badge.target, behaviour, clock, random);
  return { clock, ...badge, stop };
}

/** The times of the taps, in ms since start, for one alert played at 0 per task. */
async function ackDelays(behaviour: Behaviour, random: () => number, tasks: number) {
  const run = start(behaviour, random);
  for (let i = 0; i < tasks; i++) run.play(`T${i}`, 0);
  await run.clock.advanceBy(3_600_000);
  expect(run.calls).toHaveLength(tasks);
  return Array.from({ length: tasks }, (_, i) => {
    const call = run.calls.find((c) => c.startsWith(`tap T${i}@`));
    expect(call).toBeDefined();
    return Number(call!.split('@')[1]);
  });
}

describe('ack after a delay, while off the network', () => {
  it('a tap that would fall while offline is not sent; the next play of the alert starts the delay again', async () => {
    const clock = new VirtualClock();
    const badge = fakeBadge(clock);
    let online = true;
    const target = Object.defineProperty({ ...badge.target }, 'online', { get: () => online });
    runBehaviour(target, { ack: { after: '12s' } }, clock, seededRandom('x'));
    badge.play('A', 0);
    await clock.advanceBy(5_000);
    online = false;
    await clock.advanceBy(10_000);
    expect(badge.calls).toEqual([]);
    online = true;
    badge.play('A', 3);
    await clock.advanceBy(12_000);
    expect(badge.calls).toEqual(['tap A@27000']);
  });
});

describe('ack after a fixed delay', () => {
  it('taps the task 12 s after its first play, exactly', async () => {
    const run = start({ ack: { after: '12s' } });
    await run.clock.advanceBy(3_000);
    run.play('A', 0);
    await run.clock.advanceBy(11_999);
    expect(run.calls).toEqual([]);
    await run.clock.advanceBy(1);
    expect(run.calls).toEqual(['tap A@15000']);
  });

  it('taps only once per task however many plays of it come', async () => {
    const run = start({ ack: { after: '12s' } });
    run.play('A', 0);
    await run.clock.advanceBy(5_000);
    run.play('A', 1);
    await run.clock.advanceBy(10_000);
    run.play('A', 2);
    await run.clock.advanceBy(60_000);
    expect(run.calls).toEqual(['tap A@12000']);
  });

  it('times each task from its own first play', async () => {
    const run = start({ ack: { after: '12s' } });
    run.play('A', 0);
    await run.clock.advanceBy(4_000);
    run.play('B', 0);
    run.play('A', 1);
    await run.clock.advanceBy(60_000);
    expect(run.calls).toEqual(['tap A@12000', 'tap B@16000']);
  });

  it('counts from the first play this badge hears, whatever its repeat number', async () => {
    const run = start({ ack: { after: '12s' } });
    await run.clock.advanceBy(60_000);
    run.play('A', 2);
    await run.clock.advanceBy(12_000);
    expect(run.calls).toEqual(['tap A@72000']);
  });
  it('remembers the newest 64 alerts it tapped for: a long run stays flat', async () => {
    const run = start({ ack: { after: '1s' } });
    for (let i = 0; i <= 64; i++) run.play(`T${i}`, 0);
    await run.clock.advanceBy(2_000);
    expect(run.calls).toHaveLength(65);
    // The newest are remembered: their repeats start no second tap.
    run.play('T64', 1);
    run.play('T1', 1);
    await run.clock.advanceBy(2_000);
    expect(run.calls).toHaveLength(65);
    // The oldest was forgotten: were it still playing, it would be timed anew.
    run.play('T0', 1);
    await run.clock.advanceBy(2_000);
    expect(run.calls.at(-1)).toBe('tap T0@5000');
  });
});

describe('ack after a range', () => {
  const behaviour: Behaviour = { ack: { after: '5s..40s' } };

  it('draws each delay within the range, in whole ms, and not all the same', async () => {
    const delays = await ackDelays(behaviour, seededRandom('fleet', 'dev-1'), 20);
    for (const delay of delays) {
      expect(delay).toBeGreaterThanOrEqual(5_000);
      expect(delay).toBeLessThanOrEqual(40_000);
      expect(Number.isInteger(delay)).toBe(true);
    }
    expect(new Set(delays).size).toBeGreaterThan(1);
  });

  it('draws the delays from the badge stream, one per task in play order', async () => {
    const delays = await ackDelays(behaviour, seededRandom('fleet', 'dev-1'), 5);
    const stream = seededRandom('fleet', 'dev-1');
    const expected = Array.from({ length: 5 }, () => draw(stream, { min: 5_000, max: 40_000 }));
    expect(delays).toEqual(expected);
  });

  it('gives the same delays for the same seed and other delays for another seed', async () => {
    const first = await ackDelays(behaviour, seededRandom(7, 'dev-1'), 5);
    const again = await ackDelays(behaviour, seededRandom(7, 'dev-1'), 5);
    const other = await ackDelays(behaviour, seededRandom(8, 'dev-1'), 5);
    expect(again).toEqual(first);
    expect(other).not.toEqual(first);
  });
});

describe('ack on_repeat', () => {
  it('taps exactly when play number 2 starts, not before and not again', async () => {
    const run = start({ ack: { on_repeat: 2 } });
    run.play('A', 0);
    await run.clock.advanceBy(30_000);
    run.play('A', 1);
    await run.clock.advanceBy(30_000);
    expect(run.calls).toEqual([]);
    run.play('A', 2);
    expect(run.calls).toEqual(['tap A@60000']);
    await run.clock.advanceBy(30_000);
    run.play('A', 3);
    await run.clock.advanceBy(60_000);
    expect(run.calls).toEqual(['tap A@60000']);
  });

  it('on_repeat 0 taps on the first play, for each task', async () => {
    const run = start({ ack: { on_repeat: 0 } });
    run.play('A', 0);
    await run.clock.advanceBy(1_000);
    run.play('B', 0);
    run.play('A', 1);
    expect(run.calls).toEqual(['tap A@0', 'tap B@1000']);
  });
});

describe('ack never', () => {
  it('never taps, however many plays come', async () => {
    const run = start({ ack: 'never' });
    for (let repeat = 0; repeat < 10; repeat++) {
      run.play('A', repeat);
      run.play('B', repeat);
      await run.clock.advanceBy(30_000);
    }
    await run.clock.advanceBy(3_600_000);
    expect(run.calls).toEqual([]);
  });

  it('no ack at all does not tap either', async () => {
    const run = start({});
    run.play('A', 0);
    await run.clock.advanceBy(3_600_000);
    expect(run.calls).toEqual([]);
    expect(run.clock.state.pendingTimers).toBe(0);
  });
});

describe('offline', () => {
  it("at '40s' for '2m' goes offline at 40 s and comes back at 160 s", async () => {
    const run = start({ offline: [{ at: '40s', for: '2m' }] });
    await run.clock.advanceBy(39_999);
    expect(run.calls).toEqual([]);
    await run.clock.advanceBy(1);
    expect(run.calls).toEqual(['offline@40000']);
    await run.clock.advanceBy(119_999);
    expect(run.calls).toEqual(['offline@40000']);
    await run.clock.advanceBy(1);
    expect(run.calls).toEqual(['offline@40000', 'back@160000']);
    await run.clock.advanceBy(86_400_000);
    expect(run.calls).toEqual(['offline@40000', 'back@160000']);
  });

  it('without `for` never comes back', async () => {
    const run = start({ offline: [{ at: '40s' }] });
    await run.clock.advanceBy(86_400_000);
    expect(run.calls).toEqual(['offline@40000']);
    expect(run.clock.state.pendingTimers).toBe(0);
  });

  it('several drops each happen at their own time', async () => {
    const run = start({ offline: [{ at: '1m' }, { at: '10s', for: '5s' }] });
    await run.clock.advanceBy(600_000);
    expect(run.calls).toEqual(['offline@10000', 'back@15000', 'offline@60000']);
  });

  it('times are from when the behaviour starts, not from the clock start', async () => {
    const clock = new VirtualClock();
    await clock.advanceBy(100_000);
    const badge = fakeBadge(clock);
    runBehaviour(badge.target, { offline: [{ at: '40s', for: '2m' }] }, clock, Math.random);
    await clock.advanceBy(200_000);
    expect(badge.calls).toEqual(['offline@40000', 'back@160000']);
  });
});

describe('vanish', () => {
  it("at '40s' for '2m' vanishes at 40 s and comes back at 160 s; without `for` never", async () => {
    const run = start({ vanish: [{ at: '40s', for: '2m' }, { at: '10m' }] });
    await run.clock.advanceBy(39_999);
    expect(run.calls).toEqual([]);
    await run.clock.advanceBy(1);
    expect(run.calls).toEqual(['vanish@40000']);
    await run.clock.advanceBy(86_400_000);
    expect(run.calls).toEqual(['vanish@40000', 'back@160000', 'vanish@600000']);
    expect(run.clock.state.pendingTimers).toBe(0);
  });

  it('ranges are drawn from the seed: the same seed vanishes and returns at the same times', async () => {
    const times = async (seed: string) => {
      const run = start({ vanish: [{ at: '10s..60s', for: '5s..30s' }] }, seededRandom(seed));
      await run.clock.advanceBy(600_000);
      return run.calls;
    };
    const first = await times('ward-7');
    expect(first).toEqual(await times('ward-7'));
    const [vanished, back] = first.map((call) => Number(call.split('@')[1]));
    expect(vanished).toBeGreaterThanOrEqual(10_000);
    expect(vanished).toBeLessThanOrEqual(60_000);
    expect(back! - vanished!).toBeGreaterThanOrEqual(5_000);
    expect(back! - vanished!).toBeLessThanOrEqual(30_000);
  });
});

describe('flaky', () => {
  it("every '30s' down '5s' cycles: off 30 s after coming back, on 5 s after going off", async () => {
    const run = start({ flaky: { every: '30s', down: '5s' } });
    await run.clock.advanceBy(100_000);
    expect(run.calls).toEqual([
      'offline@30000',
      'back@35000',
      'offline@65000',
      'back@70000',
      'offline@100000',
    ]);
    await run.clock.advanceBy(5_000);
    expect(run.calls.at(-1)).toBe('back@105000');
  });

  it('draws each up and down time from the seeded stream, within their ranges', async () => {
    const run = start({ flaky: { every: '10s..20s', down: '1s..3s' } }, seededRandom('flaky', 1));
    await run.clock.advanceBy(300_000);
    const stream = seededRandom('flaky', 1);
    const expected: string[] = [];
    let t = 0;
    for (;;) {
      t += draw(stream, { min: 10_000, max: 20_000 });
      if (t > 300_000) break;
      expected.push(`offline@${t}`);
      t += draw(stream, { min: 1_000, max: 3_000 });
      if (t > 300_000) break;
      expected.push(`back@${t}`);
    }
    expect(run.calls).toEqual(expected);
    expect(run.calls.length).toBeGreaterThanOrEqual(20);
  });
});

describe('the stop function', () => {
  it('cancels every pending timer and stops listening to plays', async () => {
    const run = start({
      ack: { after: '12s' },
      offline: [{ at: '40s', for: '2m' }],
      flaky: { every: '30s', down: '5s' },
    });
    run.play('A', 0);
    await run.clock.advanceBy(10_000);
    run.stop();
    expect(run.clock.state.pendingTimers).toBe(0);
    run.play('B', 0);
    await run.clock.advanceBy(3_600_000);
    expect(run.calls).toEqual([]);
    expect(run.listeners.size).toBe(0);
  });

  it('stops on_repeat taps', () => {
    const run = start({ ack: { on_repeat: 1 } });
    run.stop();
    run.play('A', 1);
    expect(run.calls).toEqual([]);
  });

  it('cancels a pending come-back and the next flaky drop', async () => {
    const run = start({
      offline: [{ at: '40s', for: '2m' }],
      flaky: { every: '30s', down: '5s' },
    });
    await run.clock.advanceBy(50_000);
    expect(run.calls).toEqual(['offline@30000', 'back@35000', 'offline@40000']);
    run.stop();
    await run.clock.advanceBy(3_600_000);
    expect(run.calls).toEqual(['offline@30000', 'back@35000', 'offline@40000']);
  });
});

describe('seededRandom', () => {
  const take = (random: () => number, n: number) => Array.from({ length: n }, () => random());

  it('gives the same stream for the same seed', () => {
    expect(take(seededRandom('fleet', 'dev-1'), 100)).toEqual(
      take(seededRandom('fleet', 'dev-1'), 100),
    );
    expect(take(seededRandom(42), 100)).toEqual(take(seededRandom(42), 100));
  });

  it('gives another stream for another seed or another device', () => {
    const base = take(seededRandom('fleet', 'dev-1'), 10);
    expect(take(seededRandom('fleet', 'dev-2'), 10)).not.toEqual(base);
    expect(take(seededRandom('other', 'dev-1'), 10)).not.toEqual(base);
  });

  it('draws values in [0, 1), spread over the interval', () => {
    const values = take(seededRandom('spread'), 10_000);
    expect(Math.min(...values)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...values)).toBeLessThan(1);
    const mean = values.reduce((sum, v) => sum + v, 0) / values.length;
    expect(mean).toBeGreaterThan(0.45);
    expect(mean).toBeLessThan(0.55);
    const tenths = new Set(values.map((v) => Math.floor(v * 10)));
    expect(tenths.size).toBe(10);
    expect(new Set(values).size).toBeGreaterThan(9_900);
  });
});

describe('draw', () => {
  it('returns whole numbers within [min, max]', () => {
    const random = seededRandom('draw');
    const range = { min: 5_000, max: 40_000 };
    const draws = Array.from({ length: 1_000 }, () => draw(random, range));
    expect(draws.every(Number.isInteger)).toBe(true);
    expect(Math.min(...draws)).toBeGreaterThanOrEqual(5_000);
    expect(Math.max(...draws)).toBeLessThanOrEqual(40_000);
    expect(Math.min(...draws)).toBeLessThan(10_000);
    expect(Math.max(...draws)).toBeGreaterThan(35_000);
  });

  it('maps the ends of the random interval onto the ends of the range', () => {
    expect(draw(() => 0, { min: 5, max: 10 })).toBe(5);
    expect(draw(() => 0.5, { min: 0, max: 10 })).toBe(5);
    expect(draw(() => 0.9999999, { min: 5, max: 10 })).toBe(10);
  });

  it('returns the fixed value of a range with min = max', () => {
    expect(draw(seededRandom('x'), { min: 12_000, max: 12_000 })).toBe(12_000);
  });
});
