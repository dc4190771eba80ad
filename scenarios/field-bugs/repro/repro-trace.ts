/**
 * `repro --trace FILE` (TR12): the trace of the inferred scenario's run with the field's own
 * history beside it. Each event of the export is a `field` record at its instant on the run's
 * clock (a lane of its own for a viewer), and where the two histories part is a `parting`
 * record, so the difference is seen where it happens. Written once the comparison is known:
 * the run's trace is read back, the field's records placed among its records by time, and the
 * whole renumbered in that order. A repro that traces nothing never loads this module.
 */
import { writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { readTrace } from '../../../input/read-trace.ts';
import type { RecordLine } from '../../../protocol/recording.schema.ts';
import { formatMicros, parseTimestamp } from '../../../protocol/timestamp.ts';
import type { Comparison, HistoryEvent } from './compare-histories.ts';

/**
 * Writes to `file` the run's trace (`runTrace`) with the field's history of `comparison`;
 * `startMicros` is the run's instant its histories count from.
 */
export function writeReproTrace(
  file: string,
  runTrace: string,
  comparison: Comparison,
  startMicros: number,
): void {
  const { header, records } = readTrace(runTrace);
  const at = (ms: number) => formatMicros(startMicros + ms * 1000);
  const parted = comparison.difference?.index ?? Number.POSITIVE_INFINITY;
  const added: RecordLine[] = comparison.field.map((event, index) => ({
    seq: 0,
    time: at(event.at),
    kind: 'field',
    index,
    ...historyFields(event),
    // Before the parting, the stub's history had the same event there.
    matched: index < parted,
  }));
  const difference = comparison.difference;
  if (difference) {
    const instants = [difference.field?.at, difference.stub?.at].filter((t) => t !== undefined);
    added.push({
      seq: 0,
      time: at(Math.min(...instants)),
      kind: 'parting',
      index: difference.index,
      sentence: difference.sentence,
      field: difference.field ? historyFields(difference.field) : null,
      stub: difference.stub ? historyFields(difference.stub) : null,
    });
  }
  // Stable: the run's records keep their order; the field's come after the run's of an instant.
  const merged = [...records, ...added].sort((a, b) => micros(a) - micros(b));
  const lines = [JSON.stringify(header)];
  merged.forEach((record, i) => {
    lines.push(JSON.stringify({ ...record, seq: i + 1 }));
  });
  writeFileSync(file, gzipSync(`${lines.join('\n')}\n`));
}

function historyFields(event: HistoryEvent): Record<string, unknown> {
  const { at, ...rest } = event;
  return { ...rest, at_ms: at };
}

const micros = (record: RecordLine) => parseTimestamp(record.time) ?? 0;
