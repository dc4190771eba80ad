/**
 * Instants as the service prints them: ISO 8601 UTC with six fraction digits and `Z`.
 *
 * The clock runs in milliseconds, a double that carries sub-ms fractions on the real and
 * scaled clocks. Every instant that is stored or printed (an event's timestamp above all) is
 * first made a whole number of microseconds, `Micros`, and is compared, stored and printed as
 * that integer: what a client reads back as `oldest` then names exactly what was stored, and
 * `oldest = t` finds every event at `t` (docs/decisions.md P1–P3).
 *
 * A double holds every integer up to 2^53 exactly: microseconds from 1684 to 2255. Beyond that
 * (the clock holds years 0000 to 9999) an instant is kept to the whole millisecond, and its
 * `Micros` is the double nearest to that millisecond × 1000: still one value per millisecond,
 * in order, printed and read back exactly (P2).
 */

/** An instant in whole microseconds since the Unix epoch (see `toMicros` for its range). */
export type Micros = number;

/**
 * The instants the stub's clock can hold: years 0000 to 9999, where an ISO 8601 timestamp
 * keeps its four-digit year (`formatTimestamp`). The clock never moves past `MAX_INSTANT`.
 */
export const MIN_INSTANT = Date.parse('0000-01-01T00:00:00.000Z');
export const MAX_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');

/** Whether the clock can stand at `time` (finite, within `MIN_INSTANT`..`MAX_INSTANT`). */
export function isHoldableInstant(time: number): boolean {
  return Number.isFinite(time) && time >= MIN_INSTANT && time <= MAX_INSTANT;
}

/**
 * The largest whole millisecond (either side of the epoch) whose every microsecond is a safe
 * integer: 9007199254739 × 1000 + 999 ≤ 2^53 − 1. About 2255-06-05 and 1684-07-28.
 */
const MICROSECOND_RANGE_MS = Math.floor((Number.MAX_SAFE_INTEGER - 999) / 1000);

/** The last microsecond kept exactly; keys beyond it stand for whole milliseconds. */
const LAST_EXACT_MICROS = MICROSECOND_RANGE_MS * 1000 + 999;

/**
 * A clock instant (ms, possibly fractional) as whole microseconds, rounded down (towards
 * the past), so an instant is never printed later than it happened. Monotonic: a later
 * instant never gets a smaller value, so events appended in clock order stay sorted.
 */
export function toMicros(ms: number): Micros {
  const wholeMs = Math.floor(ms);
  if (Math.abs(wholeMs) > MICROSECOND_RANGE_MS) return wholeMs * 1000;
  // `ms - wholeMs` is exact; a fraction that rounds up to 1000 µs carries into the next ms.
  return wholeMs * 1000 + Math.floor((ms - wholeMs) * 1000);
}

/** The first and last instant `formatMicros` prints; anything beyond shows as the nearer end. */
const MIN_MICROS = toMicros(MIN_INSTANT);
const MAX_MICROS = toMicros(MAX_INSTANT);

/**
 * The millisecond last printed: a fan-out stamps thousands of events within one millisecond, and
 * `toISOString` costs more than the rest of `formatMicros` together.
 */
let lastMs = Number.NaN;
let lastMsText = '';

/** Prints an instant exactly: `parseTimestamp(formatMicros(t)) === t` for every `t` it makes. */
export function formatMicros(micros: Micros): string {
  // `!(a >= b)` so that NaN shows as the first instant, as it always has.
  if (!(micros >= MIN_MICROS)) micros = MIN_MICROS;
  else if (micros > MAX_MICROS) micros = MAX_MICROS;
  let wholeMs: number;
  let fraction: number;
  if (Math.abs(micros) <= LAST_EXACT_MICROS) {
    // Integer arithmetic, exact: `micros / 1000` could round up to the next millisecond.
    fraction = ((micros % 1000) + 1000) % 1000;
    wholeMs = (micros - fraction) / 1000;
  } else {
    wholeMs = Math.round(micros / 1000);
    fraction = 0;
  }
  if (wholeMs !== lastMs) {
    lastMs = wholeMs;
    lastMsText = new Date(wholeMs).toISOString().slice(0, 23);
  }
  return `${lastMsText}${String(fraction).padStart(3, '0')}Z`;
}

/** Formats a clock instant (ms) as the service does: `formatMicros(toMicros(ms))`. */
export function formatTimestamp(ms: number): string {
  if (!isHoldableInstant(ms)) ms = ms > MAX_INSTANT ? MAX_INSTANT : MIN_INSTANT;
  return formatMicros(toMicros(ms));
}

/** The fraction of a second of an ISO 8601 date-time, read here exactly (Date.parse keeps ms). */
const SECONDS_FRACTION = /^(.*T\d{2}:\d{2}:\d{2})\.(\d+)(.*)$/;

/**
 * An ISO 8601 date or date-time with a zone (as `Date.parse` reads it) as `Micros`, or
 * undefined when it is not one or names a day that does not exist (`2026-02-31`). Six
 * fraction digits are read exactly; beyond six, the instant is rounded up to the next whole
 * microsecond (P3), so that an event is found by `oldest` exactly when it is at or after it.
 */
export function parseTimestamp(text: string): Micros | undefined {
  // A poller sends the same `oldest` until new events come: the last answer is kept.
  if (text === lastParsed.text) return lastParsed.micros;
  const micros = parsedTimestamp(text);
  lastParsed = { text, micros };
  return micros;
}

let lastParsed: { text: string | undefined; micros: Micros | undefined } = {
  text: undefined,
  micros: undefined,
};

function parsedTimestamp(text: string): Micros | undefined {
  const parts = SECONDS_FRACTION.exec(text);
  const withoutFraction = parts ? `${parts[1]}${parts[3]}` : text;
  const wholeMs = Date.parse(withoutFraction);
  if (Number.isNaN(wholeMs) || !isRealDay(withoutFraction)) return undefined;
  const digits = parts?.[2] ?? '';
  const roundUp = /[1-9]/.test(digits.slice(6)) ? 1 : 0;
  // 0 to 1,000,000 µs past `wholeMs`: below a million, or exactly one rounded up.
  const micros = Number(digits.slice(0, 6).padEnd(6, '0')) + roundUp;
  const ms = wholeMs + Math.floor(micros / 1000);
  const rest = micros % 1000;
  if (Math.abs(ms) > MICROSECOND_RANGE_MS) {
    // Instants here are whole milliseconds: the first one at or after the time named.
    return (ms + (rest > 0 ? 1 : 0)) * 1000;
  }
  return ms * 1000 + rest;
}

/** Date.parse rolls 2026-02-31 over into March: a date that does not exist is refused. */
function isRealDay(text: string): boolean {
  const date = /^(\d{4})-(\d{2})-(\d{2})/.exec(text);
  if (!date) return true;
  const [year, month, day] = [Number(date[1]), Number(date[2]), Number(date[3])];
  const calendar = new Date(Date.UTC(2000, month - 1, day));
  calendar.setUTCFullYear(year);
  return calendar.getUTCMonth() === month - 1 && calendar.getUTCDate() === day;
}
