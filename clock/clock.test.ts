import { describe, expect, it, vi } from 'vitest';
import { formatDuration, parseDuration } from '../protocol/duration.ts';
import { IdSource } from '../protocol/ids.ts';
import { DEFAULT_VIRTUAL_START, formatTimestamp, VirtualClock } from './clock.ts';

const T0 = DEFAULT_VIRTUAL_START;

/** Arms a timer that re-arms itself every `intervalMs`; returns the times it fired at. */
function rearmingTimer(clock: VirtualClock, intervalMs: number): number[] {
  const firedAt: number[] = [];
  const arm = () =>
    clock.setTimer(intervalMs, () => {
      firedAt.push(clock.now());
      arm();
    });
  arm();
  return firedAt;
}

/** Sets one timer per label; each appends its label to the returned log when it fires. */
function labelledTimers(clock: VirtualClock, timers: [label: string, delayMs: number][]) {
  const log: string[] = [];
  const ids = timers.map(([label, delay]) => clock.setTimer(delay, () => log.push(label)));
  return { log, ids };
}

/** A settle hook that only settles after a turn of the event loop, and says so in the log. */
function slowSettleHook(log: string[]): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) =>
      setImmediate(() => {
        log.push('settled');
        resolve();
      }),
    );
}

describe('VirtualClock', () => {
  it('starts at the fixed default start in virtual mode with nothing pending', () => {
    const clock = new VirtualClock();
    expect(clock.now()).toBe(Date.UTC(2026, 0, 1));
    expect(clock.state).toEqual({
      mode: 'virtual',
      scale: 1,
      now: T0,
      pendingTimers: 0,
      nextDueAt: null,
    });
  });

  it('honours a custom start time', () => {
    const start = Date.UTC(2024, 5, 1, 12);
    expect(new VirtualClock({ start }).now()).toBe(start);
  });

  it('does not move on its own in virtual mode', async () => {
    const clock = new VirtualClock();
    const fired = vi.fn();
    clock.setTimer(0, fired);
    await new Promise((resolve) => setImmediate(resolve));
    expect(clock.now()).toBe(T0);
    expect(fired).not.toHaveBeenCalled();
  });

  describe('firing order', () => {
    it('fires timers in due order and, for equal due times, in the order they were set', async () => {
      const clock = new VirtualClock();
      const { log } = labelledTimers(clock, [
        ['30', 30],
        ['10-first', 10],
        ['20', 20],
        ['10-second', 10],
        ['0', 0],
        ['10-third', 10],
      ]);
      expect(await clock.advanceBy(100)).toBe(6);
      expect(log).toEqual(['0', '10-first', '10-second', '10-third', '20', '30']);
    });

    it('keeps due-then-set order across many timers (heap ordering)', async () => {
      const clock = new VirtualClock();
      let seed = 12345;
      const nextDelay = () => {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        return seed % 50; // few distinct due times, so many ties
      };
      const timers = Array.from({ length: 300 }, (_, i) => ({
        label: `t${i}`,
        delay: nextDelay(),
      }));
      const { log } = labelledTimers(
        clock,
        timers.map((t) => [t.label, t.delay]),
      );
      const expected = [...timers].sort((a, b) => a.delay - b.delay).map((t) => t.label);

      await clock.advanceBy(50);

      expect(log).toEqual(expected);
    });

    it('sets now() inside a callback to that timer’s due time, then to the target', async () => {
      const clock = new VirtualClock();
      const seen: number[] = [];
      clock.setTimer(7, () => seen.push(clock.now()));
      clock.setTimer(19_000, () => seen.push(clock.now()));
      await clock.advanceBy(60_000);
      expect(seen).toEqual([T0 + 7, T0 + 19_000]);
      expect(clock.now()).toBe(T0 + 60_000);
    });

    it('fires timers set during firing when they fall inside the jump, and keeps later ones', async () => {
      const clock = new VirtualClock();
      const log: string[] = [];
      clock.setTimer(10, () => {
        log.push(`outer@${clock.now() - T0}`);
        clock.setTimer(0, () => log.push(`immediate@${clock.now() - T0}`));
        clock.setTimer(5, () => log.push(`inner@${clock.now() - T0}`));
        clock.setTimer(200, () => log.push(`late@${clock.now() - T0}`));
      });

      expect(await clock.advanceBy(100)).toBe(3);

      expect(log).toEqual(['outer@10', 'immediate@10', 'inner@15']);
      expect(clock.nextDueAt()).toBe(T0 + 210);
      await clock.advanceBy(110);
      expect(log.at(-1)).toBe('late@210');
    });

    it('does not fire a timer that is due after the target', async () => {
      const clock = new VirtualClock();
      const fired = vi.fn();
      clock.setTimer(1_001, fired);
      expect(await clock.advanceBy(1_000)).toBe(0);
      expect(fired).not.toHaveBeenCalled();
      await clock.advanceBy(1);
      expect(fired).toHaveBeenCalledOnce();
    });
  });

  describe('a 30 s self-re-arming timer', () => {
    it('fires exactly 10 times in a single 300 s jump, each at its own due time', async () => {
      const clock = new VirtualClock();
      const firedAt = rearmingTimer(clock, 30_000);

      expect(await clock.advanceBy(300_000)).toBe(10);

      expect(firedAt).toEqual(Array.from({ length: 10 }, (_, i) => T0 + (i + 1) * 30_000));
      expect(clock.nextDueAt()).toBe(T0 + 330_000);
    });

    it('fires exactly 10 times across ten 30 s steps', async () => {
      const clock = new VirtualClock();
      const firedAt = rearmingTimer(clock, 30_000);

      for (let i = 0; i < 10; i++) expect(await clock.advanceBy(30_000)).toBe(1);

      expect(firedAt).toHaveLength(10);
      expect(clock.now()).toBe(T0 + 300_000);
    });
  });

  describe('clearTimer', () => {
    it('prevents a pending timer from firing', async () => {
      const clock = new VirtualClock();
      const { log, ids } = labelledTimers(clock, [
        ['a', 10],
        ['b', 20],
      ]);
      clock.clearTimer(ids[0]);
      await clock.advanceBy(100);
      expect(log).toEqual(['b']);
    });

    it('prevents firing when called from inside another timer’s callback, even at the same due time', async () => {
      const clock = new VirtualClock();
      const log: string[] = [];
      let sameTime: number | undefined;
      let later: number | undefined;
      clock.setTimer(10, () => {
        log.push('first');
        clock.clearTimer(sameTime);
        clock.clearTimer(later);
      });
      sameTime = clock.setTimer(10, () => log.push('same-time'));
      later = clock.setTimer(20, () => log.push('later'));

      await clock.advanceBy(100);

      expect(log).toEqual(['first']);
    });

    it('ignores undefined, unknown and already fired ids', async () => {
      const clock = new VirtualClock();
      const { log, ids } = labelledTimers(clock, [
        ['a', 10],
        ['b', 20],
      ]);
      await clock.advanceBy(10);
      clock.clearTimer(undefined);
      clock.clearTimer(9_999);
      clock.clearTimer(ids[0]);
      await clock.advanceBy(10);
      expect(log).toEqual(['a', 'b']);
    });
  });

  describe('advancing', () => {
    it('rejects advanceTo a time in the past and leaves the clock usable', async () => {
      const clock = new VirtualClock();
      await clock.advanceBy(1_000);
      await expect(clock.advanceTo(T0 + 999)).rejects.toThrow(RangeError);
      expect(clock.now()).toBe(T0 + 1_000);
      expect(await clock.advanceTo(T0 + 2_000)).toBe(0);
      expect(clock.now()).toBe(T0 + 2_000);
    });

    it('accepts advanceTo the current time', async () => {
      const clock = new VirtualClock();
      const fired = vi.fn();
      clock.setTimer(0, fired);
      expect(await clock.advanceTo(T0)).toBe(1);
      expect(fired).toHaveBeenCalledOnce();
    });

    it.each([-1, Number.NaN, Number.POSITIVE_INFINITY])('rejects advanceBy(%s)', async (ms) => {
      const clock = new VirtualClock();
      await expect(clock.advanceBy(ms)).rejects.toThrow(RangeError);
      expect(clock.now()).toBe(T0);
    });

    it('awaits every settle hook before the jump and after each fired timer, before firing the next', async () => {
      const clock = new VirtualClock();
      const { log } = labelledTimers(clock, [
        ['fire@10', 10],
        ['fire@20', 20],
      ]);
      clock.onSettle(slowSettleHook(log));

      await clock.advanceBy(100);

      expect(log).toEqual(['settled', 'fire@10', 'settled', 'fire@20', 'settled']);
    });

    it('a reset while an advance waits on the badges stops that advance where it is', async () => {
      const clock = new VirtualClock();
      const fired: string[] = [];
      clock.setTimer(10_000, () => fired.push('t@10s'));
      clock.setTimer(60_000, () => fired.push('t@60s'));
      // The badges take their time after the first timer: the reset comes meanwhile.
      let release: () => void = () => {};
      clock.onSettle(async () => {
        if (fired.length === 1 && clock.now() === T0 + 10_000) {
          await new Promise<void>((resolve) => {
            release = resolve;
          });
        }
      });
      const advance = clock.advanceBy(120_000);
      await vi.waitFor(() => expect(fired).toEqual(['t@10s']));
      clock.reset();
      release();
      await advance;
      // Back at the start, nothing else fired, and the old target was not carried on to.
      expect(clock.now()).toBe(T0);
      expect(fired).toEqual(['t@10s']);
      expect(clock.state.pendingTimers).toBe(0);
    });

    it('stops calling a settle hook once it is removed', async () => {
      const clock = new VirtualClock();
      const hook = vi.fn(async () => {});
      const remove = clock.onSettle(hook);
      clock.setTimer(10, () => {});
      clock.setTimer(20, () => {});
      await clock.advanceBy(10);
      // Once before the jump, once after the timer at 10.
      expect(hook).toHaveBeenCalledTimes(2);
      remove();
      await clock.advanceBy(10);
      expect(hook).toHaveBeenCalledTimes(2);
    });

    it('runs two concurrent advanceBy calls one after the other, the second from where the first ended', async () => {
      const clock = new VirtualClock();
      const { log } = labelledTimers(clock, [
        ['fire@10', 10],
        ['fire@20', 20],
        ['fire@40', 40],
        ['fire@50', 50],
      ]);
      clock.onSettle(slowSettleHook(log));

      const first = clock.advanceBy(30).then((n) => log.push(`first done (${n})`));
      const second = clock.advanceBy(30).then((n) => log.push(`second done (${n})`));
      await Promise.all([first, second]);

      expect(log).toEqual([
        'settled',
        'fire@10',
        'settled',
        'fire@20',
        'settled',
        'first done (2)',
        'settled',
        'fire@40',
        'settled',
        'fire@50',
        'settled',
        'second done (2)',
      ]);
      expect(clock.now()).toBe(T0 + 60);
    });
  });

  describe('pending timers', () => {
    it('reports nextDueAt and pendingTimers, skipping cleared timers', () => {
      const clock = new VirtualClock();
      expect(clock.nextDueAt()).toBeNull();
      const late = clock.setTimer(50, () => {});
      const early = clock.setTimer(20, () => {});
      expect(clock.nextDueAt()).toBe(T0 + 20);
      expect(clock.state.pendingTimers).toBe(2);

      clock.clearTimer(early);
      expect(clock.nextDueAt()).toBe(T0 + 50);
      expect(clock.state).toMatchObject({ pendingTimers: 1, nextDueAt: T0 + 50 });

      clock.clearTimer(late);
      expect(clock.state).toMatchObject({ pendingTimers: 0, nextDueAt: null });
    });

    it('counts a fired timer as no longer pending', async () => {
      const clock = new VirtualClock();
      clock.setTimer(10, () => {});
      clock.setTimer(20, () => {});
      await clock.advanceBy(15);
      expect(clock.state).toMatchObject({ pendingTimers: 1, nextDueAt: T0 + 20 });
    });
  });

  describe('reset', () => {
    it('drops every timer and returns to the start', async () => {
      const clock = new VirtualClock();
      const fired = vi.fn();
      clock.setTimer(10_000, fired);
      await clock.advanceBy(5_000);

      clock.reset();

      expect(clock.state).toEqual({
        mode: 'virtual',
        scale: 1,
        now: T0,
        pendingTimers: 0,
        nextDueAt: null,
      });
      expect(await clock.advanceBy(60_000)).toBe(0);
      expect(fired).not.toHaveBeenCalled();
    });

    it('in a running mode drops every timer but keeps the mode and does not go back', async () => {
      const clock = new VirtualClock();
      try {
        await clock.advanceBy(60_000);
        clock.setMode('scaled', 10);
        const fired = vi.fn();
        clock.setTimer(60_000, fired);

        clock.reset();

        expect(clock.mode).toBe('scaled');
        expect(clock.now()).toBeGreaterThanOrEqual(T0 + 60_000);
        expect(clock.state).toMatchObject({ pendingTimers: 0, nextDueAt: null });
        await clock.advanceBy(120_000);
        expect(fired).not.toHaveBeenCalled();
      } finally {
        clock.dispose();
      }
    });
  });

  describe('running modes', () => {
    it('in scaled mode at 1000× fires a timer 5 s ahead within real time', async () => {
      const clock = new VirtualClock();
      try {
        clock.setMode('scaled', 1000);
        const fired = vi.fn();
        clock.setTimer(5_000, fired);

        await vi.waitFor(() => expect(fired).toHaveBeenCalledOnce(), { timeout: 200, interval: 5 });

        expect(clock.now()).toBeGreaterThanOrEqual(T0 + 5_000);
        expect(clock.state).toMatchObject({ mode: 'scaled', scale: 1000, pendingTimers: 0 });
      } finally {
        clock.dispose();
      }
    });

    it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY])(
      'refuses setMode with scale %s and keeps the current mode',
      (scale) => {
        const clock = new VirtualClock();
        expect(() => clock.setMode('scaled', scale)).toThrow(RangeError);
        expect(clock.mode).toBe('virtual');
      },
    );
  });
});

