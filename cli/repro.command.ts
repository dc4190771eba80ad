import { Command } from 'commander';
import { TIMELINE_FULL_ROWS } from '../scenarios/field-bugs/repro/compare-histories.ts';
import {
  MAX_EXPORT_BYTES,
  MAX_EXPORT_EVENTS,
  MAX_EXPORT_SPAN_DAYS,
} from '../scenarios/field-bugs/repro/read-export.ts';
import { SEARCH_MAX_MS, SEARCH_MAX_RUNS } from '../scenarios/field-bugs/repro/search-bounds.ts';
import { durationOption, fail, integerOption } from './cli-errors.ts';
import { COMMANDS } from './commands.ts';
import type { ReproCommandOptions } from './run-repro.ts';

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
        '--trace <file>',
        "write the run's trace here, with the field's events as records of their own (field) and where the histories part (parting)",
      )
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
      .addHelpText('after', HELP_AFTER)
      .action(async (files: string[], options: ReproCommandOptions) => {
        if (options.pick !== undefined && !options.write)
          fail('--pick chooses what --write saves: add --search --write FILE');
        if (options.write && !options.search)
          fail(
            '--write saves what --search found: add --search (the inferred scenario is --scenario-out)',
          );
        // Loaded once the options are read: `repro --help` loads no more than its options need.
        const { runRepro } = await import('./run-repro.ts');
        await runRepro(files, options);
      })
  );
}

const HELP_AFTER = `
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
  badge-sim repro events.json --trace field-bug.trace.gz   the run and the field's events, one file
  badge-sim repro page1.json page2.json --alerts sent.jsonl --fixtures fixtures.yaml
  badge-sim analytics -s 100001 --limit 500 > events.txt && badge-sim repro events.txt
  badge-sim repro events.json --fixtures fixtures.yaml --search --write field-bug.scenario.yaml
`;
