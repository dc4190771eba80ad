/**
 * `badge-sim merge-reports`: the reports of a suite's shards (`badge-sim run --shard i/n`)
 * made into one, as if the suite had run whole (decision SH2). Reports of one kind merge into
 * that kind: JSON (the whole run: it can also be written as JUnit, HTML or the console's
 * summary), JUnit XML, or HTML (its embedded data). Scenarios come in the order an unsharded
 * run gives them: by file, then load errors by file.
 */
import { XMLParser } from 'fast-xml-parser';
import type { ScenarioReport } from '../run-scenario.ts';
import { type PageData, renderHtmlReport } from './html.reporter.ts';
import { junitXml } from './junit.reporter.ts';
import type { RunSummary } from './reporter.ts';

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
export function mergeJsonReports(files: ReportFile[]): RunSummary {
  const reports: ScenarioReport[] = [];
  const loadErrors: RunSummary['loadErrors'] = [];
  for (const { file, text } of files) {
    const report = parseJson(file, text) as Partial<{
      scenarios: unknown;
      loadErrors: unknown;
    }>;
    if (!Array.isArray(report.scenarios) || !Array.isArray(report.loadErrors))
      throw new MergeError(
        `${file}: not a badge-sim JSON report: it needs "scenarios" and "loadErrors" lists`,
      );
    reports.push(...(report.scenarios as ScenarioReport[]));
    loadErrors.push(...(report.loadErrors as RunSummary['loadErrors']));
  }
  reports.sort(bySource);
  loadErrors.sort(bySource);
  const failed = reports.filter((r) => !r.passed).length + loadErrors.length;
  return { passed: reports.length - (failed - loadErrors.length), failed, reports, loadErrors };
}

/** HTML reports merged: their embedded data, drawn again as one page. */
export function mergeHtmlReports(files: ReportFile[]): string {
  const pages = files.map(({ file, text }) => {
    const json = /<script type="application\/json" id="report-data">([^<]*)<\/script>/.exec(text);
    if (!json) throw new MergeError(`${file}: an HTML report without its data`);
    return parseJson(file, json[1]!) as PageData;
  });
  const merged: PageData = {
    passed: sum(pages.map((p) => p.passed)),
    failed: sum(pages.map((p) => p.failed)),
    // Shards run side by side: the suite took as long as its slowest shard.
    wallMs: Math.max(0, ...pages.map((p) => p.wallMs)),
    scenarios: pages.flatMap((p) => p.scenarios).sort(bySource),
    loadErrors: pages.flatMap((p) => p.loadErrors).sort(bySource),
  };
  return renderHtmlReport(merged);
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
  for (const { file, text } of files) {
    let document: { testsuites?: { testsuite?: { testcase?: Record<string, unknown>[] }[] } };
    try {
      document = parser.parse(text, true);
    } catch (error) {
      throw new MergeError(`${file}: not well-formed XML (${(error as Error).message})`);
    }
    const suites = document.testsuites?.testsuite;
    if (!suites) throw new MergeError(`${file}: a JUnit report without <testsuites><testsuite>`);
    for (const suite of suites) cases.push(...(suite.testcase ?? []));
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

/** The order of an unsharded run: files sorted as `findScenarioFiles` sorts them. */
function bySource(a: { source: string }, b: { source: string }): number {
  return a.source < b.source ? -1 : a.source > b.source ? 1 : 0;
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}
