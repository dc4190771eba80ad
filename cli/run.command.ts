import { writeFileSync } from 'node:fs';
import { Command } from 'commander';
import { type Shard, shardOf, shardOption } from '../input/shard.ts';
import type { Reporter, ReporterName } from '../scenarios/reports/index.ts';
import type { StepObserver } from '../scenarios/runner/step-progress.ts';
import { choiceOption, fail, integerOption } from './cli-errors.ts';
import { COMMANDS } from './commands.ts';
import { checkedControlToken, controlTokenOption } from './control-access.ts';
import { runTracing, type TraceMode, withTraceOptions } from './run-trace-option.ts';
import { checkStub } from './stub-check.ts';

interface RunOptions {
  reporter: ReporterName[];
  output?: string;
  seed: number;
  grep?: string;
  bail?: boolean;
  stub?: string;
  controlToken?: string;
  realtime?: boolean;
  shard?: Shard;
  coverage?: boolean;
  quiet?: boolean;
  watch?: boolean;
  verbose?: boolean;
  trace?: TraceMode;
  traceDir?: string;
}

/**
 * Each reporter by the name `--reporter` takes, loaded only when chosen (JUnit brings an XML
 * library, HTML its page). The same table as scenarios/reports/index.ts, which the library
 * and its tests use: `satisfies` keeps the names the same.
 */
const REPORTER_MODULES = {
  console: async () =>
    (await import('../scenarios/reports/console.reporter.ts')).createConsoleReporter,
  junit: async () => (await import('../scenarios/reports/junit.reporter.ts')).createJunitReporter,
  json: async () => (await import('../scenarios/reports/json.reporter.ts')).createJsonReporter,
  html: async () => (await import('../scenarios/reports/html.reporter.ts')).createHtmlReporter,
} satisfies Record<ReporterName, () => Promise<(stream?: NodeJS.WritableStream) => Reporter>>;
const names = Object.keys(REPORTER_MODULES) as ReporterName[];

export function runCommand(): Command {
  return withTraceOptions(
    new Command('run')
      // A refused option or argument exits 2, as in every command: cli/badge-sim.ts.
      .description(COMMANDS.run.description)
      .argument('[paths...]', 'scenario files, folders or patterns (scenarios/**/*.scenario.yaml)')
      .option(
        '-r, --reporter <name>',
        `${names.join(', ')} (repeat for several)`,
        (value: string, previous: ReporterName[] | undefined) => [
          ...(previous ?? []),
          choiceOption('--reporter', names)(value),
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
      .action(async (paths: string[], options: RunOptions) => {
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
        const [{ findScenarioFiles, runSuite }, { ScenarioError }, { summaryLine }] =
          await Promise.all([
            import('../scenarios/runner/run-suite.ts'),
            import('../scenarios/format/load-scenario.ts'),
            import('../scenarios/runner/reporter.ts'),
          ]);
        let files: string[];
        try {
          files = findScenarioFiles(paths);
        } catch (error) {
          if (error instanceof ScenarioError) fail(error.message);
          throw error;
        }
        if (files.length === 0)
          fail(
            `no scenario files in ${paths.join(' ') || 'the catalogue'} (they end in .scenario.yaml).`,
          );
        if (options.shard) {
          const all = files.length;
          files = shardOf(files, options.shard);
          process.stderr.write(
            `badge-sim run: shard ${options.shard.index}/${options.shard.total}: ${files.length} of ${all} scenario files\n`,
          );
        }
        // One error up front for a stub that is not there, not one a scenario (issue 31).
        if (options.stub)
          await checkStub(options.stub, controlToken, {
            otherwise: 'or leave out --stub: run then starts a stub of its own',
          });
        const onStep = options.verbose
          ? (await import('./verbose-steps.ts')).stepPrinter()
          : undefined;
        const runOnce = (chosenFiles: string[]) =>
          runAndReport(chosenFiles, options, { controlToken, onStep, runSuite, summaryLine });
        const status = await runOnce(files);
        process.exitCode = status;
        // Loaded only when asked for, as the verbose printer is: a plain run pays nothing.
        if (options.watch)
          process.exitCode = await (await import('./watch-scenarios.ts')).watchScenarios({
            paths,
            files,
            rerun: runOnce,
            status,
          });
      }),
  );
}

interface SuiteRunner {
  controlToken?: string;
  onStep?: StepObserver;
  runSuite: typeof import('../scenarios/runner/run-suite.ts').runSuite;
  summaryLine: typeof import('../scenarios/runner/reporter.ts').summaryLine;
}

/**
 * Runs the scenario files with new reporters (a watched run reports each rerun afresh), writes
 * or prints the report and says where it went; resolves to the exit status, 1 if any failed.
 */
async function runAndReport(
  files: string[],
  options: RunOptions,
  { controlToken, onStep, runSuite, summaryLine }: SuiteRunner,
): Promise<number> {
  const chosen = options.reporter ?? ['console'];
  const [report] = chosen.filter((r) => r !== 'console');
  // A file report on standard output leaves no room for the console reporter there.
  const reporters = await Promise.all(
    chosen.map(async (name) => {
      const create = await REPORTER_MODULES[name]();
      return name === 'console' && report && !options.output ? create(process.stderr) : create();
    }),
  );
  const tracing = runTracing(options);
  const summary = await runSuite(files, {
    reporters,
    seed: options.seed,
    grep: options.grep,
    bail: options.bail,
    mode: options.stub ? 'external' : options.realtime ? 'realtime' : 'embedded',
    stubUrl: options.stub,
    controlToken,
    ...(onStep ? { onStep } : {}),
    ...tracing.options,
    ...(options.coverage
      ? { coverage: new (await import('../scenarios/runner/coverage.ts')).RunCoverage() }
      : {}),
  });
  tracing.say();
  for (const output of summary.outputs) {
    if (!options.output) process.stdout.write(output);
    else writeReport(options.output, output, `${report} report`, summaryLine(summary));
  }
  if (options.output && report && !options.quiet)
    process.stderr.write(
      `badge-sim run: ${report} report written to ${options.output}: ${summaryLine(summary)}\n`,
    );
  return summary.failed > 0 ? 1 : 0;
}

/** Writes a report file, or says in one line why it cannot, with how the run went (exit 2). */
function writeReport(file: string, text: string, what: string, summary: string): void {
  try {
    writeFileSync(file, text);
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    const why = code === 'ENOENT' ? `${code}: no such file or directory` : (code ?? message);
    const hint = code === 'ENOENT' ? ': does its folder exist?' : '';
    fail(`cannot write the ${what} to ${file} (${why})${hint} The run: ${summary}.`);
  }
}
