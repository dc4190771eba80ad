/**
 * Runs one scenario and reports what happened against what it expects.
 *
 * - embedded (default): a stub and the badges in this process on one virtual clock: fast and
 *   deterministic;
 * - external: drives a running stub (a container) through its control API and its clock;
 * - realtime: an embedded stub on the wall clock, for demos and soak runs.
 *
 * Every mode talks to the stub over real HTTP and WebSocket, through a `StubConnection`; only
 * the clock differs. A run reads: prepare (stub, badges, clients), run the timeline through
 * the step handlers (steps.ts), collect what happened, check it (expectations.ts).
 */

import { formatTimestamp } from '../../clock/clock.ts';
import { parseDuration } from '../../protocol/duration.ts';
import type { FleetHandle } from '../../simulator/fleet-options.ts';
import type { StubConnection } from '../../stub-connection/stub-connection.ts';
import { checkExpectations, type Failure } from '../checks/expectations.ts';
import { type LoadedScenario, ScenarioError } from '../format/load-scenario.ts';
import type { Scenario } from '../format/scenario.schema.ts';
import { type Actual, collect } from './collect-actual.ts';
import type { RunCoverage } from './coverage.ts';
import { type RunMode, rerunCommand } from './rerun-command.ts';
import { addRunCoverage, startRunRecording } from './run-history.ts';
import { runTimeline } from './run-timeline.ts';
import { type RunTraceOptions, traceRun } from './run-trace.ts';
import { accountOf, type ScenarioAccount } from './scenario-account.ts';
import { startBadges } from './scenario-badges.ts';
import { connectStub, restoreWorld, ScenarioStubControl } from './scenario-connection.ts';
import { resolveFixtures } from './scenario-fixtures.ts';
import type { ScenarioReport } from './scenario-report.ts';
import { stepContext } from './step-context.ts';
import type { StepObserver } from './step-progress.ts';

export type { BadgeLane, ScenarioReport } from './scenario-report.ts';
export type { RunMode };

export interface RunOptions {
  /** Writes each embedded scenario's trace (`run --trace`, TR8). */
  trace?: RunTraceOptions;
  mode?: RunMode;
  /** The stub's base URL, for external mode. */
  stubUrl?: string;
  /** The control token of the external stub, if its control API is locked. */
  controlToken?: string;
  /** Seed when the scenario gives none (default 0). */
  seed?: number;
  /**
   * How an embedded run reaches its stub: in this process without a socket (the default: the
   * badges' frames, decision SP5, and the clients' requests, SP6), or on the stub's port as a
   * fleet and clients of another process would (`network`).
   */
  link?: 'in-process' | 'network';
  /**
   * Collects what the run exercised (`run --coverage`): the badge machine's transitions its
   * badges take, the alert model's its stub's history shows, the decision rows it names.
   */
  coverage?: RunCoverage;
  /** Told of each step once it has run (`run --verbose`, step-progress.ts). */
  onStep?: StepObserver;
}

/** The tolerance of `at` when a scenario gives none: exact on the virtual clock. */
const DEFAULT_TOLERANCE_MS: Record<RunMode, number> = { embedded: 0, external: 0, realtime: 2_000 };

