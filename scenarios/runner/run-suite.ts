/**
 * Runs many scenarios, one after another, through the reporters: what `badge-sim run` and
 * the vitest helper use.
 */
import { type Stats, statSync } from 'node:fs';
import { relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { globSync, isDynamicPattern } from 'tinyglobby';
import { type LoadedScenario, loadScenarioFile, ScenarioError } from '../format/load-scenario.ts';
import type { Reporter, RunSummary } from './reporter.ts';
import { rerunCommand } from './rerun-command.ts';
import { type RunOptions, runScenario, type ScenarioReport } from './run-scenario.ts';

/** The built-in catalogue. */
// From the package root, so the bundled CLI (dist/) finds it too.
export const CATALOGUE_DIR = fileURLToPath(new URL('../catalogue', import.meta.url));

/**
 * Scenario files from paths: a file, a directory (every `*.scenario.yaml` below it), or a
 * glob pattern (`*` any name part, `**` any folders, also `?`, `[…]`, `{a,b}`). A path that
 * exists is taken as it is, even if it holds a glob character. Folders named `node_modules`
 * or starting with a dot are skipped. Sorted, each once.
 */
export function findScenarioFiles(patterns: string[], cwd = process.cwd()): string[] {
  const found = new Set<string>();
  for (const pattern of patterns.length > 0 ? patterns : [CATALOGUE_DIR]) {
    const path = resolve(cwd, pattern);
    const stat = statOrNothing(path);
    let files: string[];
    if (stat?.isDirectory()) files = globBelow(path, '**/*.scenario.yaml');
    else if (stat) files = [path];
    else if (isDynamicPattern(pattern)) files = globFrom(path);
    else throw new ScenarioError(`badge-sim: no file or folder ${pattern}`);
    for (const file of files) found.add(file);
  }
  return [...found].sort().map((file) => relativeOrAbsolute(file, cwd));
}

/** What is at `path`; nothing when it cannot be read (missing, not a folder, no access). */
function statOrNothing(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

/** An absolute pattern, matched from its last folder without a glob character. */
function globFrom(absolutePattern: string): string[] {
  const parts = absolutePattern.split(sep);
  const firstDynamic = parts.findIndex((part) => isDynamicPattern(part));
  return globBelow(
    parts.slice(0, firstDynamic).join(sep) || sep,
    parts.slice(firstDynamic).join('/'),
  );
}

function globBelow(dir: string, pattern: string): string[] {
  return globSync(pattern, {
    cwd: dir,
    absolute: true,
    dot: false,
    onlyFiles: true,
    ignore: ['**/node_modules/**'],
    expandDirectories: false,
  });
}

export interface SuiteOptions extends RunOptions {
  grep?: string;
  bail?: boolean;
  reporters: Reporter[];
}

/** Loads, filters and runs; a file that cannot be loaded counts as a failure. */
export async function runSuite(
  sources: (string | LoadedScenario)[],
  options: SuiteOptions,
): Promise<RunSummary & { outputs: string[] }> {
  const loaded: LoadedScenario[] = [];
  const loadErrors: RunSummary['loadErrors'] = [];
  for (const source of sources) {
    if (typeof source !== 'string') {
      loaded.push(source);
      continue;
    }
    try {
      loaded.push(loadScenarioFile(source));
    } catch (error) {
      if (!(error instanceof ScenarioError)) throw error;
      loadErrors.push({ source, message: error.message });
    }
  }
  const grep = options.grep ? new RegExp(options.grep, 'i') : undefined;
  const chosen = grep
    ? loaded.filter((l) => grep.test(l.scenario.name) || grep.test(l.source))
    : loaded;
  const call = <K extends keyof Reporter>(hook: K, ...args: Parameters<NonNullable<Reporter[K]>>) =>
    options.reporters.map((r) =>
      (r[hook] as ((...a: unknown[]) => unknown) | undefined)?.(...args),
    );
  call('onStart', chosen.length);
  for (const error of loadErrors) call('onLoadError', error.source, error.message);
  const reports: ScenarioReport[] = [];
  for (const [index, scenario] of chosen.entries()) {
    call('onScenarioStart', index, chosen.length, scenario.scenario.name);
    const started = performance.now();
    let report: ScenarioReport;
    try {
      report = await runScenario(scenario, options);
    } catch (error) {
      if (!(error instanceof ScenarioError)) throw error;
      const seed = scenario.scenario.seed ?? options.seed ?? 0;
      const mode = options.mode ?? 'embedded';
      report = {
        name: scenario.scenario.name,
        source: scenario.source,
        proves: scenario.scenario.proves,
        passed: false,
        seed,
        mode,
        failures: [
          {
            what: 'could not run',
            message: error.message.replace(/^badge-sim: /, ''),
            expected: [],
            actual: [],
          },
        ],
        actual: {
          events: [],
          heard: {},
          states: {},
          tasks: {},
          invocations: [],
          token_requests: 0,
        },
        rerun: rerunCommand({
          ...options,
          source: scenario.source,
          name: scenario.scenario.name,
          seed,
          mode,
        }),
      };
    }
    reports.push(report);
    call('onScenarioEnd', report, performance.now() - started);
    if (options.bail && !report.passed) break;
  }
  const summary: RunSummary = {
    passed: reports.filter((r) => r.passed).length,
    failed: reports.filter((r) => !r.passed).length + loadErrors.length,
    reports,
    loadErrors,
    ...(options.coverage ? { coverage: options.coverage.report() } : {}),
  };
  const outputs = call('onEnd', summary).filter((o): o is string => typeof o === 'string');
  return { ...summary, outputs };
}

function relativeOrAbsolute(file: string, cwd: string): string {
  const rel = relative(cwd, file);
  return rel.startsWith('..') ? file : rel;
}
