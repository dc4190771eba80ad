/**
 * A scenario's trace (`badge-sim run --trace`, TR5, TR8): its embedded stub's records, each
 * badge machine's transitions (`transition`), each step and its answer (`step`) and the
 * verdict (`verdict`), in one file on the stub's clock, ordered by `seq`. The trace is kept
 * (`on`) or only when the scenario fails (`retain-on-failure`). A run that traces nothing
 * never loads this module.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { InspectionEvent } from 'xstate';
import type { StubHandle } from '../../server-stub/start-stub.ts';
import { startTrace, type TraceWriter } from '../../server-stub/trace-file.ts';
import { transitionInspector } from '../../simulator/trace-transitions.ts';
import type { StubConnection } from '../../stub-connection/stub-connection.ts';
import type { Failure } from '../checks/timeline-checks.ts';
import type { StepObserver } from './step-progress.ts';

/** What `run --trace` asks of each scenario. */
export interface RunTraceOptions {
  /** `on`: every scenario's trace is kept; `retain-on-failure`: a failed scenario's only. */
  keep: 'on' | 'retain-on-failure';
  /** The folder the traces go to (made if missing). */
  dir: string;
  /** Told of each trace kept, once written whole. */
  onKept?: (file: string, scenario: string) => void;
}

/** `a/b/tap-after-end.yaml`, `Tap after the end` → `tap-after-end--tap-after-the-end.trace.gz`. */
export function traceFileName(source: string, name: string): string {
  const slug = (text: string) =>
    text
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60) || 'scenario';
  return `${slug(basename(source).replace(/\.(scenario\.)?ya?ml$/i, ''))}--${slug(name)}.trace.gz`;
}

/** One scenario's trace while it runs. */
export class RunTrace {
  readonly file: string;
  readonly #stub: StubHandle;
  readonly #writer: TraceWriter;
  readonly #options: RunTraceOptions;
  readonly #scenario: string;
  #passed = false;

  constructor(
    stub: StubHandle,
    scenario: { name: string; source: string },
    options: RunTraceOptions,
  ) {
    mkdirSync(options.dir, { recursive: true });
    this.file = join(options.dir, traceFileName(scenario.source, scenario.name));
    this.#stub = stub;
    this.#options = options;
    this.#scenario = scenario.name;
    // Under retain-on-failure a passing scenario's trace is never written (see `close`).
    this.#writer = startTrace(
      stub.core,
      this.file,
      { source: 'run', scenario: scenario.name },
      undefined,
      undefined,
      options.keep === 'retain-on-failure',
    );
  }

  /** The fleet's `inspect`: each badge's transitions (and coverage's `inspect`, if given). */
  inspect(alsoTell?: (event: InspectionEvent) => void): (event: InspectionEvent) => void {
    const recorder = this.#stub.core.recorder;
    const transitions = transitionInspector((t) => recorder.add('transition', { ...t }));
    return alsoTell
      ? (event) => {
          transitions(event);
          alsoTell(event);
        }
      : transitions;
  }

  /** The runner's step observer: a `step` record of each, then `alsoTell` (`--verbose`). */
  observe(alsoTell?: StepObserver): StepObserver {
    return (progress) => {
      const { index, at, action, status, mismatch } = progress;
      this.#stub.core.recorder.add('step', {
        index,
        at,
        action,
        ...(progress.step.as === undefined ? {} : { as: progress.step.as }),
        ...(status === undefined ? {} : { status }),
        ...(mismatch === undefined ? {} : { mismatch }),
      });
      alsoTell?.(progress);
    };
  }

  /** The `verdict` record: passed, or each failure with what was expected and what happened. */
  verdict(failures: readonly Failure[]): void {
    this.#passed = failures.length === 0;
    this.#stub.core.recorder.add('verdict', {
      passed: this.#passed,
      failures: failures.map(({ what, message, expected, actual, firstDifference }) => ({
        what,
        message,
        expected,
        actual,
        first_difference: firstDifference ?? null,
      })),
    });
  }

  /**
   * Closes the file; removes it if the scenario passed and only failures are kept. Resolves
   * to the file when it is kept.
   */
  async close(): Promise<string | undefined> {
    const drop = this.#passed && this.#options.keep === 'retain-on-failure';
    await this.#writer.close(!drop);
    if (drop) {
      // Written anyway only when it outgrew memory (TRACE_CHUNK_CHARS).
      rmSync(this.file, { force: true });
      return undefined;
    }
    this.#options.onKept?.(this.file, this.#scenario);
    return this.file;
  }
}

/** A stub the runner reaches (`stub`: the handle of one in this process, which a trace needs). */
export interface ConnectedStub {
  connection: StubConnection;
  send: typeof fetch;
  release?: () => Promise<void>;
  stub?: StubHandle;
}

/** What a scenario's run hands its fleet and its timeline: traced, or as asked (no trace). */
export interface TracedRun {
  trace: RunTrace | undefined;
  inspect: ((event: InspectionEvent) => void) | undefined;
  onStep: StepObserver | undefined;
  /**
   * Closes the trace (kept or not), then gives a kept stub back (its `release`); resolves to
   * the trace's file when it is kept (the report names it, TR11).
   */
  close(): Promise<string | undefined>;
}

/**
 * The trace of a scenario whose stub runs in this process (`stub`), if `run --trace` asks for
 * one; the fleet's `inspect` and the step observer, with it or without.
 */
export function traceRun(
  { stub, release }: ConnectedStub,
  scenario: { name: string; source: string },
  options: {
    trace?: RunTraceOptions;
    onStep?: StepObserver;
    coverage?: { badges: { inspect: (event: InspectionEvent) => void } };
  },
): TracedRun {
  const inspect = options.coverage?.badges.inspect;
  if (stub === undefined || options.trace === undefined)
    return {
      trace: undefined,
      inspect,
      onStep: options.onStep,
      close: async () => {
        await release?.();
        return undefined;
      },
    };
  const trace = new RunTrace(stub, scenario, options.trace);
  return {
    trace,
    inspect: trace.inspect(inspect),
    onStep: trace.observe(options.onStep),
    async close() {
      const kept = await trace.close();
      await release?.();
      return kept;
    },
  };
}