export async function runScenario(
  loaded: LoadedScenario,
  options: RunOptions = {},
): Promise<ScenarioReport> {
  const { scenario, source } = loaded;
  const mode = options.mode ?? 'embedded';
  const seed = scenario.seed ?? options.seed ?? 0;
  const fixtures = resolveFixtures(scenario);
  // Where a path is written (file:line:column), for the names found missing as it runs.
  const place = (path: string) => loaded.where?.(path) ?? source;
  const account = accountOf(scenario, fixtures, place);

  // Prepare: the stub, the badges, the clients.
  const reach = { ...options, restoring: loaded.from !== undefined };
  const connected = await connectStub(mode, fixtures, seed, scenario.settings ?? {}, reach);
  const { connection, send } = connected;
  const traced = traceRun(connected, { name: scenario.name, source }, options);
  const notes = new Set<string>();
  const stopHolds = connection.onHold((message) => notes.add(message));
  let fleet: FleetHandle | undefined;
  // Coverage reads the stub's session recording: taps, DELETE answers, badges off and on line.
  const control = options.coverage
    ? new ScenarioStubControl(connection.url, options.controlToken, send)
    : undefined;
  let recordingStarted = false;
  let report: ScenarioReport | undefined;
  try {
    if (loaded.from) await restoreWorld(connected, loaded.from, mode, { ...options, place });
    const start = await connection.now();
    if (control) recordingStarted = await startRunRecording(control);
    // The settings are read while the badges connect; awaited (and any failure thrown) below.
    const settings = connection.settings();
    settings.catch(() => undefined);
    const from = loaded.from?.badges;
    fleet = await startBadges(scenario, place, account, connection, seed, traced.inspect, from);
    const context = stepContext(
      mode,
      source,
      start,
      account,
      connection,
      send,
      fleet,
      await settings,
      () => control ?? new ScenarioStubControl(connection.url, options.controlToken, send),
    );

    // Run the timeline through the step handlers.
    const failures = await runTimeline(scenario, context, traced.onStep);
    if (scenario.duration) await context.advanceTo(start + parseDuration(scenario.duration)!);
    await fleet?.settled();

    // Collect what happened, and check it against what was expected.
    const actual = await collect(scenario, account, context);
    failures.push(...checkActual(scenario, actual, account, mode, place));
    traced.trace?.verdict(failures);
    if (options.coverage && control) {
      const note = await addRunCoverage(options.coverage, {
        connection,
        control,
        start,
        subscriberId: account.fixture.subscriber_id,
        devices: new Set(account.devices.keys()),
        events: actual.rawEvents,
        decisions: failures.length === 0 ? (scenario.decisions ?? []) : [],
      });
      if (note) notes.add(note);
    }
    const run = { source, seed, mode, start, failures, notes, taskIds: context.taskIds };
    report = reportOf(scenario, run, actual, connection, options);
    return report;
  } finally {
    stopHolds();
    if (recordingStarted && mode === 'external') await control?.stopRecording();
    await fleet?.close();
    await connection.close();
    const trace = await traced.close();
    if (report && trace !== undefined) report.trace = trace;
  }
}

/** The scenario's expectations held against what happened: the failures. */
function checkActual(
  scenario: Scenario,
  actual: Actual,
  account: ScenarioAccount,
  mode: RunMode,
  place: (path: string) => string,
): Failure[] {
  return checkExpectations(scenario.expect, actual, {
    toleranceMs: DEFAULT_TOLERANCE_MS[mode],
    resolve: account.resolve,
    userName: (id) => account.devices.get(id)?.user ?? id,
    problem: (path, message) => new ScenarioError(`badge-sim: ${place(path)}: ${path}: ${message}`),
  });
}

/** How the run went, apart from what happened in it. */
interface RunOutcome {
  source: string;
  seed: number;
  mode: RunMode;
  /** The stub's time when the scenario started. */
  start: number;
  failures: Failure[];
  notes: Set<string>;
  taskIds: Map<string, string>;
}

function reportOf(
  scenario: Scenario,
  run: RunOutcome,
  actual: Actual,
  connection: StubConnection,
  options: RunOptions,
): ScenarioReport {
  const { source, seed, mode, failures } = run;
  return {
    name: scenario.name,
    source,
    proves: scenario.proves,
    passed: failures.length === 0,
    seed,
    mode,
    failures,
    actual: {
      events: actual.rawEvents,
      heard: Object.fromEntries(actual.heard),
      states: Object.fromEntries(actual.states),
      tasks: Object.fromEntries(run.taskIds),
      invocations: actual.rawInvocations,
      token_requests: actual.tokenRequests,
    },
    lanes: actual.lanes,
    endMs: actual.endMs,
    startedAt: formatTimestamp(run.start),
    notes: [...run.notes],
    rerun: rerunCommand({
      ...options,
      source,
      name: scenario.name,
      seed,
      mode,
      stubUrl: connection.url,
    }),
  };
}
