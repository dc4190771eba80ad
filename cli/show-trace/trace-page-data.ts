/**
 * What the trace viewer's page is given (`badge-sim show-trace`, issue 33): the records of a
 * trace (input/read-trace.ts) or of a session recording, the names of the badges, and, for a
 * failed scenario, each failure with the record its first difference lies at. The page folds
 * the records itself with the very function of input/trace-instant.ts (trace-page.ts), so
 * nothing here works out a badge's or an alert's state.
 */
import { readFileSync } from 'node:fs';
import { readTrace, TraceError } from '../../input/read-trace.ts';
import type { RecordLine } from '../../protocol/recording.schema.ts';
import { parseTimestamp } from '../../protocol/timestamp.ts';
import type { TraceHeader } from '../../protocol/trace.schema.ts';
import { placeFailure } from '../../scenarios/reports/html.reporter.ts';

/** A failure of the trace's `verdict`, with where the page puts its cursor. */
interface ViewerFailure {
  what: string;
  message: string;
  expected: string[];
  actual: string[];
  first_difference: number | null;
  /** The `seq` of the last record at or before the first difference's instant (TV3). */
  cursor_seq: number | null;
}

export interface TracePageData {
  /** The file as given on the command line. */
  file: string;
  /** `trace` (with its header) or `recording` (`stub --record`: the same records, no header). */
  source: 'trace' | 'recording';
  header: TraceHeader | null;
  records: RecordLine[];
  /** Each device id the session's fixtures name, with its user: the badge lanes' labels. */
  names: Record<string, string>;
  failures: ViewerFailure[];
}

/**
 * The page's data of `file`: a trace (gzip), or a recording (JSON lines). A file neither reads
 * as is refused with the reader's message (a TraceError or a RecordingError: TR4, RS10).
 */
export async function tracePageData(file: string): Promise<TracePageData> {
  const { header, records, source } = await readEither(file);
  if (records.length === 0)
    throw new TraceError(`badge-sim: ${file}: the trace holds no records: nothing to show`);
  return { file, source, header, records, names: badgeNames(records), failures: failures(records) };
}

async function readEither(
  file: string,
): Promise<{ header: TraceHeader | null; records: RecordLine[]; source: 'trace' | 'recording' }> {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    return { ...readTrace(file), source: 'trace' }; // the reader's message names what is wrong
  }
  if (bytes[0] === 0x1f || bytes.subarray(0, 200).toString('utf8').trimStart()[0] !== '{')
    return { ...readTrace(file), source: 'trace' };
  // Loaded only for a recording: its reader checks each record as `badge-sim record` does.
  const { readRecording } = await import('../../scenarios/field-bugs/recording/read-recording.ts');
  const records = readRecording(bytes.toString('utf8'), file).records;
  return { header: null, records: records.sort((a, b) => a.seq - b.seq), source: 'recording' };
}

/** Device id → user, from the `session` records' fixtures (secrets are stand-ins there). */
function badgeNames(records: readonly RecordLine[]): Record<string, string> {
  const names: Record<string, string> = {};
  for (const record of records) {
    if (record.kind !== 'session') continue;
    const accounts = (record.fixtures as { accounts?: unknown } | undefined)?.accounts;
    for (const account of Array.isArray(accounts) ? accounts : [])
      for (const device of Array.isArray(account?.devices) ? account.devices : [])
        if (typeof device?.id === 'string' && typeof device.user === 'string')
          names[device.id] = device.user;
  }
  return names;
}

/** The verdict's failures, each placed at the record of its first difference (TV3). */
function failures(records: readonly RecordLine[]): ViewerFailure[] {
  const verdict = records.findLast((record) => record.kind === 'verdict');
  if (verdict?.passed !== false || !Array.isArray(verdict.failures)) return [];
  const start = scenarioStart(records);
  return (verdict.failures as Omit<ViewerFailure, 'cursor_seq'>[]).map((failure) => {
    // The instants of the two lines, as the HTML report reads them (ms from the start).
    const { differenceAt } = placeFailure(
      { ...failure, firstDifference: failure.first_difference ?? undefined },
      [],
    );
    const at = differenceAt?.actual ?? differenceAt?.expected;
    const cursor =
      at === undefined || start === undefined ? verdict.seq : seqAt(records, start + at * 1000);
    return { ...failure, cursor_seq: cursor };
  });
}

/** The scenario's 0 s on the stub's clock (µs): a `step` record's time less its `at` (ms). */
function scenarioStart(records: readonly RecordLine[]): number | undefined {
  const step = records.find((record) => record.kind === 'step' && typeof record.at === 'number');
  const time = step && parseTimestamp(step.time);
  return time === undefined ? undefined : time - (step!.at as number) * 1000;
}

/** The `seq` of the last record at or before `at` (µs), else the first record's. */
function seqAt(records: readonly RecordLine[], at: number): number {
  let seq = records[0]!.seq;
  for (const record of records) {
    if ((parseTimestamp(record.time) ?? 0) > at) break;
    seq = record.seq;
  }
  return seq;
}
