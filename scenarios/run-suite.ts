/**
 * Runs many scenarios, one after another, through the reporters: what `badge-sim run` and
 * the vitest helper use.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type LoadedScenario, loadScenarioFile, ScenarioError } from './load-scenario.ts';
import type { Reporter, RunSummary } from './reporters/index.ts';
import { type RunOptions, runScenario, type ScenarioReport } from './run-scenario.ts';

/** The built-in catalogue. */
// From the package root, so the bundled CLI (dist/) finds it too.
export const CATALOGUE_DIR = fileURLToPath(new URL('../scenarios/catalogue', import.meta.url));

/**
 * Scenario files from paths: a file, a directory (every `*.scenario.yaml` below it), or a
 * pattern with `*` (any name part) and `**` (any folders). Sorted, each once.
 */
export function findScenarioFiles(patterns: string[], cwd = process.cwd()): string[] {
  const found = new Set<string>();
  for (const pattern of patterns.length > 0 ? patterns : [CATALOGUE_DIR]) {
    if (!pattern.includes('*')) {
      const path = resolve(cwd, pattern);
      let stat: ReturnType<typeof statSync>;
      try {
        stat = statSync(path);
      } catch {
        throw new ScenarioError(`badge-sim: no file or folder ${pattern}`);
      }
      if (stat.isDirectory()) {
        for (const file of walk(path)) {
          if (file.endsWith('.scenario.yaml')) found.add(file);
        }
      } else {
        found.add(path);
      }
      continue;
    }
    const absolute = resolve(cwd, pattern);
    const root = absolute.slice(0, absolute.indexOf('*')).replace(/[^/]*$/, '');
    const regex = new RegExp(
      `^${absolute
        .split('**/')
        .map((part) => part.split('*').map(escapeRegex).join('[^/]*'))
        .join('(?:.*/)?')}$`,
    );
    for (const file of walk(root)) if (regex.test(file)) found.add(file);
  }
  return [...found].sort().map((file) => relativeOrAbsolute(file, cwd));
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
      report = {
        name: scenario.scenario.name,
        source: scenario.source,
        proves: scenario.scenario.proves,
        passed: false,
        seed: scenario.scenario.seed ?? options.seed ?? 0,
        mode: options.mode ?? 'embedded',
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
        rerun: `npx badge-sim run ${scenario.source}`,
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
  };
  const outputs = call('onEnd', summary).filter((o): o is string => typeof o === 'string');
  return { ...summary, outputs };
}

function* walk(dir: string): Generator<string> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else yield path;
  }
}

function escapeRegex(text: string): string {
  return text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
}

function relativeOrAbsolute(file: string, cwd: string): string {
  const rel = relative(cwd, file);
  return rel.startsWith('..') ? file : rel;
}
