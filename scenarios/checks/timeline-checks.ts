/**
 * The timelines a scenario expects: its analytic events in order (`events:`) and what each
 * badge heard (`heard:`), against what happened; a mismatch is laid out as two timelines with
 * the first difference marked.
 */
import { parseDuration } from '../../protocol/duration.ts';
import type {
  EventMatcher,
  Expectations,
  HeardExpectation,
  HeardMatcher,
} from '../format/expectations.schema.ts';

/** An analytic event as a scenario sees it: times in ms from the start of the scenario. */
export interface ActualEvent {
  type: string;
  device?: string;
  status?: string;
  /** The `as` of the alert step, when it has one. */
  task?: string;
  taskId: string;
  name: string;
  at: number;
}

/** A clip a badge heard, times from the start. */
export interface ActualHeard {
  kind: string;
  text: string;
  cause?: string;
  task?: string;
  at: number;
  cut?: boolean;
}

export interface Failure {
  /** What was checked: `events`, `heard Ada Mensah (350000000000001)`, `timeline[3] answer`, … */
  what: string;
  message: string;
  expected: string[];
  actual: string[];
  /** Index in `expected` of the first difference, when there is one. */
  firstDifference?: number;
}

/** `+12.5s` */
function offset(ms: number): string {
  const s = ms / 1000;
  return `+${Number.isInteger(s) ? s : s.toFixed(3).replace(/0+$/, '')}s`;
}

function describeEvent(event: ActualEvent): string {
  const parts = [offset(event.at).padEnd(9), event.type];
  if (event.device) parts.push(`device=${event.device}`);
  if (event.status) parts.push(`status=${event.status}`);
  parts.push(`task=${event.task ?? event.taskId}`);
  if (event.name !== 'alerts') parts.push(`name=${event.name}`);
  return parts.join(' ');
}

function describeEventMatcher(m: EventMatcher): string {
  const parts = [
    m.at ? `at ${m.at}${m.within ? `±${m.within}` : ''}`.padEnd(9) : 'any time'.padEnd(9),
    m.type ?? 'any event',
  ];
  if (m.device) parts.push(`device=${m.device}`);
  if (m.status) parts.push(`status=${m.status}`);
  if (m.task) parts.push(`task=${m.task}`);
  if (m.name) parts.push(`name=${m.name}`);
  return parts.join(' ');
}

function within(
  at: string | undefined,
  tolerance: string | undefined,
  actual: number,
  defaultToleranceMs: number,
): boolean {
  if (at === undefined) return true;
  const expected = durationMs(at);
  const slack = tolerance === undefined ? defaultToleranceMs : durationMs(tolerance);
  return Math.abs(actual - expected) <= slack;
}

/**
 * A matcher's `at` or `within` in ms, parsed once: each matcher is tried against each event
 * or clip, and parsing them was most of checking the catalogue's expectations (1.5 % of its
 * CPU). The loader checked every one.
 */
function durationMs(text: string): number {
  let ms = parsedDurations.get(text);
  if (ms === undefined) {
    ms = parseDuration(text)!;
    if (parsedDurations.size >= PARSED_DURATIONS_KEPT) parsedDurations.clear();
    parsedDurations.set(text, ms);
  }
  return ms;
}
const parsedDurations = new Map<string, number>();
const PARSED_DURATIONS_KEPT = 4_096;

function eventMatches(m: EventMatcher, e: ActualEvent, toleranceMs: number): boolean {
  return (
    (m.type === undefined || m.type === e.type) &&
    (m.device === undefined || m.device === e.device) &&
    (m.status === undefined || m.status === e.status) &&
    (m.task === undefined || m.task === e.task) &&
    (m.name === undefined || m.name === e.name) &&
    within(m.at, m.within, e.at, toleranceMs)
  );
}

/** Events in order (or as a set), matched partially, optionally with no others. */
export function checkEvents(
  expectation: NonNullable<Expectations['events']>,
  events: ActualEvent[],
  toleranceMs: number,
): Failure | undefined {
  const { items, order, only } = Array.isArray(expectation)
    ? { items: expectation, order: 'strict' as const, only: false }
    : {
        items: expectation.items,
        order: expectation.order ?? 'strict',
        only: expectation.only ?? false,
      };
  const expected = items.map(describeEventMatcher);
  const actual = events.map(describeEvent);
  const what = `events (${order === 'strict' ? 'in this order' : 'in any order'}${only ? ', and no others' : ''})`;
  const fail = (message: string, firstDifference?: number): Failure => ({
    what,
    message,
    expected,
    actual,
    firstDifference,
  });

  if (order === 'strict' && only) {
    for (let i = 0; i < Math.max(items.length, events.length); i++) {
      const m = items[i];
      const e = events[i];
      if (!m) return fail(`event ${i + 1} was not expected: ${describeEvent(e!).trim()}`, i);
      if (!e) return fail(`expected event ${i + 1} (${describeEventMatcher(m)}) did not happen`, i);
      if (!eventMatches(m, e, toleranceMs)) return fail(`event ${i + 1} differs`, i);
    }
    return undefined;
  }
  if (order === 'strict') {
    let from = 0;
    for (let i = 0; i < items.length; i++) {
      const found = events.findIndex(
        (e, j) => j >= from && eventMatches(items[i]!, e, toleranceMs),
      );
      if (found < 0)
        return fail(
          `expected event ${i + 1} (${describeEventMatcher(items[i]!)}) was not found after the ones before it`,
          i,
        );
      from = found + 1;
    }
    return undefined;
  }
  const used = new Set<number>();
  for (let i = 0; i < items.length; i++) {
    const found = events.findIndex(
      (e, j) => !used.has(j) && eventMatches(items[i]!, e, toleranceMs),
    );
    if (found < 0)
      return fail(`expected event ${i + 1} (${describeEventMatcher(items[i]!)}) did not happen`, i);
    used.add(found);
  }
  if (only && used.size !== events.length) {
    const extra = events.findIndex((_, j) => !used.has(j));
    return fail(`event ${describeEvent(events[extra]!).trim()} was not expected`, items.length);
  }
  return undefined;
}

