/**
 * A badge's taps on their way to the stub (badge.ts): each tap's fate (lost, delayed,
 * duplicated: a behaviour's draws or one given to `tap`), the button frames waiting to leave on
 * the badge's clock, what became of them, and which alerts a button frame named until their
 * stop (so a stop nobody tapped for is known as a control tap). A snapshot keeps all of it.
 */
import type { Clock, TimerId } from '../clock/clock.ts';
import type { BadgeState, SavedTimer, TapCounts } from './badge-types.ts';
import type { TapFate } from './device-faults.ts';

/**
 * Button frames of a badge waiting to leave (delayed or spaced taps) at a time; a tap beyond
 * it is lost (docs/decisions.md DF4).
 */
export const TAPS_IN_FLIGHT_CAP = 100;

type PendingClock = Clock & { pending?(id: TimerId | undefined): SavedTimer | undefined };

export class BadgeTaps {
  readonly counts: TapCounts = { made: 0, sent: 0, lost: 0, delayed: 0, duplicated: 0, control: 0 };
  /** The fate of each tap by its number (a behaviour's tap faults). */
  #fates: ((tap: number) => TapFate | undefined) | undefined;
  /** The fate `tap(taskId, fate)` gave the tap being made. */
  given: TapFate | undefined;
  /** Timers of button frames waiting to leave (and the alert each names), at most TAPS_IN_FLIGHT_CAP. */
  readonly #inFlight = new Map<TimerId, string | undefined>();
  /**
   * Alerts a button frame of this badge named, until their stop: an `acknowledged` stop for
   * any other was the stub's doing (a control tap). At most TAPS_IN_FLIGHT_CAP, oldest out.
   */
  readonly #tappedFor = new Set<string>();

  constructor(
    readonly clock: Clock,
    /** Sends a button frame; false when it could not leave (offline). */
    readonly sendFrame: (taskId: string | undefined) => boolean,
  ) {}

  /** Decides the fate of each tap by its number (1 the first); returns the function that stops it. */
  setFates(fateOf: (tap: number) => TapFate | undefined): () => void {
    this.#fates = fateOf;
    return () => {
      if (this.#fates === fateOf) this.#fates = undefined;
    };
  }

  /**
   * A tap's button frame, as its fate has it: every fate is drawn (so the pattern of a seed
   * does not depend on the steps), a fate given to `tap` wins. Delays and gaps run on the
   * badge's clock; a frame due while offline is lost.
   */
  button(taskId: string | undefined): void {
    const number = ++this.counts.made;
    const drawn = this.#fates?.(number);
    const fate = this.given ?? drawn;
    if (fate?.lose) {
      this.counts.lost++;
      return;
    }
    const copies = fate?.copies ?? 1;
    const delayMs = fate?.delayMs ?? 0;
    if (copies > 1) this.counts.duplicated++;
    if (delayMs > 0) this.counts.delayed++;
    for (let copy = 0; copy < copies; copy++) {
      const dueMs = delayMs + copy * (fate?.gapMs ?? 0);
      if (dueMs === 0) this.#send(taskId);
      else if (this.#inFlight.size >= TAPS_IN_FLIGHT_CAP) this.counts.lost++;
      else this.#sendIn(dueMs, taskId);
    }
  }

  /** A button frame leaves in `dueMs` of the badge's clock. */
  #sendIn(dueMs: number, taskId: string | undefined): void {
    const timer = this.clock.setTimer(dueMs, () => {
      this.#inFlight.delete(timer);
      this.#send(taskId);
    });
    this.#inFlight.set(timer, taskId);
  }

  #send(taskId: string | undefined): void {
    if (!this.sendFrame(taskId)) {
      this.counts.lost++;
      return;
    }
    this.counts.sent++;
    if (taskId === undefined) return;
    this.#tappedFor.delete(taskId);
    this.#tappedFor.add(taskId);
    if (this.#tappedFor.size > TAPS_IN_FLIGHT_CAP)
      this.#tappedFor.delete(this.#tappedFor.values().next().value!);
  }

  /**
   * A stop: true when it is an `acknowledged` one that no button frame of this badge asked
   * for (made for it at the stub, through the control API), counted as a control tap.
   */
  stopped(taskId: string, cause: string): boolean {
    const tapped = this.#tappedFor.delete(taskId);
    if (cause !== 'acknowledged' || tapped) return false;
    this.counts.control++;
    return true;
  }

  /** The connection closed: a stop that did not come before it will not come. */
  forgetTapped(): void {
    this.#tappedFor.clear();
  }

  /** Stops for good: no button frame is left to leave. */
  dispose(): void {
    for (const timer of this.#inFlight.keys()) this.clock.clearTimer(timer);
    this.#inFlight.clear();
  }

  /** What a snapshot keeps of the taps (decision FS2). */
  save(): Pick<BadgeState, 'taps' | 'tappedFor' | 'buttons'> {
    const clock = this.clock as PendingClock;
    return {
      taps: { ...this.counts },
      tappedFor: [...this.#tappedFor],
      buttons: [...this.#inFlight].flatMap(([id, taskId]) => {
        const timer = clock.pending?.(id);
        return timer ? [{ ...timer, taskId: taskId ?? null }] : [];
      }),
    };
  }

  /** A snapshot's counts and alerts tapped for; its button frames come back with `savedTimers`. */
  load(state: Pick<BadgeState, 'taps' | 'tappedFor'>): void {
    Object.assign(this.counts, state.taps);
    for (const taskId of state.tappedFor) this.#tappedFor.add(taskId);
  }

  /** The button frames a snapshot saved, each with the function that sets it again (FS4). */
  savedTimers(state: Pick<BadgeState, 'buttons'>): (SavedTimer & { arm(): void })[] {
    return state.buttons.map((b) => ({
      ...b,
      arm: () => this.#sendIn(b.due - this.clock.now(), b.taskId ?? undefined),
    }));
  }
}
