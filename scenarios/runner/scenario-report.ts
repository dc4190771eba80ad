/** What a run of one scenario reports: the outcome, what happened, each badge's lane. */

import type { AnalyticEvent } from '../../protocol/service-api.schema.ts';
import type { WorkflowInvocation } from '../../server-stub/stub-core.ts';
import type { ActualHeard, Failure } from '../checks/expectations.ts';
import type { RunMode } from './rerun-command.ts';

/** The outcome of one scenario. Deterministic for a seed: no wall-clock time in it. */
export interface ScenarioReport {
  name: string;
  source: string;
  proves: string;
  passed: boolean;
  seed: number;
  mode: RunMode;
  failures: Failure[];
  /** What happened, for the JSON report: events as the service returned them, and transcripts. */
  actual: {
    events: AnalyticEvent[];
    heard: Record<string, ActualHeard[]>;
    states: Record<string, string>;
    tasks: Record<string, string>;
    invocations: WorkflowInvocation[];
    token_requests: number;
  };
  /**
   * One lane a badge of the run, for the HTML report's swimlanes: what it played and said,
   * its taps, its offline windows. Times in ms from the start, like `heard`.
   */
  lanes?: BadgeLane[];
  /** How long the run lasted on its clock (ms from the start to when it was collected). */
  endMs?: number;
  /** When the run began on its clock (ISO): the zero of every `at`, events' timestamps included. */
  startedAt?: string;
  /** The command that runs this scenario again. */
  rerun: string;
  /** Its trace's file when one was kept (`run --trace`, TR11), as written: relative to the working folder unless `--trace-dir` was absolute. */
  trace?: string;
  /**
   * What the run noticed that is not a failure of the scenario: a badge that did not answer
   * the stub within the bound, so the clock went on without it. Said once each.
   */
  notes?: string[];
}

/** What one badge did in a run, ms from the start (the HTML report draws it). */
export interface BadgeLane {
  device: string;
  user: string;
  /** Each clip it heard: an alert's plays (`repeat` 0 the first), a broadcast, speech. */
  clips: {
    at: number;
    durationMs: number;
    kind: string;
    text: string;
    task?: string;
    repeat?: number;
    cause?: string;
    cut?: true;
  }[];
  /** When its talk button was pressed. */
  taps: number[];
  /** When it was off the network: from, and to (the end of the run if it never came back). */
  offline: { from: number; to: number }[];
}
