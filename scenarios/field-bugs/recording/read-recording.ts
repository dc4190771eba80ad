/**
 * Reading a session recording (`badge-sim stub --record`, `GET /_stub/recording`): its text
 * made records, each checked, the first bad one named by its line (decision RS10).
 */
import { checkFixtures, FixtureError } from '../../../fixtures/load-fixtures.ts';
import { readJsonLines } from '../../../input/json-lines.ts';
import { ownValue } from '../../../input/own.ts';
import { JournalEntry } from '../../../protocol/journal.schema.ts';
import { RECORD_KINDS, type RecordLine } from '../../../protocol/recording.schema.ts';
import { AnalyticEvent } from '../../../protocol/service-api.schema.ts';
import { parseTimestamp } from '../../../protocol/timestamp.ts';
import { fieldPath, type ValidateFunction, validatorOf } from '../../../protocol/validator.ts';

/** A recording that cannot be read: the message names the line (1-based) and what is wrong. */
export class RecordingError extends Error {
  override name = 'RecordingError';
}

/** The largest recording read, in characters: a file past it is refused, not read half. */
export const RECORDING_FILE_MAX_CHARS = 256 * 1024 * 1024;

const validateEntry = validatorOf(JournalEntry);
const validateEvent = validatorOf(AnalyticEvent);

/** A recording as read: its records, and what the reader should know of what is missing. */
export interface ReadRecording {
  records: RecordLine[];
  /** Said before the scenario (and in its header): a cut last line, no end record (RS13). */
  notes: string[];
}

/** The records of a recording's text (see `readRecording`), without its notes. */
export function parseRecording(text: string, file: string): RecordLine[] {
  return readRecording(text, file).records;
}

/**
 * The records of a recording's text: JSON lines as `--record` writes them, or the JSON of
 * `GET /_stub/recording` (`{records: [...]}`). Every line must be a record; blank lines are
 * skipped (RS10). What is missing is said (RS13): an empty recording or one whose first line
 * is no record is refused; a last line cut short is left out, and a file without the `end`
 * record a clean stop writes gets a note.
 */
export function readRecording(text: string, file: string): ReadRecording {
  // The JSON of GET /_stub/recording is one document; JSON lines fail to parse as one at line 2.
  if (text.trimStart().startsWith('{')) {
    let whole: unknown;
    try {
      whole = JSON.parse(text);
    } catch {
      // Not one JSON document: read as JSON lines below, which names the bad line.
    }
    const records = ownValue(whole, 'records');
    if (Array.isArray(records)) {
      if (records.length === 0)
        throw new RecordingError(
          `badge-sim: ${file}: the recording is empty (records: []): GET /_stub/recording answers records once recording has started (stub --record FILE, or POST /_stub/recording)`,
        );
      // A snapshot taken while the stub records has no end record yet: nothing is missing.
      return {
        records: records.map((r, i) => checkRecord(r, `${file}: records[${i}]`)),
        notes: [],
      };
    }
  }
  const notes: string[] = [];
  const lines = readJsonLines(file, text, (where, reason) => {
    const line = Number(where.slice(file.length + 1));
    if (line === firstLine(text))
      return new RecordingError(`badge-sim: ${file}: ${NOT_A_RECORDING} (line ${line}: ${reason})`);
    return new RecordingError(
      `badge-sim: ${where}: not a JSON record (${reason}); each line of a recording is one JSON object${line === lastLine(text) && !text.endsWith('\n') ? ': the file ends in the middle of this line (cut short?): remove it to make a scenario of the lines before' : ''}`,
    );
  });
  if (lines.length === 0)
    throw new RecordingError(
      `badge-sim: ${file}: the recording is empty: no records (badge-sim stub --record FILE writes its first, the session with its fixtures, as the stub starts)`,
    );
  const records = lines.map(({ value, where }, i) => {
    if (i === 0 && !isRecordShaped(value))
      throw new RecordingError(
        `badge-sim: ${where}: ${NOT_A_RECORDING} (its first line is no object with seq, time and kind)`,
      );
    return checkRecord(value, where);
  });
  const last = records.reduce((a, b) => (b.seq > a.seq ? b : a));
  if (last.kind !== 'end')
    notes.push(
      `the recording stops at seq ${last.seq} (${last.time}) with no end record, which a stub that stops writes: was the stub killed, or the file cut? The scenario replays what it has`,
    );
  return { records, notes };
}

const NOT_A_RECORDING =
  'not a recording: a recording is JSON lines as badge-sim stub --record writes them, or the JSON of GET /_stub/recording';

function isRecordShaped(value: unknown): boolean {
  return ['seq', 'time', 'kind'].every((field) => ownValue(value, field) !== undefined);
}

/** The number (1-based) of the first and of the last line that is not blank. */
function firstLine(text: string): number {
  return text.split('\n').findIndex((line) => line.trim() !== '') + 1;
}
function lastLine(text: string): number {
  return text.split('\n').findLastIndex((line) => line.trim() !== '') + 1;
}

function checkRecord(value: unknown, where: string): RecordLine {
  const bad = (what: string) => new RecordingError(`badge-sim: ${where}: ${what}`);
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw bad('a record is a JSON object with seq, time and kind');
  const record = value as Record<string, unknown>;
  if (!Number.isSafeInteger(record.seq)) throw bad('seq is missing or not a whole number');
  if (typeof record.time !== 'string' || parseTimestamp(record.time) === undefined)
    throw bad(`time ${JSON.stringify(record.time)} is not an instant (ISO 8601, UTC)`);
  if (!(RECORD_KINDS as readonly unknown[]).includes(record.kind))
    throw bad(`kind ${JSON.stringify(record.kind)} is none of ${RECORD_KINDS.join(', ')}`);
  const needs = (field: string, type: 'string' | 'object') => {
    if (typeof record[field] !== type || record[field] === null)
      throw bad(
        `a ${record.kind} record needs ${field} (${type === 'object' ? 'an object' : 'a string'})`,
      );
  };
  /** A field that must be as the stub writes it (the journal's entry, an analytic event). */
  const shaped = (field: string, validate: ValidateFunction) => {
    needs(field, 'object');
    if (!validate(record[field])) {
      const error = validate.errors![0]!;
      const what = error.keyword === 'required' ? 'is missing' : (error.message ?? 'is wrong');
      throw bad(`${field}.${fieldPath(error)} ${what}`);
    }
  };
  if (record.kind === 'session') {
    needs('fixtures', 'object');
    try {
      checkFixtures(structuredClone(record.fixtures));
    } catch (error) {
      if (!(error instanceof FixtureError)) throw error;
      throw bad(`fixtures${error.path ? `.${error.path}` : ''}: ${error.message}`);
    }
  }
  if (record.kind === 'request') shaped('request', validateEntry);
  if (record.kind === 'event') shaped('event', validateEvent);
  if (['connect', 'close', 'tap', 'battery'].includes(record.kind as string))
    needs('device', 'string');
  if (record.kind === 'command') {
    needs('command', 'string');
    needs('task_id', 'string');
    if (!Array.isArray(record.devices) || !record.devices.every((d) => typeof d === 'string'))
      throw bad('a command record needs devices (an array of device ids)');
  }
  return record as RecordLine;
}
