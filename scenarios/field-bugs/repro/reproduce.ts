/**
 * `repro` end to end, without the command line: read the export, infer the scenario, write it
 * as YAML and load that back with the project's own loader, run it on the virtual clock (an
 * embedded stub) and compare the histories.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Fixtures } from '../../../fixtures/fixtures.schema.ts';
import { parseYaml } from '../../../input/yaml-source.ts';
import type { CancelEvents } from '../../../protocol/control-api.schema.ts';
import { parseDuration } from '../../../protocol/duration.ts';
import { parseTimestamp } from '../../../protocol/timestamp.ts';
import { checkScenario, type LoadedScenario } from '../../format/load-scenario.ts';
import { runScenario } from '../../runner/run-scenario.ts';
import {
  type Comparison,
  compareHistories,
  type HeardByUser,
  type HistoryEvent,
  stubHistory,
} from './compare-histories.ts';
import { type Inferred, inferScenario, scenarioYaml } from './infer-scenario.ts';
import {
  ExportError,
  type ExportFile,
  type FieldEvent,
  readExports,
  type SentAlert,
} from './read-export.ts';

export interface ReproInput {
  exports: ExportFile[];
  sent?: SentAlert[];
  fixtures?: Fixtures;
  /** How far apart in time two events may be and still match (default 0: exact to the ms). */
  toleranceMs?: number;
  /** Told of each stage, for progress lines. */
  progress?: (line: string) => void;
  /** Writes the run's trace here, with the field's events and where they part (TR12). */
  trace?: string;
}

export interface ReproResult {
  inferred: Inferred;
  yaml: string;
  comparison: Comparison;
  /** Steps the stub refused that the field's service took: said before the histories. */
  refused: string[];
  eventCount: number;
}

export async function reproduce(input: ReproInput): Promise<ReproResult> {
  const say = input.progress ?? (() => {});
  const events = readEvents(input);
  say(`read ${events.length} events from ${input.exports.length} file(s)`);
  const inferred = inferFrom(events, input);
  const yaml = scenarioYaml(inferred);
  say(
    `running the inferred scenario: ${inferred.alerts.length} alert(s), ${inferred.scenario.timeline.length} steps, on the virtual clock`,
  );
  const { comparison, refused } = await runInferred(
    inferred,
    input.toleranceMs ?? 0,
    yaml,
    input.trace,
  );
  if (input.trace !== undefined)
    say(
      `wrote the trace to ${input.trace}: the run, the field's events as a lane of their own${comparison.difference ? ', and where they part' : ''}`,
    );
  return { inferred, yaml, comparison, refused, eventCount: events.length };
}

/** The export's events, merged and ordered; none is an error that says what to export. */
export function readEvents(input: ReproInput): FieldEvent[] {
  const events = readExports(input.exports);
  if (events.length === 0)
    throw new ExportError(
      `${input.exports.map((e) => e.file).join(', ')}: no events; export a span in which the bug happened`,
    );
  return events;
}

/** The scenario the events (and the optional inputs) tell, under a cancel-events reading. */
export function inferFrom(
  events: FieldEvent[],
  input: ReproInput,
  cancelEvents?: CancelEvents,
): Inferred {
  return inferScenario(events, {
    sources: input.exports.map((e) => e.file),
    sent: input.sent,
    fixtures: input.fixtures,
    toleranceMs: input.toleranceMs ?? 0,
    ...(cancelEvents ? { cancelEvents } : {}),
  });
}

/** What one run of an inferred scenario (or a variant of it) gave, against the field's. */
export interface InferredRun {
  comparison: Comparison;
  /** Steps whose answer was not what the field's service gave (a body the stub refused). */
  refused: string[];
  /** What each badge heard in the run, by user name. */
  heard: HeardByUser;
}

/**
 * Runs an inferred scenario on the virtual clock (an embedded stub) and compares its history
 * with the field's. What runs is its YAML read back through the loader's checks: what is
 * printed or written is what ran.
 */
export async function runInferred(
  inferred: Inferred,
  toleranceMs: number,
  yaml = scenarioYaml(inferred),
  traceFile?: string,
): Promise<InferredRun> {
  const loaded: LoadedScenario = {
    scenario: checkScenario(parseYaml(yaml, '<inferred>').value),
    source: '<inferred>',
  };
  // Traced into a folder of its own, then written whole with the field's history (TR12).
  const traceDir =
    traceFile === undefined ? undefined : mkdtempSync(join(tmpdir(), 'badge-sim-repro-'));
  const report = await runScenario(loaded, {
    mode: 'embedded',
    ...(traceDir === undefined ? {} : { trace: { keep: 'on' as const, dir: traceDir } }),
  });
  // The start of an alert that began before the export is the scenario's, not the field's.
  const startedBefore = new Set(inferred.alerts.filter((a) => !a.startSeen).map((a) => a.alias));
  const stub = stubHistory(report.actual.events, report.actual.tasks, runStart(inferred, report));
  const heard = heardByUser(inferred, report.actual.heard);
  const comparison = compareHistories(
    fieldHistory(inferred),
    stub.filter((e) => !(e.type === 'start' && startedBefore.has(e.task))),
    { toleranceMs, heard },
  );
  const refused = report.failures
    .filter((f) => f.what.startsWith('timeline['))
    .map((f) => `${f.what}: ${f.message}; ${f.actual.find((a) => a.startsWith('body ')) ?? ''}`);
  if (traceFile !== undefined && traceDir !== undefined) {
    const { writeReproTrace } = await import('./repro-trace.ts');
    try {
      writeReproTrace(traceFile, report.trace!, comparison, runStart(inferred, report));
    } finally {
      rmSync(traceDir, { recursive: true, force: true });
    }
  }
  return { comparison, heard, refused };
}

/** The field's events as a history: the scenario's expectations, times in ms. */
function fieldHistory(inferred: Inferred): HistoryEvent[] {
  return inferred.expected.map((m) => ({
    at: parseDuration(m.at!)!,
    type: m.type!,
    task: m.task!,
    ...(m.device !== undefined ? { device: m.device } : {}),
    ...(m.status !== undefined ? { status: m.status } : {}),
  }));
}

/**
 * The instant the run began, in µs: its first alert's `start` less that alert's step time (the
 * report keeps times absolute; the first alert always posts, its start is always there).
 */
function runStart(inferred: Inferred, report: Awaited<ReturnType<typeof runScenario>>): number {
  const first = inferred.alerts[0]!;
  const id = report.actual.tasks[first.alias];
  const start = report.actual.events.find((e) => e.task.id === id && e.content.type === 'start');
  const anchor = start?.timestamp ?? report.actual.events[0]?.timestamp;
  return anchor === undefined ? 0 : parseTimestamp(anchor)! - first.startMs * 1000;
}

/** The run's transcripts by user name rather than device id. */
function heardByUser(
  inferred: Inferred,
  heard: Record<string, HeardByUser extends Map<string, infer H> ? H : never>,
): HeardByUser {
  const fixtures = inferred.scenario.fixtures as Fixtures;
  const users = new Map(fixtures.accounts.flatMap((a) => a.devices).map((d) => [d.id, d.user]));
  return new Map(Object.entries(heard).map(([id, clips]) => [users.get(id) ?? id, clips]));
}
