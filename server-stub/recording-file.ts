/**
 * `badge-sim stub --record FILE`: the session recording written as JSON lines, each record as
 * it happens, with a synchronous write (a crash of the stub keeps every line written so far).
 * A file that cannot be opened is the caller's error before the stub starts; a write that
 * fails later stops the writing with one message, and the stub goes on (RS5).
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import type { SessionRecorder } from './recorder.ts';

export interface RecordingFile {
  /** Stops writing and closes the file (after the stub's `end` record, if given first). */
  close(): void;
  /** Records written to the file so far (one a line). */
  readonly written: number;
  /** Why writing stopped early (the error's code), or undefined while it goes on. */
  readonly failed: string | undefined;
}

/** Why a file could not be opened for writing, in words (the recording's and the trace's). */
export function whyNotWritable(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT'
    ? 'its folder does not exist'
    : code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
      ? 'not allowed to write it'
      : code === 'EISDIR'
        ? 'it is a folder'
        : (code ?? String(error));
}

/** Opens `file` for the recording (truncated); throws the open's error, for the caller to word. */
export function openRecordingFile(file: string): number {
  return openSync(file, 'w');
}

/**
 * Writes every record of `recorder` to the open file `fd` from now on, those kept so far
 * first; `file` names it in the message of a failed write.
 */
export function writeRecordingTo(
  recorder: SessionRecorder,
  opened: number,
  file: string,
  onWriteError: (message: string) => void,
): RecordingFile {
  let fd: number | undefined = opened;
  let written = 0;
  let failed: string | undefined;
  let unpipe: (() => void) | undefined;
  const stop = () => {
    unpipe?.();
    const open = fd;
    fd = undefined;
    if (open !== undefined) closeSync(open);
  };
  unpipe = recorder.pipe((_line, text) => {
    if (fd === undefined) return;
    try {
      writeSync(fd, `${text}\n`);
      written++;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? String(error);
      failed = code;
      try {
        stop();
      } catch {
        // Closing a file that cannot be written may fail too: it is given up either way.
      }
      onWriteError(
        `badge-sim: --record ${file}: cannot write to it (${code}); the recording goes on in memory only (GET /_stub/recording)`,
      );
    }
  });
  // A failure while writing the records kept so far stopped it before `unpipe` was known.
  if (fd === undefined) unpipe();
  return {
    close: stop,
    get written() {
      return written;
    },
    get failed() {
      return failed;
    },
  };
}
