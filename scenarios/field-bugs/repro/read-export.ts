/**
 * Reading what the field gives: an account's analytic events as a developer gets them (the
 * JSON array of `GET events` or of `badge-sim analytics --json`, or the text table
 * `badge-sim analytics` prints), and the optional alert bodies the developer's software sent
 * (JSON lines `{at, body}`, or the stub's request journal). Pure: text in, events out; every
 * refusal names the file, the line or event, what is wrong and what to do.
 */

import { readJsonLines } from '../../../input/json-lines.ts';
import { hasOwn, ownValue } from '../../../input/own.ts';
import { describeError } from '../../../input/yaml-source.ts';
import { AnalyticEvent } from '../../../protocol/service-api.schema.ts';
import { parseTimestamp } from '../../../protocol/timestamp.ts';
import { validatorOf } from '../../../protocol/validator.ts';
import { ANALYTICS_TABLE_COLUMNS } from './analytics-table.ts';

/** The most events `repro` reads, all files together (decision FB1). */
export const MAX_EXPORT_EVENTS = 100_000;
/** The most bytes of one input file (decision FB1). */
export const MAX_EXPORT_BYTES = 64 * 1024 * 1024;
/** The longest time from an export's first event to its last (the service keeps 7 days; FB1). */
export const MAX_EXPORT_SPAN_DAYS = 30;

/** An input `repro` cannot use; the message says where and what to do. */
export class ExportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExportError';
  }
}

/** An event of the field, with when it happened in µs since the epoch. */
export interface FieldEvent {
  event: AnalyticEvent;
  micros: number;
}

/** One input file: its name (for messages) and its text. */
export interface ExportFile {
  file: string;
  text: string;
}

const validateEvent = validatorOf(AnalyticEvent);

/**
 * The events of every file, merged: one event per `event_id` (the first seen kept; a table row,
 * which has no id, is one event per identical row), ordered by timestamp and then as seen.
 */
export function readExports(files: ExportFile[]): FieldEvent[] {
  const byKey = new Map<string, FieldEvent & { seen: number }>();
  for (const { file, text } of files) {
    if (Buffer.byteLength(text) > MAX_EXPORT_BYTES)
      throw new ExportError(
        `${file}: larger than ${MAX_EXPORT_BYTES / 1024 / 1024} MiB; export a shorter span (oldest=…) and repro that`,
      );
    for (const { event, key } of readExport(file, text)) {
      if (byKey.has(key)) continue;
      if (byKey.size >= MAX_EXPORT_EVENTS)
        throw new ExportError(
          `${file}: more than ${MAX_EXPORT_EVENTS} events in all; export a shorter span (oldest=…) and repro that`,
        );
      byKey.set(key, { event, micros: parseTimestamp(event.timestamp)!, seen: byKey.size });
    }
  }
  const events = [...byKey.values()]
    .sort((a, b) => a.micros - b.micros || a.seen - b.seen)
    .map(({ event, micros }) => ({ event, micros }));
  const [first, last] = [events[0], events.at(-1)];
  if (first && last && last.micros - first.micros > MAX_EXPORT_SPAN_DAYS * 86_400e6)
    throw new ExportError(
      `${files.map((f) => f.file).join(', ')}: the events span ${first.event.timestamp} to ${last.event.timestamp}, more than ${MAX_EXPORT_SPAN_DAYS} days; repro the days of the bug (the service keeps 7)`,
    );
  return events;
}

/** One file's events, each with the key it is merged by. */
function readExport(file: string, text: string): { event: AnalyticEvent; key: string }[] {
  const start = text.trimStart();
  if (start.startsWith('[')) return readJsonArray(file, text);
  if (start.startsWith(ANALYTICS_TABLE_COLUMNS[0])) return readTable(file, text);
  throw new ExportError(
    `${file}: not an events export: expected the JSON array of GET events (or of badge-sim analytics --json), or the table badge-sim analytics prints (its first line begins WORKFLOW ID)`,
  );
}

function readJsonArray(file: string, text: string): { event: AnalyticEvent; key: string }[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const line = lineOfJsonError(text, (error as Error).message);
    throw new ExportError(
      `${file}:${line}: not valid JSON (${(error as Error).message}); a page cut off mid-file? Fetch that page again`,
    );
  }
  if (!Array.isArray(value))
    throw new ExportError(`${file}:1: the export must be a JSON array of events`);
  return value.map((item, index) => {
    const event = checkEvent(item, `${file}: event [${index}]`);
    return { event, key: `id:${event.event_id}` };
  });
}

/** The line a JSON.parse error points at: its position if it says one, else the last line. */
function lineOfJsonError(text: string, message: string): number {
  const position = /position (\d+)/.exec(message);
  const upTo = position ? text.slice(0, Number(position[1])) : text.trimEnd();
  return upTo.split('\n').length;
}

function checkEvent(item: unknown, where: string): AnalyticEvent {
  if (!validateEvent(item)) {
    const { message } = describeError(validateEvent.errors!);
    throw new ExportError(`${where}: ${message}; is this an export of GET events?`);
  }
  const event = item as AnalyticEvent;
  if (parseTimestamp(event.timestamp) === undefined)
    throw new ExportError(
      `${where}: timestamp '${event.timestamp}' is not an ISO 8601 instant such as 2026-01-01T00:00:00.000000Z`,
    );
  return event;
}

