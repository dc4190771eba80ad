import { accessSync, constants, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Command } from 'commander';
import { FixtureError, loadFixturesFile } from '../fixtures/load-fixtures.ts';
import { TIMELINE_FULL_ROWS, timeline } from '../scenarios/field-bugs/repro/compare-histories.ts';
import {
  ExportError,
  type ExportFile,
  MAX_EXPORT_BYTES,
  MAX_EXPORT_EVENTS,
  MAX_EXPORT_SPAN_DAYS,
  readAlertLines,
  readJournalAlerts,
  type SentAlert,
} from '../scenarios/field-bugs/repro/read-export.ts';
import { reproduce } from '../scenarios/field-bugs/repro/reproduce.ts';
import {
  label,
  SEARCH_MAX_MS,
  SEARCH_MAX_RUNS,
  type SearchResult,
  searchAlternatives,
} from '../scenarios/field-bugs/repro/search.ts';
import { ScenarioError } from '../scenarios/format/load-scenario.ts';
import { durationOption, fail, integerOption } from './cli-errors.ts';
import { COMMANDS } from './commands.ts';

interface ReproOptions {
  alerts?: string;
  journal?: string;
  fixtures?: string;
  scenarioOut?: string;
  within?: number;
  json?: boolean;
  search?: boolean;
  write?: string;
  pick?: number;
  allRows?: boolean;
}

/**
 * `badge-sim repro`: a field export in, a scenario out, run on the virtual clock, and where the
 * stub's history parts from the field's. Exit 0 when they match, 1 when they differ, 2 for
 * input it cannot use.
 */
