/**
 * badge-sim inside vitest (`import … from 'badge-sim/vitest'`):
 *
 * - `scenarioTests(paths)` turns scenario files into tests, one a scenario, failing with the
 *   same expected-vs-actual timelines as the CLI, and can write the run's HTML report
 *   (`htmlReport`, or the environment variable BADGE_SIM_HTML_REPORT);
 * - `badgeTest` is vitest's `test` with fixtures: `stub` (an embedded stub on the virtual
 *   clock), `connection` (the `StubConnection` to it: now, advance, settle, tap, transcripts,
 *   `waitForEvent`, …) and `fleet` (a badge for every device, connected), torn down after each test;
 * - `expect(events).toMatchEventSequence([...])` matches analytic events the way scenarios do;
 * - `await expect(stub).toHaveReceived({...})` checks the stub's request journal the way a
 *   scenario's `requests:` does (a `StubHandle`, a `StubConnection` or a `StubControlClient`).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { allJournalEntries, StubControlClient } from '../client/control-client.ts';
import { DEFAULT_VIRTUAL_START } from '../clock/clock.ts';
import { type JournalEntry, RequestMatcher } from '../protocol/journal.schema.ts';
import type { AnalyticEvent } from '../protocol/service-api.schema.ts';
import { fieldPath, validatorOf } from '../protocol/validator.ts';
import { type StubHandle, startStub } from '../server-stub/start-stub.ts';
import { startFleet } from '../simulator/fleet.ts';
import type { FleetHandle } from '../simulator/fleet-options.ts';
import { InProcessStubConnection } from '../stub-connection/in-process-stub-connection.ts';
import type { StubConnection } from '../stub-connection/stub-connection.ts';
import {
  checkRequestMatcher,
  describeEntry,
  describeMatcher,
  matchingRequests,
} from './checks/request-checks.ts';
import { type ActualEvent, checkEvents } from './checks/timeline-checks.ts';
import type { EventMatcher } from './format/expectations.schema.ts';
import { loadScenarioFile, ScenarioError } from './format/load-scenario.ts';
import { formatFailure, formatReport } from './reports/console.reporter.ts';
import { createHtmlReporter } from './reports/html.reporter.ts';
import type { RunSummary } from './runner/reporter.ts';
import { type RunOptions, runScenario, type ScenarioReport } from './runner/run-scenario.ts';
import { findScenarioFiles } from './runner/run-suite.ts';
import {
  type BadgeTestTrace,
  closeTestTrace,
  defaultTestTrace,
  testInspect,
  traceTest,
} from './vitest-trace.ts';

export type * from './vitest-public-types.ts';

/** The environment variable naming the HTML report of `scenarioTests` given no `htmlReport`. */
const HTML_REPORT_ENV = 'BADGE_SIM_HTML_REPORT';

export interface ScenarioTestsOptions extends RunOptions {
  timeout?: number;
  /**
   * Where to write the HTML report of these scenarios once they have run (from the working
   * directory); default: the environment variable BADGE_SIM_HTML_REPORT, else none.
   */
  htmlReport?: string;
}

/** One vitest test a scenario file; a file that cannot be loaded is a failing test. */
export function scenarioTests(paths: string | string[], options: ScenarioTestsOptions = {}): void {
  const files = findScenarioFiles(Array.isArray(paths) ? paths : [paths]);
  const htmlReport = options.htmlReport ?? (process.env[HTML_REPORT_ENV] || undefined);
  const report = htmlReport ? htmlReportWriter(resolve(htmlReport)) : undefined;
  describe('badge-sim scenarios', () => {
    if (report) afterAll(report.write);
    for (const file of files) {
      let loaded: ReturnType<typeof loadScenarioFile> | undefined;
      let problem: string | undefined;
      try {
        loaded = loadScenarioFile(file);
      } catch (error) {
        if (!(error instanceof ScenarioError)) throw error;
        problem = error.message;
      }
      const name = loaded ? `${loaded.scenario.name} (${file})` : file;
      test(
        name,
        async () => {
          if (!loaded) {
            report?.loadError(file, problem!);
            throw new Error(problem);
          }
          const started = performance.now();
          const outcome = await runScenario(loaded, options);
          report?.add(outcome, performance.now() - started);
          if (!outcome.passed) throw new Error(`\n${formatReport(outcome)}`);
        },
        options.timeout ?? 30_000,
      );
    }
  });
}

/** Gathers the scenarios' reports as their tests end; writes the HTML report after the last. */
function htmlReportWriter(file: string) {
  const reporter = createHtmlReporter();
  const summary: RunSummary = { passed: 0, failed: 0, reports: [], loadErrors: [] };
  reporter.onStart?.(0);
  return {
    add(outcome: ScenarioReport, wallMs: number) {
      summary.reports.push(outcome);
      if (outcome.passed) summary.passed++;
      else summary.failed++;
      reporter.onScenarioEnd?.(outcome, wallMs);
    },
    loadError(source: string, message: string) {
      summary.loadErrors.push({ source, message });
      summary.failed++;
    },
    write() {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, reporter.onEnd!(summary)!);
    },
  };
}

export interface BadgeFixtures {
  /**
   * Whether the test's session is traced (TR13): `on`, `off`, `retain-on-failure`, or
   * `{ mode, dir }`; default `retain-on-failure` under CI, else `off`. Set it with
   * `badgeTest.override({ trace: 'on' })`.
   */
  trace: BadgeTestTrace;
  /** An embedded stub on the virtual clock with the default fixtures. */
  stub: StubHandle;
  /** The connection to `stub`, as the scenario runner and the fleet use it. */
  connection: StubConnection;
  /** A connected badge for every device of the stub's fixtures. */
  fleet: FleetHandle;
}