/**
 * The text table of `badge-sim analytics`: columns padded to the header's offsets, the last
 * (CONTENT) the JSON of `{device?, task, type}`. A row has no event id nor status: the key is
 * the row's text, and `end` rows say nothing of how the alert ended (decision FB2).
 */
function readTable(file: string, text: string): { event: AnalyticEvent; key: string }[] {
  const lines = text.split('\n');
  const header = lines[0]!.trimEnd();
  const offsets = ANALYTICS_TABLE_COLUMNS.map((column) => header.indexOf(column));
  if (offsets.some((o, i) => o < 0 || (i > 0 && o <= offsets[i - 1]!)))
    throw new ExportError(
      `${file}:1: the table's header must be ${ANALYTICS_TABLE_COLUMNS.join(', ')} as badge-sim analytics prints it`,
    );
  const rows: { event: AnalyticEvent; key: string }[] = [];
  lines.slice(1).forEach((raw, i) => {
    const line = raw.replace(/\r$/, '');
    if (line.trim() === '' || /^\d+ of \d+ events/.test(line)) return;
    const where = `${file}:${i + 2}`;
    const cells = offsets.map((offset, c) =>
      line.slice(offset, offsets[c + 1] ?? line.length).trim(),
    );
    const missing = ANALYTICS_TABLE_COLUMNS.find(
      (column, c) => cells[c] === '' && column !== 'USER ID',
    );
    if (missing || line.length <= offsets[6]!)
      throw new ExportError(
        `${where}: the row has no ${missing ?? 'CONTENT'}; was the listing cut or edited? Copy it again as badge-sim analytics prints it`,
      );
    let content: unknown;
    try {
      content = JSON.parse(cells[6]!);
    } catch {
      throw new ExportError(`${where}: CONTENT is not the JSON badge-sim analytics prints`);
    }
    const device = cells[5] || undefined;
    const item = {
      category: cells[2],
      content: { type: cells[1], ...(device ? { device } : {}) },
      task: ownValue(content, 'task'),
      event_id: `${file}:${i + 2}`,
      timestamp: cells[4],
    };
    if (!hasOwn(Object(item.task), 'id'))
      throw new ExportError(`${where}: CONTENT has no task; copy the row again`);
    rows.push({ event: checkEvent(item, where), key: `row:${line.trim()}` });
  });
  return rows;
}

/** An alert body the developer's software sent, and when. */
export interface SentAlert {
  micros: number;
  body: Record<string, unknown>;
  /** The task id the service answered, when the source says (the journal does). */
  taskId?: string;
}

/** `--alerts FILE`: JSON lines `{at, body}`, `at` an ISO instant. */
export function readAlertLines(file: string, text: string): SentAlert[] {
  const lines = readJsonLines(
    file,
    text,
    (where) =>
      new ExportError(
        `${where}: not a JSON line; each line is {"at": "<ISO instant>", "body": {…}}`,
      ),
  );
  return lines.map(({ value, where }) => {
    const at = ownValue(value, 'at');
    const body = ownValue(value, 'body');
    const micros = typeof at === 'string' ? parseTimestamp(at) : undefined;
    if (micros === undefined)
      throw new ExportError(`${where}: at must be an ISO instant such as 2026-01-01T00:00:05Z`);
    if (!isRecord(body))
      throw new ExportError(`${where}: body must be the JSON object sent to POST alerts`);
    if (nestsDeeper(body, MAX_BODY_DEPTH))
      throw new ExportError(
        `${where}: body nests deeper than ${MAX_BODY_DEPTH} levels; an alert body is flat`,
      );
    return { micros, body };
  });
}

/** `--journal FILE`: the JSON of `GET /_stub/journal`; its answered POST alerts. */
export function readJournalAlerts(file: string, text: string): SentAlert[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ExportError(
      `${file}:${lineOfJsonError(text, (error as Error).message)}: not valid JSON; save GET /_stub/journal again`,
    );
  }
  const entries = ownValue(value, 'entries');
  if (!Array.isArray(entries))
    throw new ExportError(
      `${file}: not a request journal: expected {"entries": […]} as GET /_stub/journal answers`,
    );
  return entries.flatMap((entry): SentAlert[] => {
    const micros = parseTimestamp(String(ownValue(entry, 'time')));
    const body = ownValue(entry, 'body');
    const ok = ownValue(entry, 'status') === 200;
    if (ownValue(entry, 'method') !== 'POST' || !/\/alerts$/.test(String(ownValue(entry, 'path'))))
      return [];
    if (!ok || micros === undefined || !isRecord(body) || nestsDeeper(body, MAX_BODY_DEPTH))
      return [];
    const taskId = ownValue(ownValue(entry, 'answer'), 'task_id');
    return [{ micros, body, ...(typeof taskId === 'string' ? { taskId } : {}) }];
  });
}

/** The deepest an alert body sent may nest (decision FB1): it is copied into the scenario. */
const MAX_BODY_DEPTH = 32;

/** Whether a value nests deeper than `max`, found without recursion. */
function nestsDeeper(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== 'object') continue;
    if (depth > max) return true;
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return false;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
