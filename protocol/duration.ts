/** Durations as people write them: `1500ms`, `30s`, `5m`, `2h`, `7d`, or a bare number of ms. */

const UNIT_MS = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1_000, ms: 1 } as const;
const NUMBER = String.raw`\d+(?:\.\d+)?`;
/**
 * One duration: a bare number of ms, or parts with units from largest to smallest, each at
 * most once (`2h3m`, `1m30s`, as `formatDuration` writes them). Shared with the schemas.
 */
export const DURATION_SOURCE = String.raw`(?:${NUMBER}|(?=\d)(?:${NUMBER}\s*d\s*)?(?:${NUMBER}\s*h\s*)?(?:${NUMBER}\s*m(?!s)\s*)?(?:${NUMBER}\s*s\s*)?(?:${NUMBER}\s*ms)?)`;
const DURATION = new RegExp(`^${DURATION_SOURCE}$`);
const PART = /(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?/g;

/** The longest duration anything accepts: 3650 days (about 10 years), in ms. */
export const MAX_DURATION_MS = 3650 * UNIT_MS.d;
/** The longest text read as a duration (`2h3m4s5ms` is 9): longer is not one. */
export const MAX_DURATION_TEXT = 64;

/**
 * Parses a duration; returns undefined when the text is not one, when it is longer than
 * `MAX_DURATION_MS` (or than `MAX_DURATION_TEXT` characters), or when it is not a whole number
 * of milliseconds: domain time moves in whole ms (`1.5s` is one, `0.5ms` and `1.0005s` are
 * not), so a scenario runs the same in one process and against a stub in another.
 */
export function parseDuration(text: string | number): number | undefined {
  if (typeof text === 'number') return wholeInRange(text);
  if (text.length > MAX_DURATION_TEXT) return undefined;
  const trimmed = text.trim();
  if (!DURATION.test(trimmed)) return undefined;
  let ms = 0;
  for (const [, amount, unit] of trimmed.matchAll(PART))
    ms += Number(amount) * UNIT_MS[(unit ?? 'ms') as keyof typeof UNIT_MS];
  // `1.005 * 1000` is 1004.9999999999999 in binary floating point: the decimal text meant 1005.
  return wholeInRange(Math.round(ms * 1_000) / 1_000);
}

function wholeInRange(ms: number): number | undefined {
  return Number.isInteger(ms) && ms >= 0 && ms <= MAX_DURATION_MS ? ms : undefined;
}

/** Formats milliseconds the short way (`90s` → `1m30s`), for progress lines and reports. */
export function formatDuration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)}ms`;
  const parts: string[] = [];
  let rest = Math.round(ms / 1_000);
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3_600],
    ['m', 60],
  ] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  if (rest > 0 || parts.length === 0) parts.push(`${rest}s`);
  return parts.join('');
}

/** A fixed duration or a range to draw from: `12s` → {min: 12000, max: 12000}; `5s..40s`. */
export interface DurationRange {
  min: number;
  max: number;
}

/** Parses `12s` or `5s..40s`; returns undefined when the text is neither or min > max. */
export function parseDurationRange(text: string): DurationRange | undefined {
  const [low, high, ...rest] = text.split('..');
  if (rest.length > 0 || low === undefined) return undefined;
  const min = parseDuration(low);
  const max = high === undefined ? min : parseDuration(high);
  if (min === undefined || max === undefined || min > max) return undefined;
  return { min, max };
}