/** vitest's `test`, with an embedded stub and a fleet that are closed after each test. */
export const badgeTest = test.extend<BadgeFixtures>({
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads the fixture's dependencies from this pattern.
  trace: async ({}, use) => use(defaultTestTrace()),
  stub: async ({ trace, task }, use) => {
    const stub = await startStub();
    traceTest(stub, trace, { file: task.file.filepath, name: task.fullName ?? task.name });
    await use(stub);
    // vitest has marked the test failed (or not) before it tears its fixtures down.
    await closeTestTrace(stub, task.result?.errors, () => stub.close());
  },
  connection: async ({ stub }, use) => {
    const connection = new InProcessStubConnection(stub, {
      control: () => new StubControlClient(stub.url, { ca: stub.tls?.caPem }),
    });
    await use(connection);
    await connection.close();
  },
  fleet: async ({ stub, connection }, use) => {
    const inspect = testInspect(stub);
    const fleet = await startFleet({ stub: connection, ...(inspect ? { inspect } : {}) });
    await fleet.waitUntilConnected();
    await use(fleet);
    await fleet.close();
  },
});

export interface EventSequenceOptions {
  /** Where `at:` counts from: ms or ISO (default: the start of virtual time, 2026-01-01). */
  start?: number | string;
  order?: 'strict' | 'any';
  only?: boolean;
  /** Task names for `task:` matchers: name → task id. */
  tasks?: Record<string, string>;
}

interface EventMatchers<R = unknown> {
  /** The analytic events match these, as in a scenario's `expect.events`. */
  toMatchEventSequence(items: EventMatcher[], options?: EventSequenceOptions): R;
}

/** What `toHaveReceived` reads the request journal of. */
export type JournalSource = StubHandle | StubConnection | StubControlClient;

interface JournalMatchers<R = unknown> {
  /**
   * The stub's request journal has requests like this, as a scenario's `requests:` says it
   * (at least one unless `count` says otherwise). Await it: the journal is read from the stub.
   */
  toHaveReceived(matcher: RequestMatcher): Promise<R>;
}

declare module 'vitest' {
  // biome-ignore lint/suspicious/noExplicitAny: a merged declaration must repeat vitest's own default.
  interface Assertion<T = any> extends EventMatchers<T>, JournalMatchers<T> {}
  interface AsymmetricMatchersContaining extends EventMatchers {}
}

expect.extend({
  toMatchEventSequence(
    received: AnalyticEvent[],
    items: EventMatcher[],
    options: EventSequenceOptions = {},
  ) {
    const start =
      options.start === undefined
        ? DEFAULT_VIRTUAL_START
        : typeof options.start === 'number'
          ? options.start
          : Date.parse(options.start);
    const names = new Map(Object.entries(options.tasks ?? {}).map(([name, id]) => [id, name]));
    const actual: ActualEvent[] = received.map((e) => ({
      type: e.content.type,
      device: e.content.device,
      status: e.content.status,
      task: names.get(e.task.id),
      taskId: e.task.id,
      name: e.task.name,
      at: Date.parse(e.timestamp) - start,
    }));
    const failure = checkEvents(
      { items, order: options.order ?? 'strict', only: options.only ?? false },
      actual,
      0,
    );
    return {
      pass: failure === undefined,
      message: () =>
        failure
          ? `events do not match:\n${formatFailure(failure)}`
          : 'expected the events not to match, but they do',
    };
  },
});

const validRequestMatcher = validatorOf(RequestMatcher);

/** Every entry of a stub's request journal: an embedded stub's is read from its core. */
function journalOf(source: JournalSource): Promise<JournalEntry[]> {
  if (source === null || typeof source !== 'object' || !('core' in source || 'journal' in source))
    throw new TypeError(
      'badge-sim: toHaveReceived reads the journal of a StubHandle, a StubConnection or a StubControlClient',
    );
  if ('core' in source) {
    const journal = source.core.journal;
    return allJournalEntries({
      journal: async ({ after, limit }) => journal.list({ after, limit }),
    });
  }
  return allJournalEntries(source);
}

expect.extend({
  async toHaveReceived(received: JournalSource, matcher: RequestMatcher) {
    if (!validRequestMatcher(matcher)) {
      const [error] = validRequestMatcher.errors ?? [];
      const field = error ? fieldPath(error) : '';
      const detail =
        error?.keyword === 'additionalProperties'
          ? 'is not a field of a request matcher (method, path, body, status, fault, count)'
          : (error?.message ?? 'is invalid');
      throw new TypeError(`badge-sim: toHaveReceived: ${field || 'the matcher'} ${detail}`);
    }
    const entries = await journalOf(received);
    const mismatch = checkRequestMatcher(matcher, entries);
    const lines = (list: string[]) => list.map((line) => `\n  ${line}`).join('');
    return {
      pass: mismatch === undefined,
      message: () =>
        mismatch
          ? `the stub did not receive ${describeMatcher(matcher)}: ${mismatch.message}; ${mismatch.shown}:${lines(mismatch.actual)}`
          : `expected the stub not to have received ${describeMatcher(matcher)}, but it did:${lines(
              matchingRequests(matcher, entries).slice(0, 5).map(describeEntry),
            )}`,
    };
  },
});
