/**
 * The nearest valid word to a mistyped one, for every error that refuses a word someone wrote
 * (a scenario's fields and step kinds, behaviours, reporters, groups, users, devices, step
 * names): "did you mean device?", and the valid words when they are few enough to read.
 */

/** Valid words listed in full up to this many; past it, only the nearest is named. */
export const FEW_WORDS = 12;

/**
 * Edits from `a` to `b`: insertions, deletions, substitutions and swaps of two neighbours
 * (Damerau-Levenshtein, optimal string alignment), letters compared case-insensitively.
 */
export function editDistance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  // Three rows of the table: the one two above is what a swap of neighbours reads.
  let before = new Array<number>(t.length + 1).fill(0);
  let above = Array.from({ length: t.length + 1 }, (_, j) => j);
  let row = new Array<number>(t.length + 1).fill(0);
  for (let i = 1; i <= s.length; i++) {
    row[0] = i;
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      let best = Math.min(above[j]! + 1, row[j - 1]! + 1, above[j - 1]! + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1])
        best = Math.min(best, before[j - 2]! + 1);
      row[j] = best;
    }
    [before, above, row] = [above, row, before];
  }
  return above[t.length]!;
}

/**
 * The valid word closest to `word` when it is close enough to be a slip of the keys (one edit
 * in a short word, two from 6 letters, three from 9); the first of equals. Never `word` itself.
 */
export function nearestWord(word: string, valid: Iterable<string>): string | undefined {
  const allowed = Math.min(3, Math.max(1, Math.floor(word.length / 3)));
  let nearest: string | undefined;
  let best = allowed + 1;
  for (const candidate of valid) {
    if (candidate === word) continue;
    const distance = editDistance(word, candidate);
    if (distance < best) {
      best = distance;
      nearest = candidate;
    }
  }
  return nearest;
}

/**
 * What to say after refusing `word`: "did you mean X?" when one is near, and the valid words
 * (`what`: "fields here") when there are at most FEW_WORDS of them; empty when neither.
 * `quote` puts values in quotes as the message around them does ('Nurses').
 */
export function suggestion(
  word: string,
  valid: readonly string[],
  what: string,
  quote = false,
): string {
  const show = (w: string) => (quote ? `'${w}'` : w);
  const nearest = nearestWord(word, valid);
  const parts: string[] = [];
  if (nearest !== undefined) parts.push(`did you mean ${show(nearest)}?`);
  if (valid.length > 0 && valid.length <= FEW_WORDS) parts.push(`(${what}: ${valid.join(', ')})`);
  return parts.join(' ');
}

/** `message`, then the suggestion: "did you mean" after a colon, the list in brackets. */
export function withSuggestion(
  message: string,
  word: string,
  valid: readonly string[],
  what: string,
  quote = false,
): string {
  const hint = suggestion(word, valid, what, quote);
  return hint === '' ? message : `${message}${hint.startsWith('(') ? ' ' : ': '}${hint}`;
}
