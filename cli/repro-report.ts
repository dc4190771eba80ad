/**
 * What `badge-sim repro` prints: the comparison of the field's history with the stub's, as a
 * timeline and a sentence or as JSON, and what `--search` found.
 */
import { timeline } from '../scenarios/field-bugs/repro/compare-histories.ts';
import type { ReproResult } from '../scenarios/field-bugs/repro/reproduce.ts';
import { label, type SearchResult } from '../scenarios/field-bugs/repro/search.ts';
import { SEARCH_MAX_MS, SEARCH_MAX_RUNS } from '../scenarios/field-bugs/repro/search-bounds.ts';

/** What a repro found, as its report says it. */
export interface ReproOutcome {
  result: ReproResult;
  search: SearchResult | undefined;
  /** Where the inferred scenario was written (`--scenario-out`). */
  scenarioOut: string | undefined;
  /** Where the picked explanation was written (`--write`). */
  written: string | undefined;
  pick: number;
  /** The fixtures are placeholders (no `--fixtures`). */
  placeholders: boolean;
}

/** The comparison (and the search) as JSON, for `--json`. */
export function reproJson({ result, search, scenarioOut, written }: ReproOutcome): string {
  const { comparison } = result;
  return `${JSON.stringify(
    {
      match: comparison.match,
      tolerance_ms: comparison.toleranceMs,
      events: result.eventCount,
      difference: comparison.difference ?? null,
      refused: result.refused,
      field: comparison.field,
      stub: comparison.stub,
      ...(scenarioOut ? { scenario: scenarioOut } : {}),
      ...(search ? { search: searchJson(search, written) } : {}),
    },
    null,
    2,
  )}\n`;
}

/** The comparison in words: what the stub refused, the timeline, the verdict, the search. */
export function reproText(outcome: ReproOutcome, allRows: boolean | undefined): string {
  const { result, search } = outcome;
  const { comparison } = result;
  let text = '';
  if (result.refused.length > 0)
    text += `The stub refused what the scenario sent where the field's service took it (fix these first; see the scenario's "guessed" lines):\n${result.refused.map((r) => `  ${r}`).join('\n')}\n\n`;
  text += timeline(comparison, { all: allRows });
  text += comparison.match
    ? `\nThe histories match: the stub reproduces the field's ${result.eventCount} events.\n`
    : `\n${capitalise(comparison.difference!.sentence)}\n`;
  if (search) text += searchText(search, outcome);
  return text;
}

/** The search's findings in words: what explains the log, simplest first, or how far it got. */
function searchText(
  search: SearchResult,
  options: { written: string | undefined; pick: number; placeholders: boolean },
): string {
  const { written, pick } = options;
  const lines = [
    '',
    `Searched ${plural(search.trials.length, 'variant')} of the scenario${search.stopped ? ` (stopped at a bound: ${SEARCH_MAX_RUNS} runs or ${SEARCH_MAX_MS / 1000} s; export a shorter span to search it all)` : ''}.`,
  ];
  if (options.placeholders)
    lines.push(
      'Without --fixtures each user hears only the alerts they acknowledged (placeholders), so what a tap could have taken is narrower than in the field: pass --fixtures to tell the alternatives apart.',
    );
  if (search.explanations.length === 0) {
    lines.push('None explains the log. The variants that got furthest:');
    const furthest = [...search.trials].sort(
      (a, b) => b.comparison.difference!.index - a.comparison.difference!.index,
    );
    for (const trial of furthest.slice(0, 5))
      lines.push(`  - ${label(trial.alternatives)}: ${trial.comparison.difference!.sentence}`);
    lines.push(
      'What is left is outside what badge-sim varies: edit the scenario (--scenario-out) where it guessed.',
    );
  } else {
    lines.push(
      `${search.explanations.length === 1 ? '1 explains' : `${search.explanations.length} explain`} the log, simplest first:`,
      ...search.explanations.map((e, i) => `  ${i + 1}. ${label(e.alternatives)}`),
    );
    lines.push(
      written
        ? `Saved ${pick} as ${written}: badge-sim run ${written}`
        : 'Save one as a regression test with --write FILE (--pick N for another than the first).',
    );
  }
  return `${lines.join('\n')}\n`;
}

function searchJson(search: SearchResult, written: string | undefined) {
  return {
    runs: search.trials.length,
    stopped: search.stopped,
    explanations: search.explanations.map((e) => ({
      alternatives: e.alternatives,
      said: label(e.alternatives),
    })),
    trials: search.trials.map((t) => ({
      alternatives: t.alternatives,
      match: t.comparison.match,
      difference: t.comparison.difference?.sentence ?? null,
    })),
    ...(written && search.explanations.length > 0 ? { written } : {}),
  };
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function capitalise(sentence: string): string {
  return sentence.charAt(0).toUpperCase() + sentence.slice(1);
}
