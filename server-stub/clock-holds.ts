/**
 * The clock-hold accounting of the device gateway: on the virtual clock every frame sent to a
 * responsive badge waits for its `handled`, and the clock's settle waits until none is
 * outstanding, so a timer fires only once the badges have answered everything the previous
 * one caused. A badge that holds the clock longer than `badgeAnswerTimeoutMs` (real time) is
 * counted unresponsive: the clock goes on without it, and what it has not answered no longer
 * holds the clock, until it answers again.
 */
import type { VirtualClock } from '../clock/clock.ts';
import type { OutgoingStubFrame } from '../protocol/device-frames.schema.ts';
import type { FrameOpening } from '../protocol/numbered-frame.ts';
import { type Connection, MAX_TRACKED_FRAMES } from './device-connection.ts';
import { timerDelay } from './timer-delay.ts';

/** A badge that held the virtual clock past the bound: the clock went on without it. */
export interface ClockHold {
  deviceId: string;
  user: string;
  /** Real time the clock waited for it. */
  waitedMs: number;
  /** The bound it ran past (`badgeAnswerTimeoutMs`). */
  boundMs: number;
}

/** Bounds of `badgeAnswerTimeoutMs`: at least 1 ms, at most 60 s (below every HTTP timeout). */
export const BADGE_ANSWER_TIMEOUT_MIN_MS = 1;
export const BADGE_ANSWER_TIMEOUT_MAX_MS = 60_000;

/** Throws a RangeError naming `badgeAnswerTimeoutMs` unless it is from 1 ms to 60 s. */
export function checkBadgeAnswerTimeout(ms: number): number {
  if (!(ms >= BADGE_ANSWER_TIMEOUT_MIN_MS && ms <= BADGE_ANSWER_TIMEOUT_MAX_MS)) {
    throw new RangeError(
      `badge-sim: badgeAnswerTimeoutMs must be from ${BADGE_ANSWER_TIMEOUT_MIN_MS} to ${BADGE_ANSWER_TIMEOUT_MAX_MS} ms (1 ms to 60 s), got ${ms}`,
    );
  }
  return ms;
}

/** What the accounting tells the gateway of a badge's standing with the clock. */
export interface ClockHoldsHost {
  /** Every connection the gateway holds, hello said or not. */
  readonly all: ReadonlySet<Connection>;
  /** The badge of a connection is counted unresponsive (`waitedMs` of real time) or not. */
  unresponsive(connection: Connection, waitedMs: number): ClockHold | undefined;
  responsive(connection: Connection): void;
}

export class ClockHolds {
  /** Frames sent to responsive badges and not handled yet: what the clock waits for. */
  #outstanding = 0;
  /** Connections whose badge said they vanished (`vanished`), until they close. */
  readonly #silent = new Set<Connection>();
  /** Real time (performance.now) of the last `handled` from any badge. */
  #lastAnswer = 0;
  #waiters: (() => void)[] = [];
  readonly #holdListeners = new Set<(hold: ClockHold) => void>();

  readonly #clock: VirtualClock;
  readonly #answerTimeoutMs: number;
  readonly #host: ClockHoldsHost;

  constructor(clock: VirtualClock, answerTimeoutMs: number, host: ClockHoldsHost) {
    this.#clock = clock;
    this.#answerTimeoutMs = answerTimeoutMs;
    this.#host = host;
  }

  /** Sends a frame the clock waits on until the badge has handled it. */
  send(connection: Connection, frame: OutgoingStubFrame | FrameOpening): void {
    // Only a virtual clock waits for badges; in real or scaled time they do not answer. Nor
    // does it wait for a badge counted unresponsive.
    const track = this.#clock.mode === 'virtual' && connection.responsive;
    // A full `pending` forgets its oldest for this one: the count the clock waits on stays.
    if (track && connection.pending.size < MAX_TRACKED_FRAMES) this.#outstanding++;
    connection.send(frame, track);
  }

