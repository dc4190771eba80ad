/** The longest delay `setTimeout` keeps; a longer one fires after 1 ms. */
const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/** A delay `setTimeout` takes as given: from 0 to 2^31 − 1 ms. */
export function timerDelay(ms: number): number {
  return Math.min(Math.max(0, ms), MAX_TIMER_DELAY_MS);
}
