/**
 * `badge-sim merge-reports`: the reports of a suite's shards (`badge-sim run --shard i/n`)
 * made into one, as if the suite had run whole (decision SH2). Reports of one kind merge into
 * that kind: JSON (the whole run: it can also be written as JUnit, HTML or the console's
 * summary), JUnit XML, or HTML (its embedded data). Scenarios come in the order an unsharded
 * run gives them: by file, then load errors by file.
 */
import { resolve } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { ownValue } from '../../input/own.ts';
import { type CoverageReport, mergeCoverage } from '../runner/coverage.ts';
import type { RunSummary } from '../runner/reporter.ts';
import type { ScenarioReport } from '../runner/run-scenario.ts';
import { type PageData, renderHtmlReport } from './html.reporter.ts';
import { junitXml } from './junit.reporter.ts';

export type ReportKind = 'json' | 'junit' | 'html';

/** A report that cannot be merged: the file, and what is wrong with it. */
export class MergeError extends Error {}

export interface ReportFile {
  file: string;
  text: string;
}

/** Which kind of report a file holds, by its content (a name may lie). */
export function reportKind({ file, text }: ReportFile): ReportKind {
  const start = text.trimStart();
  if (start.startsWith('{')) return 'json';
  if (start.startsWith('<?xml') || start.startsWith('<testsuites')) return 'junit';
  if (start.startsWith('<!doctype html') && text.includes('id="report-data"')) return 'html';
  throw new MergeError(
    `${file}: not a badge-sim report: expected the JSON, JUnit or HTML a run writes (badge-sim run --reporter json|junit|html)`,
  );
}

/** JSON reports merged into one run's summary. */
export function mergeJsonReports(
  files: ReportFile[],
  note?: (message: string) => void,
): RunSummary {
  const reports: ScenarioReport[] = [];
  const loadErrors: RunSummary['loadErrors'] = [];
  const coverages: (CoverageReport | undefined)[] = [];
  const seen = new Sources();
  for (const { file, text } of files) {
    const report = parseJson(file, text);
    coverages.push(coverageOf(file, report));
    const scenarios = listAt(file, report, 'scenarios');
    const errors = listAt(file, report, 'loadErrors');
    scenarios.forEach((scenario, i) => {
      checkScenarioReport(file, scenario, `scenarios[${i}]`);
      seen.add(file, (scenario as ScenarioReport).source);
      reports.push(scenario as ScenarioReport);
    });
    errors.forEach((error, i) => {
      checkFields(file, error, `loadErrors[${i}]`, { source: 'string', message: 'string' });
      seen.add(file, (error as { source: string }).source);
      loadErrors.push(error as RunSummary['loadErrors'][number]);
    });
  }
  reports.sort(bySource);
  loadErrors.sort(bySource);
  const failed = reports.filter((r) => !r.passed).length + loadErrors.length;
  const coverage = mergedCoverage(coverages, files, note);
  return {
    passed: reports.length - (failed - loadErrors.length),
    failed,
    reports,
    loadErrors,
    ...(coverage ? { coverage } : {}),
  };
}

/**
 * A report's coverage, checked for what merging reads (CV5); undefined when it has none.
 * Merged only when every shard has one: any shard's run without `--coverage` would make the
 * union a guess.
 */
function coverageOf(file: string, report: unknown): CoverageReport | undefined {
  const coverage = ownValue(report, 'coverage');
  if (coverage === undefined) return undefined;
  for (const part of ['badge_machine', 'alert_model']) {
    checkFields(file, ownValue(coverage, part), `coverage.${part}`, {
      transitions: 'count',
      missing: 'list',
    });
    (ownValue(ownValue(coverage, part), 'missing') as unknown[]).forEach((key, i) => {
      if (typeof key !== 'string')
        throw new MergeError(`${file}: coverage.${part}.missing[${i}] must be a string`);
    });
  }
  checkFields(file, ownValue(coverage, 'decisions'), 'coverage.decisions', {
    rows: 'count',
    missing: 'list',
  });
  (ownValue(ownValue(coverage, 'decisions'), 'missing') as unknown[]).forEach((row, i) => {
    checkFields(file, row, `coverage.decisions.missing[${i}]`, { id: 'string', case: 'string' });
  });
  return coverage as CoverageReport;
}

function mergedCoverage(
  coverages: (CoverageReport | undefined)[],
  files: ReportFile[],
  note: ((message: string) => void) | undefined,
): CoverageReport | undefined {
  const without = files.filter((_, i) => coverages[i] === undefined).map((f) => f.file);
  if (without.length > 0 && without.length < files.length)
    note?.(
      `the merged report has no coverage: ${without.join(', ')} ${without.length === 1 ? 'was' : 'were'} run without --coverage`,
    );
  if (without.length > 0) return undefined;
  return mergeCoverage(coverages as CoverageReport[]);
}

