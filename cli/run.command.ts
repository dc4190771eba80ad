import { Command } from 'commander';
import { shardOption } from '../input/shard.ts';
import { choiceOption, fail, integerOption } from './cli-errors.ts';
import { COMMANDS } from './commands.ts';
import { checkedControlToken, controlTokenOption } from './control-access.ts';
import { REPORTER_NAMES } from './reporter-loaders.ts';
import type { RunCommandOptions } from './run-scenarios.ts';
import { withTraceOptions } from './run-trace-option.ts';

/**
 * `badge-sim run`: its options, checked together, then `runScenarioFiles` (cli/run-scenarios.ts)
 * runs the scenarios they ask for.
 */
export function runCommand(): Command {
  return withTraceOptions(
    new Command('run')
      // A refused option or argument exits 2, as in every command: cli/badge-sim.ts.
      .description(COMMANDS.run.description)
      .argument('[paths...]', 'scenario files, folders or patterns (scenarios/**/*.scenario.yaml)')
      .option(
        '-r, --reporter <name>',
        `${REPORTER_NAMES.join(', ')} (repeat for several)`,
        (value: string, previous: RunCommandOptions['reporter'] | undefined) => [
          ...(previous ?? []),
          choiceOption('--reporter', REPORTER_NAMES)(value),
        ],
      )
      .option(
        '-o, --output <file>',
        'where the junit, json or html report goes (default: standard output); the file and the summary are said on stderr',
      )
      .option('-q, --quiet', 'say nothing of the report file written (errors are still said)')
      .option(
        '-w, --watch',
        "after the run, run again each scenario whose file or fixtures file changes, until Ctrl+C (which exits with the last run's status)",
      )
      .option(
        '-v, --verbose',
        'each step on stderr as it runs: its index, its time on the scenario clock, what it does and how it came out',
      )
      .option('--seed <n>', 'seed for scenarios that give none', integerOption('--seed'), 0)
      .option('-g, --grep <pattern>', 'only scenarios whose name or file matches')
      .option('--bail', 'stop at the first failure')
      .option(
        '--stub <url>',
        'external mode: drive a running stub (a container) through its control API',
      )
      .addOption(controlTokenOption())
      .option('--realtime', 'real-time mode: an embedded stub on the wall clock (slow: for demos)')
      .option(
        '--coverage',
        "report what the run exercised, as shares and what is missing (console, JSON and HTML reports): the badge machine's transitions its badges took, the alert model's named transitions (repeat, acknowledged, quorum, timeout, cancel, L1-L11, …) its stub's history shows, and the rows of docs/decisions.md its passing scenarios name in `decisions:`",
      )
      .option(
        '--shard <i/n>',
        'run the i-th of n slices of the suite (the same slices on every machine); merge their reports with badge-sim merge-reports',
        shardOption,
      )
      .addHelpText(
        'after',
        `
Examples:
  badge-sim run                                     the built-in catalogue
  badge-sim run my-suite/ --reporter junit -o junit.xml
  badge-sim run --reporter html -o report.html      a timeline a scenario; opens from disk
  badge-sim run scenarios/catalogue/quorum-*.scenario.yaml --grep timeout
  badge-sim run --stub http://127.0.0.1:8080        against a running stub
  BADGE_SIM_CONTROL_TOKEN=… badge-sim run --stub URL  against a stub with a locked control API
  badge-sim run --shard 2/4 --reporter json -o shard-2.json  one quarter of the catalogue
  badge-sim run scenarios/ --watch                  again on each save of a scenario or its fixtures
`,
      )
      .action(async (paths: string[], options: RunCommandOptions) => {
        if (options.stub && options.realtime) fail('give either --stub or --realtime, not both.');
        if (options.watch && options.shard)
          fail(
            'give either --watch or --shard, not both: watch runs what changed, on one machine.',
          );
        // The token is for a running stub; an embedded one has no lock, so it is ignored there.
        const controlToken = options.stub ? checkedControlToken(options.controlToken) : undefined;
        const chosen = options.reporter ?? ['console'];
        const fileReporters = chosen.filter((r) => r !== 'console');
        if (fileReporters.length > 1)
          fail(
            'one file report a run: give one of --reporter junit, json or html (run again for another).',
          );
        // Loaded once the options are read: `run --help` loads no more than its options need.
        const { runScenarioFiles } = await import('./run-scenarios.ts');
        process.exitCode = await runScenarioFiles(paths, options, controlToken);
      }),
  );
}
