/**
 * One self-contained HTML file of a run (`badge-sim run --reporter html -o report.html`): a
 * summary, then a scenario a row, failing first; opened, a scenario shows its swimlane
 * timeline (a lane a badge), its `proves:`, the command that runs it again and, when it
 * failed, expected and actual side by side with the first difference marked on both.
 *
 * The page is plain HTML, CSS and JavaScript inlined into the file (html-report/page.css,
 * timeline.js and page.js, copied beside this module by the build), so it opens from disk with
 * no network.
 * What it shows is embedded as JSON and drawn by the page when a scenario is opened: a suite
 * of hundreds of scenarios stays quick to open (decision HR1).
 */
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import { parseDuration } from '../../protocol/duration.ts';
import type { Failure } from '../checks/expectations.ts';
import type { CoverageReport } from '../runner/coverage.ts';
import type { Reporter, RunSummary } from '../runner/reporter.ts';
import type { BadgeLane, ScenarioReport } from '../runner/run-scenario.ts';

/** An instant on a scenario's timeline, drawn across every lane. */
export interface PageMarker {
  at: number;
  kind: 'start' | 'acknowledged' | 'quorum' | 'timeout' | 'end';
  /** The task's name in the scenario (`as:`), else its service name. */
  task: string;
  label: string;
}

export interface PageFailure extends Failure {
  /** Where the first difference lies on the timeline (ms), as expected and as it happened. */
  differenceAt?: { expected?: number; actual?: number };
  /** The device id of the lane the difference is on, when it is one badge's. */
  lane?: string;
}

export interface PageScenario {
  name: string;
  source: string;
  proves: string;
  passed: boolean;
  seed: number;
  rerun: string;
  notes: string[];
  /** Wall-clock time the scenario took (ms); the only figure that differs between runs. */
  wallMs: number;
  endMs: number;
  lanes: BadgeLane[];
  markers: PageMarker[];
  failures: PageFailure[];
  /** Its kept trace as a link from the report's folder (TR11), when one was kept. */
  trace?: string;
}

export interface PageData {
  passed: number;
  failed: number;
  wallMs: number;
  scenarios: PageScenario[];
  loadErrors: RunSummary['loadErrors'];
  /** With `--coverage`: drawn as a section after the summary. */
  coverage?: CoverageReport;
}

const asset = (name: string) =>
  readFileSync(new URL(`./html-report/${name}`, import.meta.url), 'utf8');

/**
 * The HTML report, written by `onEnd`. `output`, the file it goes to, is where the links to
 * traces start from (else the working folder, where a report on standard output usually goes).
 */
export function createHtmlReporter(
  _out?: NodeJS.WritableStream,
  options: { output?: string } = {},
): Reporter {
  const linkFrom = options.output === undefined ? '.' : dirname(options.output);
  const wallTimes = new Map<ScenarioReport, number>();
  let started = performance.now();
  return {
    onStart() {
      started = performance.now();
    },
    onScenarioEnd(report, wallMs) {
      wallTimes.set(report, wallMs);
    },
    onEnd(summary) {
      return renderHtmlReport(pageData(summary, wallTimes, performance.now() - started, linkFrom));
    },
  };
}

export function pageData(
  summary: RunSummary,
  wallTimes: Map<ScenarioReport, number>,
  wallMs: number,
  linkFrom = '.',
): PageData {
  return {
    passed: summary.passed,
    failed: summary.failed,
    wallMs: Math.round(wallMs),
    scenarios: summary.reports.map((report) =>
      pageScenario(report, wallTimes.get(report) ?? 0, linkFrom),
    ),
    loadErrors: summary.loadErrors,
    ...(summary.coverage ? { coverage: summary.coverage } : {}),
  };
}

function pageScenario(report: ScenarioReport, wallMs: number, linkFrom: string): PageScenario {
  const lanes = report.lanes ?? [];
  return {
    name: report.name,
    source: report.source,
    proves: report.proves,
    passed: report.passed,
    seed: report.seed,
    rerun: report.rerun,
    notes: report.notes ?? [],
    wallMs: Math.round(wallMs),
    endMs: report.endMs ?? 0,
    lanes,
    markers: markersOf(report),
    failures: report.failures.map((failure) => placeFailure(failure, lanes)),
    ...(report.trace === undefined ? {} : { trace: traceLink(report.trace, linkFrom) }),
  };
}