describe('formatTimestamp', () => {
  it('writes ISO 8601 UTC with 6 fractional digits and Z', () => {
    expect(formatTimestamp(Date.UTC(2024, 7, 8, 18, 25, 40, 923))).toBe(
      '2024-08-08T18:25:40.923000Z',
    );
  });

  it('writes whole seconds with six zeros', () => {
    expect(formatTimestamp(Date.UTC(2026, 0, 1))).toBe('2026-01-01T00:00:00.000000Z');
  });

  it('keeps microseconds of a fractional millisecond', () => {
    expect(formatTimestamp(Date.UTC(2026, 0, 1) + 1.5)).toBe('2026-01-01T00:00:00.001500Z');
  });
});

describe('parseDuration', () => {
  it.each([
    ['1500ms', 1_500],
    ['30s', 30_000],
    ['5m', 300_000],
    ['2h', 7_200_000],
    ['7d', 604_800_000],
    ['250', 250],
    ['1.5s', 1_500],
    [' 30 s ', 30_000],
    ['2h3m', 7_380_000],
    ['1m30s', 90_000],
    ['1d2h3m4s5ms', 93_784_005],
    ['5m 30s', 330_000],
    ['1.005s', 1_005],
    ['0.0021m', 126],
    ['0.009h', 32_400],
    [42, 42],
    [0, 0],
  ] as const)('parses %j as %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['abc', '-5s', '', '5x', '1e3', 's', '3m2h', '1s1s', '5m5', '2h 3', '0.5ms', '1.0005s'])(
    'rejects %j',
    (text) => {
      expect(parseDuration(text)).toBeUndefined();
    },
  );

  it.each([-5, 0.5, Number.NaN, Number.POSITIVE_INFINITY])('rejects the number %s', (ms) => {
    expect(parseDuration(ms)).toBeUndefined();
  });
});

