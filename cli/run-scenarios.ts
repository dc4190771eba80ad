/**
 * What `badge-sim run` does once its options are read: finds the scenario files (its shard of
 * them), looks at an external stub once, runs them through the reporters chosen, writes or
 * prints the report, and with `--watch` runs again what changes.
 */
import { writeFileSync } from 'node:fs';
import { type Shard, shardOf } from '../input/shard.ts';
import type { ReporterName } from '../scenarios/reports/index.ts';
import type { StepObserver } from '../scenarios/runner/step-progress.ts';
import { fail } from './cli-errors.ts';
import { REPORTER_MODULES } from './reporter-loaders.ts';
import { runTracing, type TraceMode } from './run-trace-option.ts';
import { checkStub } from './stub-check.ts';

/** The options of `badge-sim run`, as commander reads them. */
export interface RunCommandOptions {
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
 * Runs the scenarios `paths` name with checked `options` (the token, when a running stub is
 * driven, checked too); resolves to the exit status: 1 if any failed, else 0.
 */
export async function runScenarioFiles(
  paths: string[],
  options: RunCommandOptions,
  controlToken: string | undefined,
): Promise<number> {
  const [{ findScenarioFiles, runSuite }, { ScenarioError }, { summaryLine }] = await Promise.all([
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
  const onStep = options.verbose ? (await import('./verbose-steps.ts')).stepPrinter() : undefined;
  const runOnce = (chosenFiles: string[]) =>
    runAndReport(chosenFiles, options, { controlToken, onStep, runSuite, summaryLine });
  const since = Date.now();
  const status = await runOnce(files);
  if (!options.watch) return status;
  process.exitCode = status;
  // Loaded only when asked for, as the verbose printer is: a plain run pays nothing.
  return (await import('./watch-scenarios.ts')).watchScenarios({
    paths,
    files,
    rerun: runOnce,
    status,
    since,
  });
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
  options: RunCommandOptions,
  { controlToken, onStep, runSuite, summaryLine }: SuiteRunner,
): Promise<number> {
  const chosen = options.reporter ?? ['console'];
  const [report] = chosen.filter((r) => r !== 'console');
  // A file report on standard output leaves no room for the console reporter there.
  const reporters = await Promise.all(
    chosen.map(async (name) => {
      // The HTML report links each kept trace from the folder it is written to (TR11).
      if (name === 'html')
        return (await REPORTER_MODULES.html())(undefined, { output: options.output });
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
