/**
 * When things happened in a session recording, as a replay needs them (decision RS11): the
 * instant the stub acted on each request and tap, and the instant each analytic event is
 * expected. On a running clock a record's own time is not that instant: a request is stamped
 * when it arrived and handled later, a tap is recorded after the engine acted, and a timer
 * fires a little after it was due. What the stub did is stamped when it did it: the events an
 * action caused say when it acted, and a replay on the virtual clock, where an action and its
 * effects share one instant, gives them all that instant.
 */

import { ownValue } from '../../../input/own.ts';
import type { JournalEntry } from '../../../protocol/journal.schema.ts';
import type { RecordLine } from '../../../protocol/recording.schema.ts';
import { type AnalyticEvent, TIMEOUT_DEFAULT_S } from '../../../protocol/service-api.schema.ts';
import { parseTimestamp } from '../../../protocol/timestamp.ts';

/** When the stub acted on a record: its instant (µs) and, among records of one instant, its place. */
export interface Acted {
  at: number;
  order: number;
}

/** Where an event is expected on a replay (µs), and why when it is not its recorded instant. */
interface ExpectedAt {
  at: number;
  why?: string;
}

export interface RecordTiming {
  /** When the stub acted on a request, tap, connect, close or battery record. */
  acted(record: RecordLine): Acted;
  /** When an event record is expected on a replay. */
  expected(event: RecordLine): ExpectedAt;
}

/** A record's instant in µs since the epoch (its `time`, checked when read). */
export function micros(record: RecordLine): number {
  return parseTimestamp(record.time)!;
}

/**
 * When the stub did what a record tells: an event's own timestamp (the engine stamps it as it
 * acts; the record is written a little later), else the record's time.
 */
function stamped(record: RecordLine): number {
  const event = record.kind === 'event' ? (record.event as AnalyticEvent) : undefined;
  return (event && parseTimestamp(event.timestamp)) ?? micros(record);
}

/**
 * The timing of a session's records. Each request that created or cancelled a task, and each
 * tap that acknowledged one, is matched with the events it caused: a request takes its `seq`
 * when it arrives, so its event is the first `start` (or `end`, for a cancel) of its task after
 * it; a tap is recorded right after the engine acted, so its events are the ones of its task
 * just before it. A timeout
 * is expected when it was due: its alert's start and its `timeout`.
 */
export function timingOf(records: readonly RecordLine[]): RecordTiming {
  const bySeq = [...records].sort((a, b) => a.seq - b.seq);
  const causeOf = new Map<RecordLine, RecordLine>();
  const firstEffect = new Map<RecordLine, RecordLine>();
  const timeouts = new Map<string, number>();
  const taskOf = (r: RecordLine | undefined) =>
    r?.kind === 'event' ? (r.event as AnalyticEvent).task.id : undefined;
  const attribute = (cause: RecordLine, effect: RecordLine) => {
    causeOf.set(effect, cause);
    const first = firstEffect.get(cause);
    if (!first || effect.seq < first.seq) firstEffect.set(cause, effect);
  };
  bySeq.forEach((record, i) => {
    if (record.kind === 'request') {
      const made = requestTask(record.request as JournalEntry, timeouts);
      if (made === undefined) return;
      const effect = bySeq.find(
        (r, k) =>
          k > i &&
          taskOf(r) === made.task &&
          (r.event as AnalyticEvent).content.type === made.event,
      );
      if (effect && !causeOf.has(effect)) attribute(record, effect);
    } else if (record.kind === 'tap' && record.result === 'acknowledged') {
      for (let j = i - 1; j >= 0; j--) {
        const before = bySeq[j]!;
        // The commands the engine sent as it acted sit among its events (RS17).
        if (before.kind === 'command') continue;
        if (taskOf(before) !== record.task_id) break;
        if (!causeOf.has(before)) attribute(record, before);
      }
    }
  });
  const acted = (record: RecordLine): Acted => {
    const effect = firstEffect.get(record);
    return effect
      ? { at: stamped(effect), order: effect.seq }
      : { at: micros(record), order: record.seq };
  };
  const starts = new Map<string, RecordLine>();
  for (const record of bySeq) {
    const event = record.kind === 'event' ? (record.event as AnalyticEvent) : undefined;
    if (event?.content.type === 'start') starts.set(event.task.id, record);
  }
  const expected = (record: RecordLine): ExpectedAt => {
    const cause = causeOf.get(record);
    if (cause) return { at: acted(cause).at };
    const event = record.event as AnalyticEvent;
    const start = starts.get(event.task.id);
    const timeout = timeouts.get(event.task.id);
    if (start && timeout !== undefined && ['timed_out', 'end'].includes(event.content.type)) {
      const due = expected(start).at + timeout * 1_000_000;
      const late = stamped(record) - due;
      // A timer fires when due or a little after on a running clock; anything else ended it.
      if (late >= 0 && late < TIMER_LATENESS_US)
        return late === 0 ? { at: due } : { at: due, why: `its timeout, due then` };
    }
    return { at: stamped(record) };
  };
  return { acted, expected };
}

/** How late a running clock's timer may fire and still be taken as due (µs). */
const TIMER_LATENESS_US = 1_000_000;

/**
 * The task a request created (`POST alerts`, with its timeout noted) or cancelled (`DELETE
 * alerts/{id}`), when it succeeded, and the type of the event that says so.
 */
function requestTask(
  entry: JournalEntry,
  timeouts: Map<string, number>,
): { task: string; event: 'start' | 'end' } | undefined {
  if (entry.status === null || entry.status >= 300) return undefined;
  const path = /\/api\/v1\/(alerts)(?:\/([^/]+))?$/.exec(entry.path);
  if (!path) return undefined;
  if (entry.method === 'POST' && path[2] === undefined) {
    const id = ownValue(entry.answer, 'task_id');
    if (typeof id !== 'string') return undefined;
    const timeout = ownValue(entry.body, 'timeout');
    timeouts.set(id, typeof timeout === 'number' ? timeout : TIMEOUT_DEFAULT_S);
    return { task: id, event: 'start' };
  }
  if (entry.method === 'DELETE' && path[2] !== undefined) {
    return { task: decodedSegment(path[2]), event: 'end' };
  }
  return undefined;
}

/** A path segment as the service read it; one that does not decode stays as it was sent. */
export function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
