/**
 * Reading a trace (`run --trace`, `stub --trace`, protocol/trace.schema.ts): the file
 * decompressed, its header checked, its records checked and put in order. A truncated,
 * foreign or newer-format file is refused with a message naming what is wrong (TR4).
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { RECORD_KINDS, type RecordLine } from '../protocol/recording.schema.ts';
import { parseTimestamp } from '../protocol/timestamp.ts';
import { TRACE_FORMAT, type TraceHeader } from '../protocol/trace.schema.ts';
import { readJsonLines } from './json-lines.ts';

/** A trace that cannot be read: the message names the file, the line if any, and what is wrong. */
export class TraceError extends Error {
  override name = 'TraceError';
}

/** The largest trace read, decompressed, in bytes: past it a file is refused, not read half. */
const TRACE_MAX_BYTES = 512 * 1024 * 1024;

export interface ReadTrace {
  header: TraceHeader;
  /** Its records in the order things happened (`seq`). */
  records: RecordLine[];
}

/** Reads and checks the trace in `file` (see the module's comment). */
export function readTrace(file: string): ReadTrace {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new TraceError(
      `badge-sim: ${file}: cannot read it (${code === 'ENOENT' ? 'no such file' : (code ?? String(error))})`,
    );
  }
  return parseTrace(bytes, file);
}

/** The trace of `bytes` (a file's content; `file` names it in errors). */
function parseTrace(bytes: Buffer, file: string): ReadTrace {
  if (bytes.length < 2 || bytes[0] !== 0x1f || bytes[1] !== 0x8b)
    throw new TraceError(
      `badge-sim: ${file}: not a badge-sim trace: it is not gzip-compressed (a trace is what run --trace or stub --trace writes${bytes.subarray(0, 1).toString() === '{' ? '; a session recording of stub --record is read by badge-sim record' : ''})`,
    );
  const text = gunzip(bytes, file);
  const lines = readJsonLines(
    file,
    text,
    (where, reason) =>
      new TraceError(
        `badge-sim: ${where}: not a JSON record (${reason}); each line of a trace is one JSON object`,
      ),
  );
  const first = lines[0];
  if (first === undefined)
    throw new TraceError(`badge-sim: ${file}: the trace is empty: not even its header line`);
  const header = checkHeader(first.value, file);
  const records = lines.slice(1).map(({ value, where }) => checkRecord(value, where));
  records.sort((a, b) => a.seq - b.seq);
  return { header, records };
}

function gunzip(bytes: Buffer, file: string): string {
  try {
    return gunzipSync(bytes, { maxOutputLength: TRACE_MAX_BYTES }).toString('utf8');
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    if (code === 'ERR_BUFFER_TOO_LARGE')
      throw new TraceError(
        `badge-sim: ${file}: the trace is larger than ${TRACE_MAX_BYTES / 1024 / 1024} MiB decompressed: too large to read`,
      );
    if (code === 'Z_BUF_ERROR' || /unexpected end/i.test(message))
      throw new TraceError(
        `badge-sim: ${file}: the trace is truncated: its compressed stream ends early (was the run or stub stopped before it closed the file, or the file cut in a copy?)`,
      );
    throw new TraceError(`badge-sim: ${file}: the trace is corrupt: ${message}`);
  }
}

function checkHeader(value: unknown, file: string): TraceHeader {
  const format =
    typeof value === 'object' && value !== null && 'format' in value ? value.format : undefined;
  if (format === TRACE_FORMAT) return value as TraceHeader;
  const version = typeof format === 'string' ? /^badge-sim-trace\/(\d+)$/.exec(format) : null;
  if (version && Number(version[1]) > 1)
    throw new TraceError(
      `badge-sim: ${file}: the trace is of a newer format (${format}) than this badge-sim reads (${TRACE_FORMAT}): read it with the badge-sim that wrote it, or update this one`,
    );
  throw new TraceError(
    `badge-sim: ${file}:1: not a badge-sim trace: its first line has no "format": "${TRACE_FORMAT}"${typeof format === 'string' ? ` (it says ${JSON.stringify(format).slice(0, 80)})` : ''}`,
  );
}

function checkRecord(value: unknown, where: string): RecordLine {
  const record = value as Partial<RecordLine> | null;
  const problem =
    typeof record !== 'object' || record === null || Array.isArray(record)
      ? 'not a JSON object'
      : !Number.isInteger(record.seq) || (record.seq as number) < 1
        ? '"seq" is not a whole number from 1'
        : typeof record.time !== 'string' || parseTimestamp(record.time) === undefined
          ? '"time" is not a timestamp'
          : !RECORD_KINDS.includes(record.kind as RecordLine['kind'])
            ? `"kind" ${JSON.stringify(record.kind)} is none of ${RECORD_KINDS.join(', ')}`
            : undefined;
  if (problem) throw new TraceError(`badge-sim: ${where}: not a trace record: ${problem}`);
  return record as RecordLine;
}
