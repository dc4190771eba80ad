/**
 * The least time between a flaky badge's drops (docs/decisions.md I18): one shared check for
 * every place a behaviour enters (fixtures, scenarios, `badge-sim devices`, `startFleet`).
 * `every: 0s` would drop and reconnect at one instant for ever; `1ms` would make a scenario's
 * virtual time crawl.
 */
import { parseDurationRange } from './duration.ts';

/** 1 s of the badge's clock, at both ends of a range. */
const FLAKY_EVERY_MIN_MS = 1_000;

/**
 * Why a flaky `every` (a duration or a range `low..high`) is too short, or undefined. A text
 * that is no duration is left to the duration check, which says so.
 */
export function flakyEveryProblem(text: string): string | undefined {
  const range = parseDurationRange(text);
  if (!range || range.min >= FLAKY_EVERY_MIN_MS) return undefined;
  return `'${text}' is shorter than 1s, the least time between drops (at both ends of a range)`;
}
