import type { StateReport } from './badge.machine.ts';
import type { BadgeLink } from './transport.ts';

/** In real or scaled time, state reports go at most this often (real ms). */
const TELEMETRY_COALESCE_MS = 250;

/**
 * A badge's state reports, which are telemetry. On a virtual clock they go at once (tests read
 * them); in real or scaled time they are coalesced, the latest at most every 250 ms, as devices
 * batch telemetry: a fan-out to thousands of badges is not slowed by thousands of reports.
 * One timer for every badge of the process sends what is waiting, every 250 ms while anything
 * is: a badge sends at most once a round, and a fan-out does not make a timer per badge.
 */
export class BadgeTelemetry {
  readonly #link: BadgeLink;
  /** The latest state report not yet sent (real or scaled time). */
  #latest: StateReport | undefined;
  /** Badges of this process with a state report waiting; one timer sends them all. */
  static readonly #due = new Set<BadgeTelemetry>();
  static #timer: NodeJS.Timeout | undefined;

  constructor(link: BadgeLink) {
    this.#link = link;
  }

  report(frame: StateReport): void {
    if (this.#link.answerFrames) {
      this.#link.send(frame);
      return;
    }
    this.#latest = frame;
    BadgeTelemetry.#due.add(this);
    // Real time, by design: coalescing is about the wire, not the simulated world.
    BadgeTelemetry.#timer ??= setTimeout(BadgeTelemetry.#sendDue, TELEMETRY_COALESCE_MS);
  }

  /** The badge stops: what waits is not sent. */
  dispose(): void {
    BadgeTelemetry.#due.delete(this);
    this.#latest = undefined;
  }

  static #sendDue(): void {
    BadgeTelemetry.#timer = undefined;
    const due = [...BadgeTelemetry.#due];
    BadgeTelemetry.#due.clear();
    for (const telemetry of due) {
      const latest = telemetry.#latest;
      telemetry.#latest = undefined;
      if (latest) telemetry.#link.send(latest);
    }
  }
}
