/**
 * Where two histories part: the field's events and the stub's, ids abstracted (a task by the
 * `as` of its alert step, event ids ignored, times in ms from the first event), compared in
 * order; the first difference, said in one plain sentence, with what the stub's badges were
 * hearing at that instant. Pure: a search can compare many runs with it.
 */
import type { AnalyticEvent } from '../../../protocol/service-api.schema.ts';
import { parseTimestamp } from '../../../protocol/timestamp.ts';
import type { ActualHeard } from '../../checks/expectations.ts';

/** One event with its ids abstracted. */
export interface HistoryEvent {
  /** ms from the first event (the field's) or from the start of the run (the stub's). */
  at: number;
  type: string;
  /** The alert's `as`. */
  task: string;
  device?: string;
  status?: string;
}

interface Difference {
  /** The position in both histories where they part. */
  index: number;
  field?: HistoryEvent;
  stub?: HistoryEvent;
  sentence: string;
}

export interface Comparison {
  match: boolean;
  toleranceMs: number;
  field: HistoryEvent[];
  stub: HistoryEvent[];
  difference?: Difference;
}

/** What the stub's badges heard (by user), to say what one was hearing at an instant. */
export type HeardByUser = Map<string, ActualHeard[]>;

/**
 * The stub's events, abstracted: tasks by `as` (from the run's `as` → task id), times from the
 * scenario's start; an event of a task the scenario did not name keeps its id.
 */
export function stubHistory(
  events: AnalyticEvent[],
  taskIds: Record<string, string>,
  startMicros: number,
): HistoryEvent[] {
  const aliasOf = new Map(Object.entries(taskIds).map(([alias, id]) => [id, alias]));
  return events.map((e) => ({
    at: Math.round((parseTimestamp(e.timestamp)! - startMicros) / 1000),
    type: e.content.type,
    task: aliasOf.get(e.task.id) ?? e.task.id,
    ...(e.content.device !== undefined ? { device: e.content.device } : {}),
    ...(e.content.status !== undefined ? { status: e.content.status } : {}),
  }));
}

/**
 * The two histories compared event by event: the same type, task, device and status (a field
 * event without a status, from a table, matches any), at most `toleranceMs` apart (FB5).
 */
export function compareHistories(
  field: HistoryEvent[],
  stub: HistoryEvent[],
  options: { toleranceMs?: number; heard?: HeardByUser } = {},
): Comparison {
  const toleranceMs = options.toleranceMs ?? 0;
  const same = (f: HistoryEvent, s: HistoryEvent) =>
    f.type === s.type &&
    f.task === s.task &&
    f.device === s.device &&
    (f.status === undefined || f.status === s.status) &&
    Math.abs(f.at - s.at) <= toleranceMs;
  const length = Math.max(field.length, stub.length);
  for (let index = 0; index < length; index++) {
    const f = field[index];
    const s = stub[index];
    if (f && s && same(f, s)) continue;
    const sentence = explain(f, s, stub, options.heard ?? new Map());
    return {
      match: false,
      toleranceMs,
      field,
      stub,
      difference: { index, ...(f ? { field: f } : {}), ...(s ? { stub: s } : {}), sentence },
    };
  }
  return { match: true, toleranceMs, field, stub };
}

/** The first difference in one sentence. */
function explain(
  f: HistoryEvent | undefined,
  s: HistoryEvent | undefined,
  stub: HistoryEvent[],
  heard: HeardByUser,
): string {
  if (!f)
    return `after the field's last event the stub goes on: at ${clock(s!.at)} ${describe(s!)}.`;
  if (f.type === 'acknowledged' && f.device) {
    const who = f.device;
    const acked = new Set(
      stub
        .filter((e) => e.type === 'acknowledged' && e.device === who && e.at < f.at)
        .map((e) => e.task),
    );
    const hearing = hearingAt(heard.get(who), f.at, acked);
    const also = hearing ? `, which ${who} was hearing then` : '';
    const theirs = stub.find((e) => e.type === 'acknowledged' && e.device === who && e.at === f.at);
    if (theirs && theirs.task !== f.task)
      return `at ${clock(f.at)} the field's tap by ${who} acknowledged \`${f.task}\`; in the stub it acknowledged \`${theirs.task}\`${theirs.task === hearing ? also : ''}.`;
    if (!theirs)
      return `at ${clock(f.at)} the field's tap by ${who} acknowledged \`${f.task}\`; in the stub that tap acknowledged nothing (${hearing ? `${who} was hearing \`${hearing}\`` : `${who} was hearing no alert`} then).`;
  }
  if (s && s.type === f.type && s.task === f.task && s.device === f.device) {
    if (f.status !== undefined && s.status !== f.status)
      return `at ${clock(f.at)} the field's \`${f.task}\` ended ${f.status}; in the stub it ended ${s.status ?? 'without a status'}.`;
    return `the field's ${describe(f)} is at ${clock(f.at)}; in the stub it is at ${clock(s.at)}.`;
  }
  if (!s) return `at ${clock(f.at)} the field has ${describe(f)}; the stub has no more events.`;
  return `at ${clock(f.at)} the field has ${describe(f)}; the stub has ${describe(s)} at ${clock(s.at)} instead.`;
}

