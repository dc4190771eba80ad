/**
 * The state of everything a trace shows at one instant (TR9): each badge's machine state,
 * whether it is online, the clip it plays or says and those waiting behind it, and each alert
 * as its last `alert` record left it. What the trace viewer shows at its cursor, folded from
 * the records up to it, so any instant is rebuilt from the trace alone; from the nearest
 * `snapshot` record before it when the trace has them (TR14), not from the start.
 */
import type { RecordLine } from '../protocol/recording.schema.ts';
import { parseTimestamp } from '../protocol/timestamp.ts';
import type { AlertRecordFields } from '../protocol/trace.schema.ts';

/** A clip as a `transition` record names it. */
interface InstantClip {
  kind: string;
  task: string;
  text: string;
}

interface InstantBadge {
  /** Its machine's state (a dotted path, `online.playing`), or null before its first transition. */
  state: string | null;
  online: boolean;
  current: InstantClip | null;
  queue: InstantClip[];
}

/** An alert as its last `alert` record left it (`next_repeat_at` null from a trace older than TR10). */
type InstantAlert = Omit<AlertRecordFields, 'account' | 'task_id' | 'cause'>;

export interface TraceInstant {
  /** The last record folded in (its `seq` and `time`), or null before the first. */
  seq: number | null;
  time: string | null;
  badges: Record<string, InstantBadge>;
  alerts: Record<string, InstantAlert>;
}

/** What a `snapshot` record holds: the badges and alerts folded from every record before it. */
type InstantState = Pick<TraceInstant, 'badges' | 'alerts'>;

/** Nothing folded yet. */
export function emptyInstant(): TraceInstant {
  return { seq: null, time: null, badges: {}, alerts: {} };
}

/** Folds one record into `instant` (in `seq` order; a `snapshot` changes nothing). */
export function foldRecord(instant: TraceInstant, record: RecordLine): void {
  instant.seq = record.seq;
  instant.time = record.time;
  const device = typeof record.device === 'string' ? record.device : undefined;
  const badge = (id: string) =>
    (instant.badges[id] ??= { state: null, online: false, current: null, queue: [] });
  if (record.kind === 'connect' && device) badge(device).online = true;
  else if (record.kind === 'close' && device) badge(device).online = false;
  else if (record.kind === 'transition' && device)
    Object.assign(badge(device), {
      state: record.to as string,
      current: record.current as InstantClip | null,
      queue: record.queue as InstantClip[],
    });
  else if (record.kind === 'alert') {
    const { name, state, outcome, quorum, acknowledgements, timeout_at } =
      record as unknown as InstantAlert;
    const { next_repeat_at = null, acknowledged, pending } = record as unknown as InstantAlert;
    instant.alerts[record.task_id as string] = {
      ...{ name, state, outcome, quorum, acknowledgements, timeout_at, next_repeat_at },
      ...{ acknowledged, pending },
    };
  }
}

/**
 * Everything as it stands once the first `count` records (in `seq` order) have happened:
 * from the last `snapshot` record among them (TR14), else from the start.
 */
export function foldTrace(records: readonly RecordLine[], count: number): TraceInstant {
  const end = Math.min(records.length, Math.max(0, count));
  let from = end - 1;
  while (from >= 0 && records[from]!.kind !== 'snapshot') from--;
  const instant = emptyInstant();
  if (from >= 0) Object.assign(instant, structuredClone(records[from]!.state as InstantState));
  for (let i = Math.max(0, from); i < end; i++) foldRecord(instant, records[i]!);
  return instant;
}

/** Everything as it stands at `time` (µs timestamp): every record up to it folded in. */
export function traceAt(records: readonly RecordLine[], time: string): TraceInstant {
  const at = parseTimestamp(time);
  if (at === undefined) throw new RangeError(`badge-sim: ${time} is not a timestamp`);
  let count = 0;
  for (const record of records) {
    if ((parseTimestamp(record.time) ?? 0) > at) break;
    count++;
  }
  return foldTrace(records, count);
}