describe('parseDuration and formatDuration', () => {
  it.each([999, 1_000, 90_000, 7_380_000, 93_784_000])('read back what %d ms formats as', (ms) => {
    expect(parseDuration(formatDuration(ms))).toBe(ms);
  });
});

describe('formatDuration', () => {
  it.each([
    [0, '0ms'],
    [500, '500ms'],
    [1_000, '1s'],
    [90_000, '1m30s'],
    [300_000, '5m'],
    [7_200_000, '2h'],
    [86_400_000 + 3_600_000 + 60_000 + 1_000, '1d1h1m1s'],
  ])('formats %d ms as %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it('round-trips with parseDuration for whole units', () => {
    for (const text of ['1s', '30s', '5m', '2h', '7d']) {
      expect(formatDuration(parseDuration(text)!)).toBe(text);
    }
  });
});

describe('IdSource', () => {
  /** Interleaves task and event ids, as an engine does. */
  function draw(ids: IdSource, count = 5): string[] {
    return Array.from({ length: count }, (_, i) => (i % 2 === 0 ? ids.taskId() : ids.eventId()));
  }

  it('gives the same sequence for the same seed', () => {
    expect(draw(new IdSource(1))).toEqual(draw(new IdSource(1)));
    expect(draw(new IdSource('scenario-a'))).toEqual(draw(new IdSource('scenario-a')));
  });

  it('gives a different sequence for a different seed', () => {
    const a = draw(new IdSource(1));
    const b = draw(new IdSource(2));
    for (let i = 0; i < a.length; i++) expect(a[i]).not.toBe(b[i]);
  });

  it('writes task ids as 22 letters and digits and event ids as 32 hex digits', () => {
    const ids = new IdSource(7);
    for (let i = 0; i < 50; i++) {
      expect(ids.taskId()).toMatch(/^[A-Za-z0-9]{22}$/);
      expect(ids.eventId()).toMatch(/^[0-9a-f]{32}$/);
    }
  });

  it('never repeats an id within a sequence', () => {
    const ids = new IdSource(3);
    const seen = new Set(Array.from({ length: 1_000 }, () => ids.taskId()));
    expect(seen.size).toBe(1_000);
  });

  it('restarts the sequence on reset()', () => {
    const ids = new IdSource(9);
    const first = draw(ids);
    ids.reset();
    expect(draw(ids)).toEqual(first);
    expect(ids.seeded).toBe(true);
  });

  it('without a seed, starts somewhere new in each source (each process), and again on reset()', () => {
    const one = new IdSource();
    const two = new IdSource();
    expect(one.seeded).toBe(false);
    const first = draw(one);
    const other = draw(two);
    for (let i = 0; i < first.length; i++) expect(other[i]).not.toBe(first[i]);
    one.reset();
    const afterReset = draw(one);
    for (let i = 0; i < first.length; i++) expect(afterReset[i]).not.toBe(first[i]);
    expect(afterReset[0]).toMatch(/^[A-Za-z0-9]{22}$/);
    expect(afterReset[1]).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe('catchUpTo', () => {
  it('moves forward when the time is ahead, and does nothing (no error) when it is not', async () => {
    const clock = new VirtualClock();
    const start = clock.now();
    const fired: number[] = [];
    clock.setTimer(1_000, () => fired.push(clock.now() - start));
    expect(await clock.catchUpTo(start + 1_500)).toBe(1);
    expect(fired).toEqual([1_000]);
    expect(await clock.catchUpTo(start + 500)).toBe(0);
    expect(clock.now()).toBe(start + 1_500);
  });

  it('checks when its turn comes, so a queued advance that overtakes it causes no error', async () => {
    const clock = new VirtualClock();
    const start = clock.now();
    const later = clock.advanceTo(start + 2_000);
    const earlier = clock.catchUpTo(start + 1_000);
    await expect(Promise.all([later, earlier])).resolves.toEqual([0, 0]);
    expect(clock.now()).toBe(start + 2_000);
  });
});
