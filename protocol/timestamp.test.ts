/**
 * Instants as whole microseconds (decisions P1–P3): what is printed is read back exactly, and
 * `oldest` finds an event exactly when the event is at or after the time it names.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { EventStore } from '../server-stub/engine/event-store.ts';
import type { AnalyticEvent } from './service-api.schema.ts';
import {
  formatMicros,
  formatTimestamp,
  MAX_INSTANT,
  MIN_INSTANT,
  parseTimestamp,
  toMicros,
} from './timestamp.ts';

const T2026 = Date.UTC(2026, 0, 1);
/** The last millisecond whose microseconds are all safe integers (about 2255-06-05). */
const LAST_EXACT_MS = 9_007_199_254_739;

/** Clock instants as the clock makes them: whole ms, sub-ms fractions, near and far from 1970. */
const clockInstant = fc.oneof(
  // A running clock near now: sub-microsecond fractions.
  fc.double({ min: T2026, max: T2026 + 86_400_000, noNaN: true }),
  // A virtual clock advanced in code by fractions of a millisecond.
  fc
    .tuple(fc.integer({ min: 0, max: 10_000_000 }), fc.integer({ min: 1, max: 1_000 }))
    .map(([steps, micros]) => T2026 + steps * (micros / 1000)),
  // Anywhere the clock can stand, whole ms or not (beyond 2255 only whole ms are kept).
  fc.double({ min: MIN_INSTANT, max: MAX_INSTANT, noNaN: true }),
  fc.integer({ min: MIN_INSTANT, max: MAX_INSTANT }),
  // Around the edges of the microsecond range.
  fc.double({ min: LAST_EXACT_MS - 2, max: LAST_EXACT_MS + 2, noNaN: true }),
  fc.double({ min: -LAST_EXACT_MS - 2, max: -LAST_EXACT_MS + 2, noNaN: true }),
);

/** A timestamp naming `nanos` (since the epoch), written with `digits` fraction digits. */
function timestampOf(nanos: bigint, digits: number): string {
  const seconds = nanos / 1_000_000_000n - (nanos % 1_000_000_000n < 0n ? 1n : 0n);
  const fraction = String(nanos - seconds * 1_000_000_000n)
    .padStart(9, '0')
    .slice(0, digits);
  const whole = new Date(Number(seconds) * 1000).toISOString().slice(0, 19);
  return digits === 0 ? `${whole}Z` : `${whole}.${fraction}Z`;
}

/**
 * A clock instant, and a timestamp a client may send as `oldest` close to it (within 3 µs,
 * or a second) with 0 to 9 fraction digits.
 */
const instantAndOldest = fc
  .tuple(
    clockInstant,
    fc.oneof(fc.bigInt(-3_000n, 3_000n), fc.bigInt(-1_000_000_000n, 1_000_000_000n)),
    fc.integer({ min: 0, max: 9 }),
  )
  .map(([ms, offset, digits]) => {
    const near = exactNanos(formatTimestamp(ms)) + offset;
    const first = exactNanos(formatTimestamp(MIN_INSTANT));
    const last = exactNanos(formatTimestamp(MAX_INSTANT));
    // bigints: no Math.min/max.
    let nanos = near;
    if (nanos < first) nanos = first;
    if (nanos > last) nanos = last;
    return [ms, timestampOf(nanos, digits)] as const;
  });

/** The exact time a timestamp names, in nanoseconds: the oracle, with no rounding at all. */
function exactNanos(timestamp: string): bigint {
  const [, whole, digits = ''] = /^(.{19})(?:\.(\d+))?Z$/.exec(timestamp)!;
  return BigInt(Date.parse(`${whole}Z`)) * 1_000_000n + BigInt(digits.padEnd(9, '0'));
}

