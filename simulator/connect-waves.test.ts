/**
 * Decision SC3: a fleet connects its badges a window at a time; each badge welcomed or failed
 * lets the next start, and one that hangs (a stub that takes the socket but never answers)
 * holds its place only for a bounded real time (a transport guard, on fake timers here).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CONNECT_SLOT_MS, connectInWaves } from './fleet.ts';

/** A badge as the window sees it: `connect()`, and state changes it can be told of. */
function fakeBadge() {
  const listeners = new Set<(e: { state: string }) => void>();
  const badge = {
    connects: 0,
    status: 'offline',
    offlineOnPurpose: false,
    connect() {
      badge.connects++;
      badge.emit('connecting');
    },
    emit(state: string) {
      badge.status = state;
      for (const listener of [...listeners]) listener({ state });
    },
    on: (_type: string, listener: (e: { state: string }) => void) => {
      listeners.add(listener);
      return { unsubscribe: () => listeners.delete(listener) };
    },
  };
  return badge;
}

describe('connecting in waves (SC3)', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('starts a window of badges, and one more each time one is welcomed or fails', () => {
    const badges = Array.from({ length: 5 }, fakeBadge);
    const queued = new Set<unknown>();
    connectInWaves(badges as never, queued, { window: 2 });
    expect(badges.map((b) => b.connects)).toEqual([1, 1, 0, 0, 0]);
    expect(queued.size).toBe(3);
    badges[0]!.emit('idle'); // welcomed
    expect(badges.map((b) => b.connects)).toEqual([1, 1, 1, 0, 0]);
    badges[1]!.emit('offline'); // failed: it retries on its own, the next starts
    badges[2]!.emit('idle');
    expect(badges.map((b) => b.connects)).toEqual([1, 1, 1, 1, 1]);
    expect(queued.size).toBe(0);
  });

  it('a badge that never gets an answer holds its place only CONNECT_SLOT_MS of real time', () => {
    const badges = Array.from({ length: 3 }, fakeBadge);
    connectInWaves(badges as never, new Set(), { window: 1 });
    expect(badges.map((b) => b.connects)).toEqual([1, 0, 0]);
    vi.advanceTimersByTime(CONNECT_SLOT_MS - 1);
    expect(badges[1]!.connects).toBe(0);
    vi.advanceTimersByTime(1);
    expect(badges.map((b) => b.connects)).toEqual([1, 1, 0]);
    // Welcomed late: its place is not given back twice.
    badges[0]!.emit('idle');
    expect(badges[2]!.connects).toBe(0);
    badges[1]!.emit('idle');
    expect(badges[2]!.connects).toBe(1);
  });

  it('a badge sent offline while it waits, or already brought online, is not started; waiting ones count as queued', () => {
    const badges = Array.from({ length: 4 }, fakeBadge);
    const queued = new Set<unknown>();
    connectInWaves(badges as never, queued, { window: 1 });
    expect(queued.has(badges[1])).toBe(true);
    badges[1]!.offlineOnPurpose = true; // goOffline() before its turn
    badges[2]!.connect(); // comeBack() before its turn
    badges[0]!.emit('idle');
    expect(badges.map((b) => b.connects)).toEqual([1, 0, 1, 1]);
    expect(queued.size).toBe(0);
  });

  it('stops starting badges once the fleet closes', () => {
    const badges = Array.from({ length: 3 }, fakeBadge);
    const queued = new Set<unknown>();
    const stop = connectInWaves(badges as never, queued, { window: 1 });
    stop();
    expect(queued.size).toBe(0);
    badges[0]!.emit('idle');
    vi.advanceTimersByTime(CONNECT_SLOT_MS * 2);
    expect(badges.map((b) => b.connects)).toEqual([1, 0, 0]);
  });
});