/** HTML reports merged: their embedded data, drawn again as one page. */
export function mergeHtmlReports(files: ReportFile[], note?: (message: string) => void): string {
  const seen = new Sources();
  const coverages: (CoverageReport | undefined)[] = [];
  const pages = files.map(({ file, text }) => {
    const json = /<script type="application\/json" id="report-data">([^<]*)<\/script>/.exec(text);
    if (!json) throw new MergeError(`${file}: an HTML report without its data`);
    const page = parseJson(file, json[1]!);
    checkFields(file, page, 'the report', { passed: 'count', failed: 'count', wallMs: 'count' });
    const scenarios = listAt(file, page, 'scenarios');
    scenarios.forEach((scenario, i) => {
      checkFields(file, scenario, `scenarios[${i}]`, {
        name: 'string',
        source: 'string',
        passed: 'boolean',
      });
      seen.add(file, (scenario as { source: string }).source);
    });
    listAt(file, page, 'loadErrors').forEach((error, i) => {
      checkFields(file, error, `loadErrors[${i}]`, { source: 'string', message: 'string' });
      seen.add(file, (error as { source: string }).source);
    });
    coverages.push(coverageOf(file, page));
    return page as PageData;
  });
  const coverage = mergedCoverage(coverages, files, note);
  const merged: PageData = {
    passed: sum(pages.map((p) => p.passed)),
    failed: sum(pages.map((p) => p.failed)),
    // Shards run side by side: the suite took as long as its slowest shard.
    wallMs: Math.max(0, ...pages.map((p) => p.wallMs)),
    scenarios: pages.flatMap((p) => p.scenarios).sort(bySource),
    loadErrors: pages.flatMap((p) => p.loadErrors).sort(bySource),
    ...(coverage ? { coverage } : {}),
  };
  return renderHtmlReport(merged);
}

/** Each scenario's file once across the reports: a shard's report given twice is refused. */
class Sources {
  readonly #where = new Map<string, string>();
  add(file: string, source: string): void {
    const other = this.#where.get(source);
    if (other !== undefined)
      throw new MergeError(
        `${file}: ${source} is in ${other === file ? 'this report twice' : `${other} too`}: give each shard's report once`,
      );
    this.#where.set(source, file);
  }
}

type FieldKind = 'string' | 'boolean' | 'count' | 'list';

function checkFields(
  file: string,
  value: unknown,
  where: string,
  fields: Record<string, FieldKind>,
): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new MergeError(`${file}: ${where} must be an object`);
  for (const [name, kind] of Object.entries(fields)) {
    const field = ownValue(value, name);
    const ok =
      kind === 'count'
        ? Number.isSafeInteger(field) && (field as number) >= 0
        : kind === 'list'
          ? Array.isArray(field)
          : typeof field === kind;
    if (!ok)
      throw new MergeError(
        `${file}: ${where}.${name} must be ${kind === 'count' ? 'a whole number, 0 or more' : kind === 'list' ? 'a list' : `a ${kind}`}`,
      );
  }
}

function listAt(file: string, value: unknown, name: string): unknown[] {
  checkFields(file, value, 'the report', { [name]: 'list' });
  return ownValue(value, name) as unknown[];
}

/** What the reporters read of a scenario's report. */
function checkScenarioReport(file: string, value: unknown, where: string): void {
  checkFields(file, value, where, {
    name: 'string',
    source: 'string',
    proves: 'string',
    passed: 'boolean',
    seed: 'count',
    mode: 'string',
    rerun: 'string',
    failures: 'list',
  });
  (ownValue(value, 'failures') as unknown[]).forEach((failure, i) => {
    checkFields(file, failure, `${where}.failures[${i}]`, {
      what: 'string',
      message: 'string',
      expected: 'list',
      actual: 'list',
    });
  });
  checkFields(file, ownValue(value, 'actual'), `${where}.actual`, { events: 'list' });
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  // Every testcase a list, one or many; text kept as it is (no number guessing).
  isArray: (name) => name === 'testsuite' || name === 'testcase',
  parseTagValue: false,
  parseAttributeValue: false,
});

/** JUnit reports merged: every test case, run cases by file, then errors by file. */
export function mergeJunitReports(files: ReportFile[]): string {
  const cases: Record<string, unknown>[] = [];
  const seen = new Sources();
  for (const { file, text } of files) {
    let document: { testsuites?: { testsuite?: { testcase?: Record<string, unknown>[] }[] } };
    try {
      document = parser.parse(text, true);
    } catch (error) {
      throw new MergeError(`${file}: not well-formed XML (${(error as Error).message})`);
    }
    const suites = document.testsuites?.testsuite;
    if (!suites) throw new MergeError(`${file}: a JUnit report without <testsuites><testsuite>`);
    for (const suite of suites)
      for (const testcase of suite.testcase ?? []) {
        if (typeof testcase['@classname'] !== 'string' || typeof testcase['@name'] !== 'string')
          throw new MergeError(`${file}: a <testcase> without classname and name`);
        seen.add(file, `${testcase['@classname']} (${testcase['@name']})`);
        cases.push(testcase);
      }
  }
  const key = (c: Record<string, unknown>) => ({ source: String(c['@classname'] ?? '') });
  const run = cases.filter((c) => c.error === undefined).sort((a, b) => bySource(key(a), key(b)));
  const errors = cases
    .filter((c) => c.error !== undefined)
    .sort((a, b) => bySource(key(a), key(b)));
  return junitXml([...run, ...errors]);
}

function parseJson(file: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new MergeError(`${file}: not valid JSON (${(error as Error).message})`);
  }
}

/**
 * The order of an unsharded run: files sorted as `findScenarioFiles` sorts them, by absolute
 * path (a report shows a file below the working folder relative to it, others absolute; merge
 * in the folder the shards ran in).
 */
function bySource(a: { source: string }, b: { source: string }): number {
  const x = resolve(a.source);
  const y = resolve(b.source);
  return x < y ? -1 : x > y ? 1 : 0;
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}