export function reproCommand(): Command {
  return (
    new Command('repro')
      .description(COMMANDS.repro.description)
      .argument(
        '<export...>',
        'events: the JSON of GET events (several pages may overlap), badge-sim analytics --json, or its table',
      )
      .option(
        '--alerts <file>',
        'JSON lines {"at": ISO instant, "body": {…}} of the alerts your software sent',
      )
      .option(
        '--journal <file>',
        'the JSON of GET /_stub/journal: its POST alerts give the bodies sent',
      )
      .option(
        '--fixtures <file>',
        'fixtures (as badge-sim stub --fixtures takes) instead of placeholders',
      )
      .option('--scenario-out <file>', 'write the inferred scenario (YAML) here')
      .option(
        '--within <duration>',
        'how far apart two events may be and still match (default 0: exact to the ms)',
        durationOption('--within'),
      )
      .option(
        '--search',
        'when the histories part, try the alternatives the spec leaves open (tap rules, cancel events, late taps, offline windows) and say which explain the log',
      )
      .option(
        '--write <file>',
        'with --search: save a scenario that explains the log (the simplest, or the one --pick names)',
      )
      .option(
        '--pick <n>',
        'with --write: which explanation of the list to save (default 1)',
        integerOption('--pick', 1, 1000),
      )
      .option(
        '--all-rows',
        `print every row of the timeline (past ${TIMELINE_FULL_ROWS}, only the start, the rows around the difference and the end)`,
      )
      .option('--json', 'print the comparison as JSON')
      // A refused option or argument exits 2, as in every command: cli/badge-sim.ts.
      .addHelpText(
        'after',
        `
The export's events are merged by event_id and ordered by time; each alert (task id) becomes an
alert step at its start, each acknowledgement a tap by that user, a cancelled end a cancel
step. What the events do not tell (the text, the groups, silent members, the quorum of an
alert that did not end by it) comes from --alerts/--journal/--fixtures, or is a placeholder
marked "# guessed" in the scenario: edit those and run it with badge-sim run.
At most ${MAX_EXPORT_EVENTS} events, ${MAX_EXPORT_BYTES / 1024 / 1024} MiB a file, ${MAX_EXPORT_SPAN_DAYS} days from first to last.

--search runs variants of the scenario, each an ordinary scenario: every badge's tap rule
(behaviour acknowledges: sounding, oldest, newest), cancels that end normal (settings:
cancel_events: end-normal) when an alert ended normal with no acknowledgement then, and,
where the histories part at a tap, that tap pressed earlier while its wearer heard the alert
it acknowledged (and late on the way), or its wearer off the network just before it. It
lists those whose history matches the field's, simplest first; --write saves the first.
At most ${SEARCH_MAX_RUNS} runs and ${SEARCH_MAX_MS / 1000} s.

Examples:
  badge-sim analytics -s 100001 --limit 500 --json > events.json
  badge-sim repro events.json --scenario-out field-bug.scenario.yaml
  badge-sim repro page1.json page2.json --alerts sent.jsonl --fixtures fixtures.yaml
  badge-sim analytics -s 100001 --limit 500 > events.txt && badge-sim repro events.txt
  badge-sim repro events.json --fixtures fixtures.yaml --search --write field-bug.scenario.yaml
`,
      )
      .action(async (files: string[], options: ReproOptions) => {
        const progress = (line: string) => {
          if (!options.json) process.stderr.write(`badge-sim repro: ${line}\n`);
        };
        try {
          if (options.pick !== undefined && !options.write)
            throw new ExportError('--pick chooses what --write saves: add --search --write FILE');
          if (options.write && !options.search)
            throw new ExportError(
              '--write saves what --search found: add --search (the inferred scenario is --scenario-out)',
            );
          if (options.scenarioOut) checkWritable('--scenario-out', options.scenarioOut);
          if (options.write) checkWritable('--write', options.write);
          const exports = files.map(readInput);
          const sent: SentAlert[] = [
            ...(options.alerts
              ? readAlertLines(options.alerts, readInput(options.alerts).text)
              : []),
            ...(options.journal
              ? readJournalAlerts(options.journal, readInput(options.journal).text)
              : []),
          ];
          const fixtures = options.fixtures ? loadFixturesFile(options.fixtures) : undefined;
          const result = await reproduce({
            exports,
            sent,
            fixtures,
            toleranceMs: options.within ?? 0,
            progress,
          });
          if (options.scenarioOut) {
            writeFileSync(options.scenarioOut, result.yaml);
            progress(`wrote the inferred scenario to ${options.scenarioOut}`);
          }
          const { comparison } = result;
          const search = options.search
            ? await searchAlternatives({
                exports,
                sent,
                fixtures,
                toleranceMs: options.within ?? 0,
                progress,
              })
            : undefined;
          const pick = options.pick ?? 1;
          if (
            search &&
            options.write &&
            search.explanations.length > 0 &&
            pick > search.explanations.length
          )
            throw new ExportError(
              `--pick ${pick}: the search found ${search.explanations.length} explanation(s); pick one of 1 to ${search.explanations.length}`,
            );
          const explanation = search?.explanations[pick - 1];
          if (options.write && explanation) {
            writeFileSync(options.write, explanation.yaml);
            progress(`wrote the scenario of explanation ${pick} to ${options.write}`);
          }
          if (options.json) {
            process.stdout.write(
              `${JSON.stringify(
                {
                  match: comparison.match,
                  tolerance_ms: comparison.toleranceMs,
                  events: result.eventCount,
                  difference: comparison.difference ?? null,
                  refused: result.refused,
                  field: comparison.field,
                  stub: comparison.stub,
                  ...(options.scenarioOut ? { scenario: options.scenarioOut } : {}),
                  ...(search ? { search: searchJson(search, options.write) } : {}),
                },
                null,
                2,
              )}\n`,
            );
          } else {
            if (result.refused.length > 0)
              process.stdout.write(
                `The stub refused what the scenario sent where the field's service took it (fix these first; see the scenario's "guessed" lines):\n${result.refused.map((r) => `  ${r}`).join('\n')}\n\n`,
              );
            process.stdout.write(timeline(comparison, { all: options.allRows }));
            process.stdout.write(
              comparison.match
                ? `\nThe histories match: the stub reproduces the field's ${result.eventCount} events.\n`
                : `\n${capitalise(comparison.difference!.sentence)}\n`,
            );
            if (search)
              process.stdout.write(
                searchText(search, { written: options.write, pick, placeholders: !fixtures }),
              );
          }
          process.exitCode = (search ? search.explanations.length > 0 : comparison.match) ? 0 : 1;
        } catch (error) {
          if (
            error instanceof ExportError ||
            error instanceof ScenarioError ||
            error instanceof FixtureError
          )
            fail(error.message);
          // Anything else is a fault of badge-sim, not a difference: never exit 1 for it.
          process.stderr.write(`${(error as Error).stack ?? error}\n`);
          fail(
            `repro failed unexpectedly (${(error as Error).message}); please report it with the export`,
          );
        }
      })
  );
}

/** A file the command will write: its folder must exist and take it, before any work is done. */
function checkWritable(flag: string, file: string): void {
  const folder = dirname(resolve(file));
  try {
    if (existsSync(file) && statSync(file).isDirectory())
      throw new ExportError(`${flag} ${file}: a folder; give a file name in it`);
    accessSync(folder, constants.W_OK);
  } catch (error) {
    if (error instanceof ExportError) throw error;
    throw new ExportError(
      `${flag} ${file}: cannot write there (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); give a file in a folder that exists and you may write to`,
    );
  }
}

/** A file's text, refused before it is read when it is larger than an export may be. */
function readInput(file: string): ExportFile {
  let size: number;
  try {
    size = statSync(file).size;
  } catch (error) {
    throw new ExportError(
      `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  if (size > MAX_EXPORT_BYTES)
    throw new ExportError(
      `${file}: larger than ${MAX_EXPORT_BYTES / 1024 / 1024} MiB; export a shorter span and repro that`,
    );
  return { file, text: readFileSync(file, 'utf8') };
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
