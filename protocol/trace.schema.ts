/**
 * A trace (issue 33): everything that happened in a stub's session or a scenario's run, in
 * order on the stub's clock, as gzip-compressed JSON lines. The first line is a header naming
 * the format; every other line is a record of the session recording (recording.schema.ts),
 * with the kinds only a trace holds (`transition`, `alert`, `step`, `verdict`). One model of
 * what happened: the records of a trace are those of a recording (TR1).
 */

/** The format of the header's `format`: a newer number is refused by an older reader (TR4). */
export const TRACE_FORMAT = 'badge-sim-trace/1';

/** The first line of a trace. */
export interface TraceHeader {
  format: typeof TRACE_FORMAT;
  /** What wrote it: `stub` (`stub --trace`, `startStub({ trace })`) or `run` (a scenario's). */
  source: 'stub' | 'run';
  /** The scenario traced, for a run's trace. */
  scenario?: string;
  /** The stub clock's time when the trace began (µs). */
  started: string;
  /** Records kept at most, and their JSON text at most (past either, a `capped` record). */
  limit: number;
  max_chars: number;
  /** Records between two `snapshot` records (TR14); absent in older traces, which have none. */
  snapshot_every?: number;
}

/** An alert task after a change, as a trace keeps it (TR6). */
export interface AlertRecordFields {
  account: string;
  task_id: string;
  name: string;
  /** The analytic event that changed it, or `play`: it played or repeated on devices (TR10). */
  cause: string;
  state: string;
  outcome: string | null;
  quorum: number;
  acknowledgements: number;
  /** When it times out (µs), if it has not ended. */
  timeout_at: string | null;
  /**
   * When it next plays again on one of its devices (µs): the earliest repeat the engine keeps
   * for it, null when none (ended, or not yet played anywhere). Absent in older traces (TR10).
   */
  next_repeat_at?: string | null;
  acknowledged: string[];
  /** Devices still to acknowledge: queued or playing. */
  pending: string[];
}
