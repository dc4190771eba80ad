/**
 * A trace written to disk (`stub --trace FILE`, `startStub({ trace })`, `run --trace`): the
 * header line, then every record of the stub's recorder as it is kept, as gzip-compressed
 * JSON lines (TR1). Records are handed to gzip in chunks of TRACE_CHUNK_CHARS, so tracing
 * costs a string concatenation a record; a stub nobody traces pays nothing (no sink). A trace
 * that never grows past one chunk (most scenarios') is compressed and written at once as it
 * closes, with no stream: a catalogue run does not wait for 60 streams to wind down.
 * Secrets never reach it: the recorder's requests are the journal's masked entries and its
 * fixtures are `withoutSecrets` (TR7).
 */
import { accessSync, closeSync, constants, createWriteStream, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { createGzip, gzipSync } from 'node:zlib';
import { formatTimestamp } from '../clock/clock.ts';
import { emptyInstant, foldRecord } from '../input/trace-instant.ts';
import type { RecordLine } from '../protocol/recording.schema.ts';
import { TRACE_FORMAT, type TraceHeader } from '../protocol/trace.schema.ts';
import { whyNotWritable } from './recording-file.ts';
import type { StubCore } from './stub-core.ts';
import { tracePlays } from './trace-alerts.ts';

/** JSON text gathered before it is handed to gzip. */
const TRACE_CHUNK_CHARS = 64 * 1024;

/** Records between two `snapshot` records (TR14): an instant is rebuilt from at most this many. */
const TRACE_SNAPSHOT_EVERY = 1_000;

/** A trace file that cannot be opened: the message names it and what to do. */
export class TraceFileError extends Error {
  override name = 'TraceFileError';
}

export interface TraceWriter {
  readonly file: string;
  /** Records written so far (the header not counted). */
  readonly written: number;
  /** Why writing failed (the error's code), or undefined. */
  readonly failed: string | undefined;
  /**
   * Stops tracing, writes what is left and closes the file; resolves once it is on disk.
   * `keep: false` (a passing scenario under retain-on-failure): a trace still in memory is
   * never written, and its file never made.
   */
  close(keep?: boolean): Promise<void>;
}

/** What the caller says of its trace in the header. */
export type TraceOrigin = Pick<TraceHeader, 'source' | 'scenario'>;

/** Opens `file` for writing (truncated), or throws a TraceFileError saying why not. */
function openTraceFile(file: string): number {
  try {
    return openSync(file, 'w');
  } catch (error) {
    throw new TraceFileError(
      `badge-sim: trace ${file}: cannot write it (${whyNotWritable(error)}): give a file path in a folder you can write`,
    );
  }
}

/** A trace opened later: its folder is checked now, so a mistake is said at once. */
function checkWritable(file: string): undefined {
  try {
    accessSync(dirname(file), constants.W_OK);
  } catch (error) {
    throw new TraceFileError(
      `badge-sim: trace ${file}: cannot write it (${whyNotWritable(error)}): give a file path in a folder you can write`,
    );
  }
  return undefined;
}

/**
 * Traces `core` into `file` from now on: starts its recording if it is off (what it kept so
 * far comes first otherwise). `onError` hears the one message of a failed write.
 */
export function startTrace(
  core: StubCore,
  file: string,
  origin: TraceOrigin,
  onError: (message: string) => void = () => {},
  snapshotEvery = TRACE_SNAPSHOT_EVERY,
  /** Opens the file only once something is written (it may never be: see `close`). */
  openLater = false,
): TraceWriter {
  let fd = openLater ? checkWritable(file) : openTraceFile(file);
  let failed: string | undefined;
  let stream: TraceStream | undefined;
  const fail = (error: NodeJS.ErrnoException) => {
    if (failed !== undefined) return;
    failed = error.code ?? String(error);
    onError(`badge-sim: trace ${file}: cannot write to it (${failed}); the trace stops here`);
    stream?.out.destroy();
  };
  // A trace that started the recording stops it as it closes (a kept stub records no more).
  const startedRecording = !core.recorder.recording;
  if (startedRecording) core.startRecording();
  const header: TraceHeader = {
    format: TRACE_FORMAT,
    ...origin,
    started: formatTimestamp(core.clock.now()),
    limit: core.recorder.limit,
    max_chars: core.recorder.maxChars,
    snapshot_every: snapshotEvery,
  };
  let pending = `${JSON.stringify(header)}\n`;
  let written = 0;
  const snapshots = snapshotTaker(core, snapshotEvery);
  const untrace = core.recorder.trace((line, text) => {
    pending += `${text}\n`;
    written++;
    snapshots(line);
    if (pending.length >= TRACE_CHUNK_CHARS && failed === undefined) {
      try {
        fd ??= openTraceFile(file);
        stream ??= openStream(fd, fail);
      } catch (error) {
        return fail(error as NodeJS.ErrnoException);
      }
      stream.gzip.write(pending);
      pending = '';
    }
  });
  const untracePlays = tracePlays(core);
  let closing: Promise<void> | undefined;
  return {
    file,
    get written() {
      return written;
    },
    get failed() {
      return failed;
    },
    close(keep = true) {
      closing ??= (async () => {
        untrace();
        untracePlays();
        if (startedRecording) core.recorder.stop();
        const rest = pending;
        pending = '';
        if (!stream) {
          if (keep || fd !== undefined)
            writeAtOnce(fd ?? file, keep && failed === undefined ? rest : undefined, fail);
          return;
        }
        if (failed === undefined) stream.gzip.end(rest);
        else stream.gzip.destroy();
        await stream.closed.catch(() => undefined);
      })();
      return closing;
    },
  };
}

interface TraceStream {
  gzip: ReturnType<typeof createGzip>;
  out: ReturnType<typeof createWriteStream>;
  /** Resolves once the file is closed. */
  closed: Promise<void>;
}

/** The stream a trace longer than one chunk is written through, opened on its first chunk. */
function openStream(fd: number, fail: (error: NodeJS.ErrnoException) => void): TraceStream {
  const gzip = createGzip();
  const out = createWriteStream('', { fd });
  gzip.pipe(out);
  const closed = new Promise<void>((resolve) => out.once('close', () => resolve()));
  gzip.once('error', fail);
  out.once('error', fail);
  return { gzip, out, closed };
}

/** A trace that fits one chunk: compressed and written now, and the file closed. */
function writeAtOnce(
  fileOrFd: number | string,
  text: string | undefined,
  fail: (error: NodeJS.ErrnoException) => void,
): void {
  let fd: number | undefined;
  try {
    fd = typeof fileOrFd === 'number' ? fileOrFd : openTraceFile(fileOrFd);
    const bytes = text === undefined ? undefined : gzipSync(text);
    for (let at = 0; bytes && at < bytes.length; ) at += writeSync(fd, bytes, at);
  } catch (error) {
    fail(error as NodeJS.ErrnoException);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Folds each record the trace is given, as `traceAt` would, and every `every` records adds a
 * `snapshot` record of the badges and alerts so far (TR14). The records folded (connect,
 * close, transition, alert) are recorded as they happen, so they reach the trace in `seq`
 * order and a snapshot holds exactly those before it.
 */
function snapshotTaker(core: StubCore, every: number): (line: RecordLine) => void {
  const instant = emptyInstant();
  let since = 0;
  return (line) => {
    if (line.kind === 'snapshot') return;
    foldRecord(instant, line);
    if (++since < every) return;
    since = 0;
    // A copy: the recording keeps the record, and the fold goes on changing its own.
    const { badges, alerts } = instant;
    core.recorder.add('snapshot', { state: structuredClone({ badges, alerts }) });
  };
}
