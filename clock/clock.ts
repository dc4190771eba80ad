/**
 * The one clock (docs/architecture.md, decision 2). Domain time – alert repeats, timeouts, token
 * lifetimes, event retention and timestamps, device behaviours – reads a `Clock`, never
 * `Date.now()` or `setTimeout` directly, so that tests can run five minutes of alerting in
 * a few milliseconds and get the same result every time.
 */
import { formatTimestamp, isHoldableInstant, MAX_INSTANT } from '../protocol/timestamp.ts';

// Where instants are made whole microseconds and printed; re-exported for the clock's users.
export {
  formatTimestamp,
  isHoldableInstant,
  MAX_INSTANT,
} from '../protocol/timestamp.ts';

/** Opaque handle of a scheduled timer. */
export type TimerId = number;

export interface Clock {
  /** Current domain time in milliseconds since the Unix epoch. */
  now(): number;
  /** Calls `fire` once, `delayMs` after now. */
  setTimer(delayMs: number, fire: () => void): TimerId;
  /** Cancels a timer; unknown or already fired ids are ignored. */
  clearTimer(id: TimerId | undefined): void;
}

/** Wall-clock time. For code that has no reason to be replayed or sped up. */
export class SystemClock implements Clock {
  readonly #timers = new Map<TimerId, NodeJS.Timeout>();
  #nextId = 1;

  now(): number {
    return Date.now();
  }

  setTimer(delayMs: number, fire: () => void): TimerId {
    const id = this.#nextId++;
    const handle = setTimeout(
      () => {
        this.#timers.delete(id);
        fire();
      },
      Math.max(0, delayMs),
    );
    this.#timers.set(id, handle);
    return id;
  }

  clearTimer(id: TimerId | undefined): void {
    if (id === undefined) return;
    const handle = this.#timers.get(id);
    if (handle) clearTimeout(handle);
    this.#timers.delete(id);
  }
}

/**
 * How a `VirtualClock` moves: `virtual` only when told to (`advanceBy`/`advanceTo`);
 * `real` and `scaled` follow the wall clock from the current instant, `scale` times as fast.
 */
export type ClockMode = 'virtual' | 'real' | 'scaled';

export interface ClockState {
  mode: ClockMode;
  scale: number;
  now: number;
  pendingTimers: number;
  nextDueAt: number | null;
}

/**
 * Waits until the effects of a fired timer have settled (messages delivered and answered).
 * Resolves to `true` when it had something to wait for: then every hook runs again, because
 * what one side answered may have given the other side something new to deliver.
 */
// biome-ignore lint/suspicious/noConfusingVoidType: a hook with nothing to report may return nothing.
export type SettleHook = () => Promise<boolean | void>;

interface Timer {
  id: TimerId;
  due: number;
  seq: number;
  fire: () => void;
}

/** 1 January 2026, 00:00 UTC: the default start of virtual time, fixed for determinism. */
export const DEFAULT_VIRTUAL_START = Date.UTC(2026, 0, 1);

/**
 * A deterministic clock. Timers sit in a binary heap ordered by due time, then by the order
 * they were set. Advancing awaits every settle hook first (what was sent at this instant is
 * handled at this instant), then fires the timers in that order, one at a time, awaiting the
 * settle hooks after each, so a 30 s repeating timer fires ten times across a 300 s jump and
 * each firing sees the consequences of the one before.
 *
 * The same clock can also run on its own (`real` or `scaled` mode): a single wall-clock timer
 * is armed for the earliest due timer, and firing goes through the same ordered path.
 */
export class VirtualClock implements Clock {
  readonly #heap: Timer[] = [];
  readonly #live = new Map<TimerId, Timer>();
  readonly #settleHooks = new Set<SettleHook>();
  readonly #start: number;
  #t: number;
  #seq = 0;
  #nextId = 1;
  #mode: ClockMode = 'virtual';
  #scale = 1;
  #anchorWall = 0;
  #anchorT = 0;
  #wallTimer: NodeJS.Timeout | undefined;
  /** How many resets so far: an advance under way when one happens stops. */
  #resets = 0;
  /** Serialises advances: two callers never interleave their firings. */
  #advancing: Promise<unknown> = Promise.resolve();

