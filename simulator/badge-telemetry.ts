import type { StateReport } from './badge.machine.ts';
import type { BadgeLink } from './transport.ts';

/** In real or scaled time, state reports wait until the process has made none for this long (real ms)… */
export const TELEMETRY_QUIET_MS = 250;
/** …but never longer than this after the first of them began to wait (real ms). */
export const TELEMETRY_MAX_WAIT_MS = 1_000;

/**
 * A badge's state reports, which are telemetry. On a virtual clock they go at once (tests read
 * them). In real or scaled time they are batched as devices batch telemetry, and commands come
 * first (decision D18): the latest report of each badge goes once the badges of this process
 * have made no new report for 250 ms, or 1 s after the first waiting one at the latest. So a
 * fan-out to thousands of badges plays on every badge before their reports are written, instead
 * of every few hundred plays waiting behind a burst of writes; a lone report goes after 250 ms,
 * as before. One timer for every badge of the process, never one a badge.
 */
export class BadgeTelemetry {
  readonly #link: BadgeLink;
  /** The latest state report not yet sent (real or scaled time). */
  #latest: StateReport | undefined;
  /** Badges of this process with a state report waiting; one timer sends them all. */
  static readonly #due = new Set<BadgeTelemetry>();
  static #timer: NodeJS.Timeout | undefined;
  /** When the first report still waiting, and the latest report, were made (performance.now()). */
  static #firstWaitingAt = 0;
  static #latestAt = 0;

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
    // Real time, by design: batching is about the wire, not the simulated world.
    const now = performance.now();
    BadgeTelemetry.#latestAt = now;
    if (BadgeTelemetry.#timer !== undefined) return;
    BadgeTelemetry.#firstWaitingAt = now;
    BadgeTelemetry.#timer = setTimeout(BadgeTelemetry.#whenQuiet, TELEMETRY_QUIET_MS);
  }

  /** The badge stops: what waits is not sent. */
  dispose(): void {
    BadgeTelemetry.#due.delete(this);
    this.#latest = undefined;
  }

  /** Sends what waits if the reports have stopped for TELEMETRY_QUIET_MS, or waited long enough. */
  static #whenQuiet(): void {
    const now = performance.now();
    const quietFor = now - BadgeTelemetry.#latestAt;
    const waited = now - BadgeTelemetry.#firstWaitingAt;
    if (quietFor < TELEMETRY_QUIET_MS && waited < TELEMETRY_MAX_WAIT_MS) {
      const wait = Math.min(TELEMETRY_QUIET_MS - quietFor, TELEMETRY_MAX_WAIT_MS - waited);
      BadgeTelemetry.#timer = setTimeout(BadgeTelemetry.#whenQuiet, Math.max(1, wait));
      return;
    }
    BadgeTelemetry.#sendDue();
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
