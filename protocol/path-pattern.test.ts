import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { compilePathPattern, PATH_PATTERN_MAX_LENGTH, pathPatternProblem } from './path-pattern.ts';

describe('path patterns', () => {
  const alerts = '/subscribers/5f0c/api/v1/alerts';
  test.each([
    ['/subscribers/*/api/v1/alerts', alerts, true],
    ['/subscribers/{subscriber_id}/api/v1/alerts', alerts, true],
    ['subscribers/*/api/v1/alerts', alerts, true],
    ['**/alerts', alerts, true],
    ['**', alerts, true],
    ['**', '/', true],
    ['/subscribers/**/alerts', alerts, true],
    ['/subscribers/**', '/subscribers', true],
    ['**/alerts', `${alerts}/abc`, false],
    ['/subscribers/*/alerts', alerts, false],
    ['/subscribers/*/api/v1/alerts', `${alerts}?x=1`, true],
    ['/subscribers/*/api/v1/events', alerts, false],
    ['/valueOf', '/valueOf', true],
    ['/__proto__', '/constructor', false],
  ])('%s against %s: %s', (pattern, path, expected) => {
    expect(compilePathPattern(pattern)(path)).toBe(expected);
  });

  test.each([
    ['', 'is empty'],
    ['/a?b=1', 'query'],
    ['/al*rts', "'*' and '**' stand alone"],
    ['/a\u0000', 'control character'],
    ['/'.repeat(PATH_PATTERN_MAX_LENGTH + 1), `at most ${PATH_PATTERN_MAX_LENGTH}`],
  ])('%j is refused: %s', (pattern, words) => {
    expect(pathPatternProblem(pattern)).toContain(words);
    expect(() => compilePathPattern(pattern)).toThrow(words);
  });

  test('many ** against a long path that does not match answers (no backtracking to hang on)', () => {
    // Backtracking would try some 2,000^50 splits; the segment walk does 101 × 2,001 steps.
    expect(compilePathPattern(`${'/**/a'.repeat(50)}/b`)('/a'.repeat(2_000))).toBe(false);
  });

  test('a literal pattern matches exactly its own path', () => {
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[a-z0-9_.-]{1,8}$/), { maxLength: 6 }), (parts) => {
        const path = `/${parts.join('/')}`;
        expect(compilePathPattern(path)(path)).toBe(true);
        expect(compilePathPattern(`${path}/x`)(path)).toBe(false);
        expect(compilePathPattern('**')(path)).toBe(true);
      }),
    );
  });
});