  /** A badge's `handled`: what it owed is paid, or an unresponsive badge answers again. */
  handled(connection: Connection, seq: number): void {
    if (connection.pending.delete(seq)) {
      this.#lastAnswer = connection.owingSince = performance.now();
      this.#settleBy(1);
      return;
    }
    // An unresponsive badge owes nothing tracked: a `handled` for any frame the stub sent it
    // (not tracked, or forgotten) is an answer, and it is responsive again: frames sent from
    // now on hold the clock again (bounded again). A seq the stub never sent changes nothing.
    if (connection.responsive || seq >= connection.sent) return;
    connection.responsive = true;
    connection.owingSince = performance.now();
    this.#host.responsive(connection);
  }

  /** A connection closed: what it owed no longer holds the clock. */
  closed(connection: Connection): void {
    this.#silent.delete(connection);
    const owed = connection.responsive ? connection.pending.size : 0;
    connection.pending.clear();
    if (owed > 0) this.#settleBy(owed);
  }

  /** Its badge will answer nothing (the network vanished under it): not waited for (SP2). */
  silent(connection: Connection): void {
    connection.silent = true;
    this.#silent.add(connection);
  }

  /** Like `settled`; resolves to whether there was anything to wait for. */
  async quiet(): Promise<boolean> {
    if (this.#outstanding === 0) return false;
    await this.settled();
    return true;
  }

  /**
   * Resolves once every frame sent to a responsive badge has been handled. When no badge has
   * answered anything for `badgeAnswerTimeoutMs` of this wait, the badges that still owe frames
   * are counted unresponsive (listeners of `onHold` hear of it) and the wait ends without them.
   * Progress of any badge keeps the wait going: a busy process answering thousands of badges
   * one after another is slow, not silent.
   */
  async settled(): Promise<void> {
    const start = performance.now();
    // What a connection known to be silent owes would only run out the bound: not waited for.
    for (const connection of this.#silent)
      if (connection.responsive && connection.pending.size > 0) this.#unresponsive(connection, 0);
    while (this.#outstanding > 0) {
      const now = performance.now();
      const deadline = Math.max(start, this.#lastAnswer) + this.#answerTimeoutMs;
      if (deadline <= now) {
        for (const connection of this.#host.all) {
          if (!connection.responsive || connection.pending.size === 0) continue;
          this.#unresponsive(connection, now - Math.max(start, connection.owingSince));
        }
        return;
      }
      await this.#quietOr(deadline - now);
    }
  }

  /** Listens for badges the clock went on without; returns a function that stops listening. */
  onHold(listener: (hold: ClockHold) => void): () => void {
    this.#holdListeners.add(listener);
    return () => this.#holdListeners.delete(listener);
  }

  /** Resolves when nothing is outstanding or after `ms` (real time), whichever comes first. */
  #quietOr(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const guard = setTimeout(() => {
        this.#waiters = this.#waiters.filter((w) => w !== done);
        resolve();
      }, timerDelay(ms));
      const done = () => {
        clearTimeout(guard);
        resolve();
      };
      this.#waiters.push(done);
    });
  }

  /** The badge held the clock past the bound: its frames stop holding it until it answers. */
  #unresponsive(connection: Connection, waitedMs: number): void {
    connection.responsive = false;
    // What it owes no longer holds the clock, and what it is sent from now on is not tracked.
    this.#outstanding -= connection.pending.size;
    connection.pending.clear();
    this.#wakeIfQuiet();
    const hold = this.#host.unresponsive(connection, waitedMs);
    if (hold) for (const listener of this.#holdListeners) listener(hold);
  }

  #settleBy(count: number): void {
    this.#outstanding -= count;
    this.#wakeIfQuiet();
  }

  #wakeIfQuiet(): void {
    if (this.#outstanding === 0) {
      const waiters = this.#waiters;
      this.#waiters = [];
      for (const resolve of waiters) resolve();
    }
  }
}