/**
 * The alert a badge was hearing at an instant: the last alert clip it began by then, of an
 * alert its wearer had not acknowledged yet.
 */
function hearingAt(
  clips: ActualHeard[] | undefined,
  at: number,
  acknowledged: Set<string>,
): string | undefined {
  const before = (clips ?? []).filter(
    (c) => c.kind === 'alert' && c.at <= at && c.task && !acknowledged.has(c.task),
  );
  return before.at(-1)?.task;
}

/** An event in words: `acknowledged \`spill\` by Lena Ortiz`, `end \`spill\` (normal)`. */
function describe(e: HistoryEvent): string {
  return `${e.type} \`${e.task}\`${e.device ? ` by ${e.device}` : ''}${e.status ? ` (${e.status})` : ''}`;
}

/** ms as a clock reading from the first event: 0:45, 1:02:03, 0:01.250. */
export function clock(ms: number): string {
  const sign = ms < 0 ? '-' : '';
  const abs = Math.abs(ms);
  const fraction = abs % 1000 === 0 ? '' : `.${String(abs % 1000).padStart(3, '0')}`;
  const seconds = Math.floor(abs / 1000);
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = String(seconds % 60).padStart(2, '0');
  return `${sign}${h > 0 ? `${h}:${String(m).padStart(2, '0')}` : m}:${s}${fraction}`;
}

/** Rows a timeline prints in full; past it, the start, the rows around the difference, the end. */
export const TIMELINE_FULL_ROWS = 60;
/** Rows kept at each edge and on each side of the difference when a timeline is cut. */
const TIMELINE_CONTEXT_ROWS = 10;

/**
 * Both histories side by side, one event a row, the first difference marked `>>`. Longer than
 * `TIMELINE_FULL_ROWS` (unless `all`), the rows that tell nothing new are left out and counted.
 */
export function timeline(comparison: Comparison, options: { all?: boolean } = {}): string {
  const { field, stub, difference } = comparison;
  const count = Math.max(field.length, stub.length);
  const shown = shownRows(count, difference?.index, options.all ?? false);
  const rows = shown.flatMap((i) => {
    if (typeof i === 'string') return [];
    const f = field[i];
    const s = stub[i];
    return [
      [
        difference?.index === i ? '>>' : '',
        f ? clock(f.at) : '',
        f ? describe(f) : '—',
        s ? clock(s.at) : '',
        s ? describe(s) : '—',
      ],
    ];
  });
  const header = ['', 'TIME', 'FIELD', 'TIME', 'STUB'];
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, c) => (c === cells.length - 1 ? cell : cell.padEnd(widths[c]!)))
      .join('  ')
      .trimEnd();
  let next = 0;
  const lines = shown.map((i) => (typeof i === 'string' ? `    ${i}` : line(rows[next++]!)));
  return `${[line(header), ...lines].join('\n')}\n`;
}

/** The row indexes to print, with a line in words where rows are left out. */
function shownRows(count: number, differs: number | undefined, all: boolean): (number | string)[] {
  if (all || count <= TIMELINE_FULL_ROWS) return Array.from({ length: count }, (_, i) => i);
  const keep = new Set<number>();
  const range = (from: number, to: number) => {
    for (let i = Math.max(0, from); i < Math.min(count, to); i++) keep.add(i);
  };
  range(0, TIMELINE_CONTEXT_ROWS);
  if (differs !== undefined)
    range(differs - TIMELINE_CONTEXT_ROWS, differs + TIMELINE_CONTEXT_ROWS + 1);
  range(count - TIMELINE_CONTEXT_ROWS, count);
  const shown: (number | string)[] = [];
  let last = -1;
  for (const i of [...keep].sort((a, b) => a - b)) {
    if (i > last + 1) {
      const left = i - last - 1;
      shown.push(
        `… ${left} row${left === 1 ? '' : 's'} ${differs === undefined || i <= differs ? 'that match' : 'after the difference'} left out (--all-rows prints them) …`,
      );
    }
    shown.push(i);
    last = i;
  }
  return shown;
}
