/**
 * Reading a session recording (`badge-sim stub --record`, `GET /_stub/recording`): its text
 * made records, each checked, the first bad one named by its line (decision RS10).
 */
import { checkFixtures, FixtureError } from '../fixtures/load-fixtures.ts';
import { JournalEntry } from '../protocol/journal.schema.ts';
import { readJsonLines } from '../protocol/json-lines.ts';
import { ownValue } from '../protocol/own.ts';
import { RECORD_KINDS, type RecordLine } from '../protocol/recording.schema.ts';
import { AnalyticEvent } from '../protocol/service-api.schema.ts';
import { parseTimestamp } from '../protocol/timestamp.ts';
import { fieldPath, type ValidateFunction, validatorOf } from '../protocol/validator.ts';

/** A recording that cannot be read: the message names the line (1-based) and what is wrong. */
export class RecordingError extends Error {
  override name = 'RecordingError';
}

/** The largest recording read, in characters: a file past it is refused, not read half. */
export const RECORDING_FILE_MAX_CHARS = 256 * 1024 * 1024;

const validateEntry = validatorOf(JournalEntry);
const validateEvent = validatorOf(AnalyticEvent);

/**
 * The records of a recording's text: JSON lines as `--record` writes them, or the JSON of
 * `GET /_stub/recording` (`{records: [...]}`). Every line must be a record; blank lines are
 * skipped (RS10).
 */
export function parseRecording(text: string, file: string): RecordLine[] {
  // The JSON of GET /_stub/recording is one document; JSON lines fail to parse as one at line 2.
  if (text.trimStart().startsWith('{')) {
    let whole: unknown;
    try {
      whole = JSON.parse(text);
    } catch {
      // Not one JSON document: read as JSON lines below, which names the bad line.
    }
    const records = ownValue(whole, 'records');
    if (Array.isArray(records))
      return records.map((record, i) => checkRecord(record, `${file}: records[${i}]`));
  }
  const lines = readJsonLines(
    file,
    text,
    (where, reason) =>
      new RecordingError(
        `badge-sim: ${where}: not a JSON record (${reason}); each line of a recording is one JSON object`,
      ),
  );
  return lines.map(({ value, where }) => checkRecord(value, where));
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
  return record as RecordLine;
}