function describeHeard(h: ActualHeard): string {
  const parts = [offset(h.at).padEnd(9), h.kind.padEnd(9)];
  if (h.cause) parts.push(`(${h.cause})`);
  parts.push(JSON.stringify(h.text));
  if (h.cut) parts.push('[cut]');
  return parts.join(' ');
}

function describeHeardMatcher(m: HeardMatcher): string {
  const parts = [
    m.at ? `at ${m.at}`.padEnd(9) : 'any time'.padEnd(9),
    (m.kind ?? 'anything').padEnd(9),
  ];
  if (m.cause) parts.push(`(${m.cause})`);
  if (m.text !== undefined) parts.push(JSON.stringify(m.text));
  if (m.task) parts.push(`task=${m.task}`);
  return parts.join(' ');
}

function heardMatches(m: HeardMatcher, h: ActualHeard, toleranceMs: number): boolean {
  return (
    (m.kind === undefined || m.kind === h.kind) &&
    (m.text === undefined || m.text === h.text) &&
    (m.cause === undefined || m.cause === h.cause) &&
    (m.task === undefined || m.task === h.task) &&
    within(m.at, m.within, h.at, toleranceMs)
  );
}

/** What one badge heard: counts, the exact texts, a subsequence, or the exact sequence. */
export function checkHeard(
  who: string,
  expectation: HeardExpectation,
  heard: ActualHeard[],
  toleranceMs: number,
): Failure[] {
  const failures: Failure[] = [];
  const actual = heard.map(describeHeard);
  const what = `heard by ${who}`;
  if (expectation.count) {
    const counts = new Map<string, number>([
      ['alert', 0],
      ['broadcast', 0],
      ['speech', 0],
      ['total', heard.length],
    ]);
    for (const h of heard) counts.set(h.kind, (counts.get(h.kind) ?? 0) + 1);
    const wrong = Object.entries(expectation.count).filter(([kind, n]) => counts.get(kind) !== n);
    if (wrong.length > 0) {
      failures.push({
        what,
        message: wrong
          .map(([kind, n]) => `${kind}: expected ${n}, heard ${counts.get(kind)}`)
          .join('; '),
        expected: Object.entries(expectation.count).map(([kind, n]) => `${kind} × ${n}`),
        actual,
      });
    }
  }
  if (expectation.texts) {
    const texts = heard.map((h) => h.text);
    const first = firstMismatch(expectation.texts, texts, (a, b) => a === b);
    if (first !== undefined) {
      failures.push({
        what: `${what} (texts)`,
        message: `text ${first + 1} differs`,
        expected: expectation.texts.map((t) => JSON.stringify(t)),
        actual,
        firstDifference: first,
      });
    }
  }
  if (expectation.exactly) {
    const first = firstMismatch(expectation.exactly, heard, (m, h) =>
      heardMatches(m, h, toleranceMs),
    );
    if (first !== undefined) {
      failures.push({
        what: `${what} (exactly)`,
        message: `clip ${first + 1} differs`,
        expected: expectation.exactly.map(describeHeardMatcher),
        actual,
        firstDifference: first,
      });
    }
  }
  if (expectation.includes) {
    let from = 0;
    for (let i = 0; i < expectation.includes.length; i++) {
      const m = expectation.includes[i]!;
      const found = heard.findIndex((h, j) => j >= from && heardMatches(m, h, toleranceMs));
      if (found < 0) {
        failures.push({
          what: `${what} (includes, in order)`,
          message: `expected clip ${i + 1} (${describeHeardMatcher(m).trim()}) was not heard after the ones before it`,
          expected: expectation.includes.map(describeHeardMatcher),
          actual,
          firstDifference: i,
        });
        break;
      }
      from = found + 1;
    }
  }
  return failures;
}

function firstMismatch<E, A>(
  expected: E[],
  actual: A[],
  same: (e: E, a: A) => boolean,
): number | undefined {
  for (let i = 0; i < Math.max(expected.length, actual.length); i++) {
    if (i >= expected.length || i >= actual.length || !same(expected[i]!, actual[i]!)) return i;
  }
  return undefined;
}
