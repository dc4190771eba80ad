import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { Command } from 'commander';
import { FixtureError, loadFixturesFile } from '../fixtures/load-fixtures.ts';
import { ScenarioError } from '../scenarios/load-scenario.ts';
import { timeline } from '../scenarios/repro/compare-histories.ts';
import {
  ExportError,
  type ExportFile,
  MAX_EXPORT_BYTES,
  MAX_EXPORT_EVENTS,
  MAX_EXPORT_SPAN_DAYS,
  readAlertLines,
  readJournalAlerts,
  type SentAlert,
} from '../scenarios/repro/read-export.ts';
import { reproduce } from '../scenarios/repro/reproduce.ts';
import { durationOption, fail } from './cli-errors.ts';

interface ReproOptions {
  alerts?: string;
  journal?: string;
  fixtures?: string;
  scenarioOut?: string;
  within?: number;
  json?: boolean;
}

/**
 * `badge-sim repro`: a field export in, a scenario out, run on the virtual clock, and where the
 * stub's history parts from the field's. Exit 0 when they match, 1 when they differ, 2 for
 * input it cannot use.
 */
export function reproCommand(): Command {
  return (
    new Command('repro')
      .description(
        "Infer a scenario from a field export of analytic events, run it, and show where the stub's history parts from the field's.",
      )
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
      .option('--json', 'print the comparison as JSON')
      // Exit 1 means the histories differ: a wrong option or argument is bad input, 2.
      .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : 2))
      .addHelpText(
        'after',
        `
The export's events are merged by event_id and ordered by time; each alert (task id) becomes an
alert step at its start, each acknowledgement a tap by that user, a cancelled end a cancel
step. What the events do not tell (the text, the groups, silent members, the quorum of an
alert that did not end by it) comes from --alerts/--journal/--fixtures, or is a placeholder
marked "# guessed" in the scenario: edit those and run it with badge-sim run.
At most ${MAX_EXPORT_EVENTS} events, ${MAX_EXPORT_BYTES / 1024 / 1024} MiB a file, ${MAX_EXPORT_SPAN_DAYS} days from first to last.

Exit status: 0 the histories match, 1 they differ (the first difference is marked >> and
said in a sentence), 2 an input cannot be used (the message says which and why).

Examples:
  badge-sim analytics -s 100001 --limit 500 --json > events.json
  badge-sim repro events.json --scenario-out field-bug.scenario.yaml
  badge-sim repro page1.json page2.json --alerts sent.jsonl --fixtures fixtures.yaml
  badge-sim analytics -s 100001 --limit 500 > events.txt && badge-sim repro events.txt
`,
      )
      .action(async (files: string[], options: ReproOptions) => {
        const progress = (line: string) => {
          if (!options.json) process.stderr.write(`badge-sim repro: ${line}\n`);
        };
        try {
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
          if (options.json) {
            process.stdout.write(
              `${JSON.stringify(
                {
                  match: comparison.match,
                  tolerance_ms: comparison.toleranceMs,
                  events: result.eventCount,
                  difference: comparison.difference ?? null,
                  field: comparison.field,
                  stub: comparison.stub,
                  ...(options.scenarioOut ? { scenario: options.scenarioOut } : {}),
                },
                null,
                2,
              )}\n`,
            );
          } else {
            process.stdout.write(timeline(comparison));
            process.stdout.write(
              comparison.match
                ? `\nThe histories match: the stub reproduces the field's ${result.eventCount} events.\n`
                : `\n${capitalise(comparison.difference!.sentence)}\n`,
            );
          }
          process.exitCode = comparison.match ? 0 : 1;
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

function capitalise(sentence: string): string {
  return sentence.charAt(0).toUpperCase() + sentence.slice(1);
}
