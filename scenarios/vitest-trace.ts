/**
 * A `badgeTest`'s trace (`badge-sim/vitest`, TR13): its stub's records and its badges'
 * transitions, as `run --trace` writes a scenario's, with a `verdict` of the test. The
 * fixture `trace` says whether: `on`, `off` or `retain-on-failure` (kept only when the test
 * fails), by default `retain-on-failure` when `CI` is set, else `off`, as `run --trace`; give
 * `{ mode, dir }` for another folder than `./badge-sim-traces`. A test that traces nothing
 * makes nothing of it: no file, no listener, no inspect.
 */
import type { InspectionEvent } from 'xstate';
import type { StubHandle } from '../server-stub/start-stub.ts';
import { RunTrace, type RunTraceOptions } from './runner/run-trace.ts';

/** Whether a test's session is traced, and where (the `trace` fixture). */
export type BadgeTestTrace =
  | RunTraceOptions['keep']
  | 'off'
  | { mode: RunTraceOptions['keep'] | 'off'; dir?: string };

/** The folder a test's trace goes to when the fixture names none (as `run --trace`'s). */
const DEFAULT_TEST_TRACE_DIR = 'badge-sim-traces';

/** The `trace` fixture's value when a test does not set it: `run --trace`'s default. */
export function defaultTestTrace(): BadgeTestTrace {
  return process.env.CI ? 'retain-on-failure' : 'off';
}

/** The traces of the tests running now, by their stub (the fleet fixture reads it). */
const testTraces = new WeakMap<StubHandle, RunTrace>();

/** What the test fixtures know of the test: its file and its full name. */
interface TracedTest {
  file: string;
  name: string;
}

/** Starts the trace of `test`'s session on `stub` when `trace` asks for one. */
export function traceTest(stub: StubHandle, trace: BadgeTestTrace, test: TracedTest): void {
  const { mode, dir } = typeof trace === 'string' ? { mode: trace, dir: undefined } : trace;
  if (mode === 'off') return;
  const options = { keep: mode, dir: dir ?? DEFAULT_TEST_TRACE_DIR };
  testTraces.set(stub, new RunTrace(stub, { name: test.name, source: test.file }, options));
}

/** The fleet's `inspect` when the test is traced: each badge's transitions. */
export function testInspect(stub: StubHandle): ((event: InspectionEvent) => void) | undefined {
  return testTraces.get(stub)?.inspect();
}

/**
 * The end of a test with its stub: the test's `verdict` (its errors' messages), the stub
 * closed (`closeStub`: its `end` record), then the file, removed if the test passed and only
 * failures are kept. Resolves to the file when it is kept.
 */
export async function closeTestTrace(
  stub: StubHandle,
  errors: readonly { message?: string }[] | undefined,
  closeStub: () => Promise<void>,
): Promise<string | undefined> {
  const trace = testTraces.get(stub);
  if (trace === undefined) {
    await closeStub();
    return undefined;
  }
  testTraces.delete(stub);
  trace.verdict(
    (errors ?? []).map((error) => ({
      what: 'test',
      message: error.message ?? String(error),
      expected: [],
      actual: [],
    })),
  );
  await closeStub();
  return trace.close();
}
