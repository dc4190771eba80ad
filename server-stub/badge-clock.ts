/**
 * The stub's clock as badges are told it: `now` in whole ms in the frames that carry it, a
 * `clock` frame after a jump or a mode switch, and one when the instant a badge's `wake` asked
 * for comes. Each frame holds the virtual clock until the badge has handled it (clock-holds.ts).
 */
import type { VirtualClock } from '../clock/clock.ts';
import type { ClockHolds } from './clock-holds.ts';
import type { Connection } from './device-connection.ts';

export class BadgeClock {
  readonly #clock: VirtualClock;
  readonly #holds: ClockHolds;

  constructor(clock: VirtualClock, holds: ClockHolds) {
    this.#clock = clock;
    this.#holds = holds;
  }

  /** The stub's clock as frames tell it: whole ms (a running clock reads fractions). */
  now(): number {
    return Math.floor(this.#clock.now());
  }

  /** Sends a badge the stub's clock: now, mode and scale. */
  tell(connection: Connection): void {
    const { mode, scale } = this.#clock.state;
    const now = this.now();
    connection.told = now;
    this.#holds.send(connection, { type: 'clock', now, mode, scale });
  }

  /**
   * A new wake replaces the previous one. A wake at or before the last instant this badge was
   * told asks for a time it already knows: answered (`handled`), and nothing is sent or set.
   * Else a badge that answers every clock frame with a wake at that frame's `now` would have
   * the stub send clock frames at one instant for ever, holding an advance (W8).
   */
  wake(connection: Connection, at: number): void {
    const clock = this.#clock;
    clock.clearTimer(connection.wakeTimer);
    connection.wakeTimer = undefined;
    if (connection.told !== undefined && at <= connection.told) return;
    connection.wakeTimer = clock.setTimer(at - clock.now(), () => {
      connection.wakeTimer = undefined;
      if (connection.open) this.tell(connection);
    });
  }
}