/** A relative URL from the report's folder to a trace file, each segment escaped (TR11). */
export function traceLink(trace: string, linkFrom: string): string {
  return relative(resolve(linkFrom), resolve(trace))
    .split(sep)
    .map((segment) => encodeURIComponent(segment))
    .join('/');
}

/**
 * The alert markers of a run, from its analytic events: start, acknowledged, timeout
 * (`timed_out`) and end; an `end` that closes an alert which neither timed out nor was
 * cancelled is where its quorum fell, so it is drawn as `quorum` (decision HR4).
 */
export function markersOf(report: ScenarioReport): PageMarker[] {
  const start = report.startedAt ? Date.parse(report.startedAt) : undefined;
  if (start === undefined) return [];
  const names = new Map(Object.entries(report.actual.tasks).map(([name, id]) => [id, name]));
  const timedOut = new Set<string>();
  return report.actual.events.map((event) => {
    const at = Date.parse(event.timestamp) - start;
    const task = names.get(event.task.id) ?? event.task.name;
    const type = event.content.type;
    if (type === 'acknowledged')
      return {
        at,
        kind: 'acknowledged',
        task,
        label: `${event.content.device ?? '?'} acknowledged`,
      };
    if (type === 'timed_out') {
      timedOut.add(event.task.id);
      return { at, kind: 'timeout', task, label: 'timed out' };
    }
    if (type === 'end') {
      const status = event.content.status ?? 'normal';
      const quorum = status === 'normal' && !timedOut.has(event.task.id);
      return quorum
        ? { at, kind: 'quorum', task, label: 'quorum: end' }
        : { at, kind: 'end', task, label: `end (${status})` };
    }
    if (type === 'start') return { at, kind: 'start', task, label: 'start' };
    return { at, kind: 'end', task, label: type };
  });
}

/** `at 141s…` (expected) or `+140s …` (actual): the line's instant in ms. */
function instantOf(line: string | undefined): number | undefined {
  if (line === undefined) return undefined;
  const actual = /^\+(\d+(?:\.\d+)?)s\b/.exec(line);
  if (actual) return Math.round(Number(actual[1]) * 1000);
  // ± written as an escape: the command's bundle stays ASCII (scripts/bundle-cli.mjs).
  const expected = /^at (\S+?)(?:\u00B1\S*)?\s/.exec(`${line} `);
  return expected ? parseDuration(expected[1]!) : undefined;
}

/**
 * Where a failure's first difference lies: its instants read from the two lines, and the
 * lane of the badge it names (`heard by Ada (3500…)`, or `device=Ada` in an event line).
 */
export function placeFailure(failure: Failure, lanes: BadgeLane[]): PageFailure {
  const i = failure.firstDifference;
  if (i === undefined) return failure;
  const expected = instantOf(failure.expected[i]);
  const actual = instantOf(failure.actual[i]);
  const lane =
    lanes.find((l) => failure.what.includes(`(${l.device})`)) ??
    lanes.find((l) =>
      [failure.expected[i], failure.actual[i]].some((line) => line?.includes(`device=${l.user}`)),
    );
  return {
    ...failure,
    ...(expected === undefined && actual === undefined
      ? {}
      : {
          differenceAt: {
            ...(expected === undefined ? {} : { expected }),
            ...(actual === undefined ? {} : { actual }),
          },
        }),
    ...(lane ? { lane: lane.device } : {}),
  };
}

/**
 * JSON that can sit in a `<script>` element: no `<` (so no `</script>` or `<!--` ends it),
 * and the two line separators old parsers choke on, all as escapes JSON reads back the same.
 */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** The whole file. No text of a scenario is written as markup: the page sets it as text. */
export function renderHtmlReport(data: PageData): string {
  // A number, but a merged shard's data may claim otherwise: whatever it is, it is text here.
  const failed = escapeHtml(String(data.failed));
  const title = data.failed === 0 ? 'badge-sim: all passed' : `badge-sim: ${failed} failed`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>${title}</title>
<style>
${asset('page.css')}</style>
</head>
<body>
<noscript>This report draws itself with JavaScript; the same run as JSON: badge-sim run --reporter json.</noscript>
<main id="report"></main>
<script type="application/json" id="report-data">${scriptSafeJson(data)}</script>
<script>
${asset('timeline.js')}
${asset('page.js')}</script>
</body>
</html>
`;
}