describe('instants as whole microseconds', () => {
  test('a printed instant reads back exactly: parse(format(t)) is t, and prints the same again', () => {
    fc.assert(
      fc.property(clockInstant, (ms) => {
        const micros = toMicros(ms);
        const printed = formatTimestamp(ms);
        expect(printed).toBe(formatMicros(micros));
        expect(printed).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
        expect(parseTimestamp(printed)).toBe(micros);
        expect(formatMicros(parseTimestamp(printed)!)).toBe(printed);
      }),
      { numRuns: 5_000 },
    );
  });

  test('a later instant is never printed earlier; an instant is never printed later than it is', () => {
    fc.assert(
      fc.property(clockInstant, clockInstant, (a, b) => {
        const [early, late] = a <= b ? [a, b] : [b, a];
        expect(toMicros(early)).toBeLessThanOrEqual(toMicros(late));
        expect(formatTimestamp(early) <= formatTimestamp(late)).toBe(true);
      }),
      { numRuns: 5_000 },
    );
    // Rounded down, not half-up: 0.6 µs past a microsecond prints that microsecond.
    expect(formatTimestamp(T2026 + 0.0006)).toBe('2026-01-01T00:00:00.000000Z');
    expect(formatTimestamp(T2026 + 1.0016)).toBe('2026-01-01T00:00:00.001001Z');
    expect(formatTimestamp(T2026 - 0.0004)).toBe('2025-12-31T23:59:59.999999Z');
    // Beyond 2255 an instant is a whole millisecond; the last one still shows as .999000.
    expect(formatTimestamp(MAX_INSTANT)).toBe('9999-12-31T23:59:59.999000Z');
    expect(formatTimestamp(MAX_INSTANT - 0.5)).toBe('9999-12-31T23:59:59.998000Z');
  });

  test('oldest finds an instant exactly when it is at or after the time oldest names (any digits)', () => {
    fc.assert(
      fc.property(instantAndOldest, ([ms, oldest]) => {
        const stored = toMicros(ms);
        const included = stored >= parseTimestamp(oldest)!;
        expect(included).toBe(exactNanos(formatMicros(stored)) >= exactNanos(oldest));
      }),
      { numRuns: 10_000 },
    );
    // More than six digits: rounded up to the next whole microsecond, never down.
    const at = toMicros(T2026 + 0.123);
    expect(parseTimestamp('2026-01-01T00:00:00.000123000Z')).toBe(at);
    expect(parseTimestamp('2026-01-01T00:00:00.0001229Z')).toBe(at);
    expect(parseTimestamp('2026-01-01T00:00:00.000123001Z')).toBe(at + 1);
    expect(parseTimestamp('2026-01-01T00:00:00.9999999Z')).toBe(toMicros(T2026 + 1_000));
  });

  test('oldest = t answers every event at t and none before it, in a store of close events', () => {
    const event = (i: number, at: number): AnalyticEvent => ({
      category: 'tasks',
      content: { type: 'start' },
      task: {
        id: `T${i}`,
        name: 'alerts',
        task_type: { major: 1, minor: 4, name: 'a', namespace: 's' },
      },
      event_id: String(i).padStart(32, '0'),
      timestamp: formatTimestamp(at),
    });
    fc.assert(
      fc.property(
        fc.constantFrom(T2026, LAST_EXACT_MS - 1, MAX_INSTANT - 1_000),
        // Steps of a few tenths of a microsecond to a few ms, many of them 0 (one instant).
        fc.array(fc.oneof(fc.constant(0), fc.double({ min: 0, max: 3, noNaN: true })), {
          minLength: 1,
          maxLength: 300,
        }),
        (start, steps) => {
          const store = new EventStore(7 * 24 * 3600 * 1000);
          let at = start;
          const events = steps.map((step, i) => {
            at += step;
            const e = event(i, at);
            store.append('1', at, e);
            return e;
          });
          for (const { timestamp } of events) {
            const answer = store.query('1', parseTimestamp(timestamp)!, 1_000, at);
            expect(answer.map((e) => e.event_id)).toEqual(
              events.filter((e) => e.timestamp >= timestamp).map((e) => e.event_id),
            );
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
