/**
 * Path patterns of the control API (faults, the request journal, `requests:` expectations):
 * a path whose segments are literal, `*` or `{name}` (any one segment) or `**` (any number of
 * segments, none included), e.g. `/subscribers/{subscriber_id}/api/v1/alerts`, or `**` then
 * `/alerts` for every path that ends in `/alerts`.
 * A pattern without a leading `/` is read as if it had one. The query string is never part of
 * the match. Matching walks segments (no regular expression is built from what a client
 * sent), in time proportional to pattern × path segments.
 */

/** Longest pattern accepted, in characters. */
export const PATH_PATTERN_MAX_LENGTH = 512;

export type PathMatcher = (path: string) => boolean;

type Segment = { kind: 'literal'; text: string } | { kind: 'one' } | { kind: 'any' };

/** Why a pattern cannot be used, or undefined when it can. */
export function pathPatternProblem(pattern: string): string | undefined {
  if (pattern.length === 0) return 'is empty: give a path such as /subscribers/*/api/v1/alerts';
  if (pattern.length > PATH_PATTERN_MAX_LENGTH)
    return `is ${pattern.length} characters long; at most ${PATH_PATTERN_MAX_LENGTH}`;
  if (/[?#]/.test(pattern)) return 'has a query or fragment: a pattern matches the path only';
  if ([...pattern].some((c) => c < ' ' || c === '\u007f')) return 'has a control character';
  for (const segment of segmentsOf(pattern)) {
    if (segment.includes('*') && segment !== '*' && segment !== '**')
      return `has '${segment}': '*' and '**' stand alone in a segment`;
  }
  return undefined;
}

/** A matcher for a pattern that `pathPatternProblem` accepted (throws on one it refuses). */
export function compilePathPattern(pattern: string): PathMatcher {
  const problem = pathPatternProblem(pattern);
  if (problem) throw new Error(`path pattern '${pattern.slice(0, 80)}' ${problem}`);
  const segments: Segment[] = segmentsOf(pattern).map((text) =>
    text === '**'
      ? { kind: 'any' }
      : text === '*' || /^\{[^{}]+\}$/.test(text)
        ? { kind: 'one' }
        : { kind: 'literal', text },
  );
  return (path) => matches(segments, segmentsOf(path.split('?', 1)[0]!));
}

function segmentsOf(path: string): string[] {
  const trimmed = path.startsWith('/') ? path.slice(1) : path;
  return trimmed === '' ? [] : trimmed.split('/');
}

/** Whether the path's segments match the pattern's: `reach[j]` is "pattern[0, i) matches path[0, j)". */
function matches(pattern: readonly Segment[], path: readonly string[]): boolean {
  let reach = new Array<boolean>(path.length + 1).fill(false);
  reach[0] = true;
  for (const segment of pattern) {
    const next = new Array<boolean>(path.length + 1).fill(false);
    for (let j = 0; j <= path.length; j++) {
      if (segment.kind === 'any') next[j] = reach[j]! || (j > 0 && next[j - 1]!);
      else if (j > 0 && reach[j - 1])
        next[j] = segment.kind === 'one' || segment.text === path[j - 1];
    }
    reach = next;
  }
  return reach[path.length]!;
}
