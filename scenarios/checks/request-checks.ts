/**
 * `requests:` of a scenario and `toHaveReceived` in vitest: the request journal against a
 * matcher.
 */
import { ownValue } from '../../input/own.ts';
import type { JournalEntry, RequestMatcher } from '../../protocol/journal.schema.ts';
import { compilePathPattern, pathPatternProblem } from '../../protocol/path-pattern.ts';

// Requests the emulated APIs received (`requests:`, and `toHaveReceived` in vitest), checked
// against the stub's request journal as WireMock verifies: how many entries match method,
// path pattern, body fields, status and fault, against the count wanted (at least one by
// default). A mismatch shows the entries that came closest and where each differs.

/** Entries shown when a matcher fails: the closest ones, or those that matched too often. */
const SHOWN_ENTRIES = 5;

export interface RequestMismatch {
  message: string;
  /** The matcher, one line. */
  expected: string;
  /** What `actual` lists: the closest entries (too few matched) or the matching ones (too many). */
  shown: 'closest' | 'matching';
  /** Those entries, one line each; the closest with where they differ. */
  actual: string[];
}

/** Why a matcher cannot be checked (its path pattern is refused), or undefined. */
export function requestMatcherProblem(matcher: RequestMatcher): string | undefined {
  if (matcher.path === undefined) return undefined;
  const problem = pathPatternProblem(matcher.path);
  return problem && `path '${matcher.path.slice(0, 80)}' ${problem}`;
}

/**
 * Where an entry differs from a matcher, one phrase a criterion (empty when it matches); the
 * matcher's path pattern is compiled once. Throws a TypeError for a pattern that is refused.
 */
function differencesFrom(matcher: RequestMatcher): (entry: JournalEntry) => string[] {
  const problem = requestMatcherProblem(matcher);
  if (problem) throw new TypeError(`badge-sim: request matcher: ${problem}`);
  const onPath = matcher.path === undefined ? undefined : compilePathPattern(matcher.path);
  return (entry) => differences(matcher, onPath, entry);
}

function differences(
  matcher: RequestMatcher,
  onPath: ((path: string) => boolean) | undefined,
  entry: JournalEntry,
): string[] {
  const found: string[] = [];
  if (matcher.method !== undefined && matcher.method.toUpperCase() !== entry.method)
    found.push(`method ${entry.method}, expected ${matcher.method.toUpperCase()}`);
  if (onPath && !onPath(entry.path)) found.push(`path does not match ${matcher.path}`);
  if (matcher.status !== undefined && matcher.status !== entry.status)
    found.push(`status ${entry.status ?? 'none (connection closed)'}, expected ${matcher.status}`);
  if (matcher.fault !== undefined && matcher.fault !== (entry.fault !== null))
    found.push(matcher.fault ? 'no fault applied' : `fault ${entry.fault!.id} applied`);
  if (matcher.body !== undefined) {
    const difference = partialDifference(matcher.body, entry.body, 'body');
    if (difference) found.push(difference);
  }
  return found;
}

/** The entries that are requests the matcher describes (its count aside). */
export function matchingRequests(
  matcher: RequestMatcher,
  entries: readonly JournalEntry[],
): JournalEntry[] {
  const differ = differencesFrom(matcher);
  return entries.filter((entry) => differ(entry).length === 0);
}

/** The count a matcher wants, as bounds: a number is exact; default at least one. */
function countBounds(count: RequestMatcher['count']): { min: number; max: number } {
  if (typeof count === 'number') return { min: count, max: count };
  return { min: count?.min ?? (count?.max === undefined ? 1 : 0), max: count?.max ?? Infinity };
}

function describeCount(count: RequestMatcher['count']): string {
  const { min, max } = countBounds(count);
  if (min === max) return `exactly ${min}`;
  if (max === Infinity) return `at least ${min}`;
  return min === 0 ? `at most ${max}` : `${min} to ${max}`;
}

export function describeMatcher(matcher: RequestMatcher): string {
  const parts = [matcher.method?.toUpperCase() ?? 'any method', matcher.path ?? 'any path'];
  if (matcher.status !== undefined) parts.push(`status ${matcher.status}`);
  if (matcher.fault !== undefined) parts.push(matcher.fault ? 'faulted' : 'not faulted');
  if (matcher.body !== undefined) parts.push(`body ⊇ ${clip(JSON.stringify(matcher.body), 80)}`);
  parts.push(`× ${describeCount(matcher.count)}`);
  return parts.join(' ');
}

/** `#3 POST /subscribers/100001/api/v1/alerts → 400 {"notification":"x"}` */
export function describeEntry(entry: JournalEntry): string {
  const parts = [`#${entry.id}`, entry.method, entry.path, `→ ${entry.status ?? 'reset'}`];
  if (entry.fault) parts.push(`(fault ${entry.fault.id}: ${entry.fault.kind})`);
  if (entry.body !== null) parts.push(clip(JSON.stringify(entry.body), 80));
  return parts.join(' ');
}

/** Whether the journal's entries satisfy the matcher; what went wrong when they do not. */
export function checkRequestMatcher(
  matcher: RequestMatcher,
  entries: readonly JournalEntry[],
): RequestMismatch | undefined {
  const differ = differencesFrom(matcher);
  const judged = entries.map((entry) => ({ entry, differences: differ(entry) }));
  const matching = judged.filter((j) => j.differences.length === 0);
  const { min, max } = countBounds(matcher.count);
  if (matching.length >= min && matching.length <= max) return undefined;
  const expected = describeMatcher(matcher);
  const message = `${matching.length} of ${entries.length} requests matched, expected ${describeCount(matcher.count)}`;
  if (matching.length > max)
    return {
      message,
      expected,
      shown: 'matching',
      actual: matching.slice(0, SHOWN_ENTRIES).map((j) => describeEntry(j.entry)),
    };
  // Fewest differences first; the journal's order among equals.
  const closest = judged
    .filter((j) => j.differences.length > 0)
    .sort((a, b) => a.differences.length - b.differences.length)
    .slice(0, SHOWN_ENTRIES);
  return {
    message,
    expected,
    shown: 'closest',
    actual:
      closest.length === 0
        ? ['(no requests)']
        : closest.map((j) => `${describeEntry(j.entry)} — ${j.differences.join('; ')}`),
  };
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** Where `actual` fails to contain `expected` (objects: listed keys only; arrays: same length). */
export function partialDifference(
  expected: unknown,
  actual: unknown,
  path: string,
): string | undefined {
  if (expected !== null && typeof expected === 'object') {
    if (Array.isArray(expected)) {
      if (!Array.isArray(actual)) return `${path} is not an array`;
      if (actual.length !== expected.length)
        return `${path} has ${actual.length} items, expected ${expected.length}`;
      for (let i = 0; i < expected.length; i++) {
        const d = partialDifference(expected[i], actual[i], `${path}[${i}]`);
        if (d) return d;
      }
      return undefined;
    }
    if (actual === null || typeof actual !== 'object')
      return `${path} is ${JSON.stringify(actual)}, expected an object`;
    for (const [key, value] of Object.entries(expected)) {
      const d = partialDifference(value, ownValue(actual, key), `${path}.${key}`);
      if (d) return d;
    }
    return undefined;
  }
  return Object.is(expected, actual)
    ? undefined
    : `${path} is ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`;
}