  constructor(options: { start?: number } = {}) {
    this.#start = options.start ?? DEFAULT_VIRTUAL_START;
    if (!isHoldableInstant(this.#start)) {
      throw new RangeError(
        `badge-sim: the clock cannot start at ${this.#start} ms (years 0000 to 9999 only)`,
      );
    }
    this.#t = this.#start;
  }

  now(): number {
    if (this.#mode === 'virtual') return this.#t;
    const flowing = this.#anchorT + (performance.now() - this.#anchorWall) * this.#scale;
    return Math.max(this.#t, flowing);
  }

  setTimer(delayMs: number, fire: () => void): TimerId {
    const timer: Timer = {
      id: this.#nextId++,
      due: this.now() + Math.max(0, delayMs),
      seq: this.#seq++,
      fire,
    };
    this.#live.set(timer.id, timer);
    this.#push(timer);
    if (this.#mode !== 'virtual' && this.#heap[0] === timer) this.#armWallTimer();
    return timer.id;
  }

  clearTimer(id: TimerId | undefined): void {
    if (id === undefined) return;
    // Lazy deletion: the heap entry is skipped when it reaches the top, and the heap is
    // rebuilt when the dead outnumber the living, so a clock that never moves stays small.
    if (!this.#live.delete(id)) return;
    if (this.#heap.length > 1024 && this.#heap.length > 2 * this.#live.size) this.#compact();
  }

  /**
   * When a pending timer is due and its place among timers due at the same instant (the order
   * they were set), or undefined once it fired or was cleared: what a snapshot keeps of it.
   */
  pending(id: TimerId | undefined): { due: number; seq: number } | undefined {
    const timer = id === undefined ? undefined : this.#live.get(id);
    return timer && { due: timer.due, seq: timer.seq };
  }

  /** Registers a hook awaited after every fired timer; returns a function that removes it. */
  onSettle(hook: SettleHook): () => void {
    this.#settleHooks.add(hook);
    return () => this.#settleHooks.delete(hook);
  }

  get mode(): ClockMode {
    return this.#mode;
  }

  get state(): ClockState {
    return {
      mode: this.#mode,
      scale: this.#scale,
      now: this.now(),
      pendingTimers: this.#live.size,
      nextDueAt: this.nextDueAt(),
    };
  }

  /** Due time of the earliest pending timer, or null when none is pending. */
  nextDueAt(): number | null {
    this.#dropCancelledTop();
    return this.#heap[0]?.due ?? null;
  }

  /** Moves time forward by `ms`, firing every timer due on the way; resolves to the count fired. */
  advanceBy(ms: number): Promise<number> {
    if (!Number.isFinite(ms) || ms < 0) {
      return Promise.reject(new RangeError(`badge-sim: cannot advance the clock by ${ms} ms`));
    }
    return this.#serialise(async () => {
      const target = this.now() + ms;
      if (target > MAX_INSTANT) {
        throw new RangeError(
          `badge-sim: cannot advance the clock by ${ms} ms: past ${formatTimestamp(MAX_INSTANT)}`,
        );
      }
      return this.#advanceTo(target);
    });
  }

  /**
   * Moves time forward to `time` (ms since epoch); a time in the past, or past `MAX_INSTANT`,
   * is an error.
   */
  advanceTo(time: number): Promise<number> {
    return this.#serialise(async () => {
      if (!isHoldableInstant(time) || time < this.now()) {
        throw new RangeError(
          `badge-sim: cannot move the clock to ${time} ms (${formatTimestamp(time)}): it is now ${formatTimestamp(this.now())}, and it never goes past ${formatTimestamp(MAX_INSTANT)}`,
        );
      }
      return this.#advanceTo(time);
    });
  }

  /**
   * Moves forward to `time` if it is still ahead when this advance's turn comes, else does
   * nothing: for a clock that follows another, where the check must not race queued advances.
   */
  catchUpTo(time: number): Promise<number> {
    return this.#serialise(async () =>
      isHoldableInstant(time) && time > this.now() ? this.#advanceTo(time) : 0,
    );
  }

  /** Fires every timer that is due now; used by the running modes and after a mode switch. */
  runDue(): Promise<number> {
    return this.#serialise(() => this.#advanceTo(this.now()));
  }

  /**
   * Switches mode. `real` is `scaled` at 1×. Running modes flow from the current instant:
   * switching never makes time jump or go back.
   */
  setMode(mode: ClockMode, scale = 1): void {
    if (!(scale > 0) || !Number.isFinite(scale)) {
      throw new RangeError(`badge-sim: clock scale must be a positive number, got ${scale}`);
    }
    const current = this.now();
    this.#t = current;
    this.#mode = mode;
    this.#scale = mode === 'real' ? 1 : mode === 'scaled' ? scale : 1;
    this.#anchorT = current;
    this.#anchorWall = performance.now();
    this.#armWallTimer();
  }

  /**
   * Drops every timer. A virtual clock also returns to its start; a running clock keeps
   * flowing from where it is.
   */
  reset(): void {
    // An advance still settling stops where it is: the reset wins (see #advanceTo).
    this.#resets++;
    this.#heap.length = 0;
    this.#live.clear();
    if (this.#mode === 'virtual') this.#t = this.#start;
    this.#armWallTimer();
  }

  /** When a pending timer is due and its place among those due then (a world snapshot's). */
  timerInfo(id: TimerId | undefined): { due: number; order: number } | undefined {
    const timer = id === undefined ? undefined : this.#live.get(id);
    return timer && { due: timer.due, order: timer.seq };
  }

  /** As `reset`, but standing at `now`: a restored world's instant, its timers set after. */
  restart(now: number): void {
    this.reset();
    this.#t = now;
    this.#anchorT = now;
    this.#anchorWall = performance.now();
  }

  /** Stops the wall-clock timer of the running modes so a process can exit. */
  dispose(): void {
    if (this.#wallTimer) clearTimeout(this.#wallTimer);
    this.#wallTimer = undefined;
  }

  async #advanceTo(target: number): Promise<number> {
    const resets = this.#resets;
    // What was sent at this instant (a POST between two jumps) is handled at this instant.
    await this.#settle();
    let fired = 0;
    for (;;) {
      // A reset while this advance waited on the badges: the time and timers it was moving
      // through are gone, and it must not carry the clock on to its old target.
      if (this.#resets !== resets) return fired;
      this.#dropCancelledTop();
      const top = this.#heap[0];
      if (!top || top.due > target) break;
      this.#pop();
      this.#live.delete(top.id);
      if (top.due > this.#t) this.#t = top.due;
      top.fire();
      fired++;
      await this.#settle();
    }
    if (this.#resets !== resets) return fired;
    if (target > this.#t) this.#t = target;
    if (this.#mode !== 'virtual') {
      // Re-anchor so a manual jump in a running mode is kept, not undone by the wall clock.
      this.#anchorT = this.#t;
      this.#anchorWall = performance.now();
      this.#armWallTimer();
    }
    return fired;
  }

  async #settle(): Promise<void> {
    // Bounded: a pair of sides that keep answering each other is a bug, not a reason to hang.
    for (let pass = 0; pass < 1000; pass++) {
      let busy = false;
      for (const hook of this.#settleHooks) if ((await hook()) === true) busy = true;
      if (!busy) return;
    }
  }

  #serialise<T>(work: () => Promise<T>): Promise<T> {
    const next = this.#advancing.then(work, work);
    this.#advancing = next.catch(() => undefined);
    return next;
  }

  #armWallTimer(): void {
    if (this.#wallTimer) clearTimeout(this.#wallTimer);
    this.#wallTimer = undefined;
    if (this.#mode === 'virtual') return;
    const due = this.nextDueAt();
    if (due === null) return;
    const wallDelay = Math.max(0, (due - this.now()) / this.#scale);
    // Wall timers are capped so a long wait re-checks instead of overflowing setTimeout.
    this.#wallTimer = setTimeout(() => void this.runDue(), Math.min(wallDelay, 2 ** 30));
    this.#wallTimer.unref?.();
  }

  #compact(): void {
    const living = this.#heap.filter((timer) => this.#live.has(timer.id));
    this.#heap.length = 0;
    for (const timer of living) this.#push(timer);
  }

  #dropCancelledTop(): void {
    while (this.#heap.length > 0 && !this.#live.has(this.#heap[0]!.id)) this.#pop();
  }

  #push(timer: Timer): void {
    const heap = this.#heap;
    heap.push(timer);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  #pop(): void {
    const heap = this.#heap;
    const last = heap.pop()!;
    if (heap.length === 0) return;
    heap[0] = last;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < heap.length && before(heap[left]!, heap[smallest]!)) smallest = left;
      if (right < heap.length && before(heap[right]!, heap[smallest]!)) smallest = right;
      if (smallest === i) return;
      [heap[i], heap[smallest]] = [heap[smallest]!, heap[i]!];
      i = smallest;
    }
  }
}

function before(a: Timer, b: Timer): boolean {
  return a.due < b.due || (a.due === b.due && a.seq < b.seq);
}
