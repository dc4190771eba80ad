/**
 * The recording of a live session (`badge-sim stub --record FILE`, `/_stub/recording`):
 * everything that happened on the stub, in order, on its clock. It keeps no second copy of
 * what a request was: a `request` record is the request journal's entry (secrets masked
 * there). At most `limit` records since the recording began (RS2): past it, records are
 * counted as dropped, neither kept nor given to the sinks, and one `capped` record says so.
 */
import type { Fixtures } from '../fixtures/fixtures.schema.ts';
import { formatTimestamp } from '../protocol/clock.ts';
import type { Recording, RecordKind, RecordLine } from '../protocol/recording.schema.ts';
import type { AckResult } from './engine/alert-engine.ts';

/** Told each record as it is kept (the file writer of `--record`). */
export type RecordSink = (line: RecordLine) => void;

export class SessionRecorder {
  #records: RecordLine[] = [];
  #dropped = 0;
  #seq = 0;
  readonly #sinks = new Set<RecordSink>();

  constructor(
    private readonly now: () => number,
    readonly limit: number,
  ) {}

  /** What is recorded so far. */
  list(): Recording {
    return { records: [...this.#records], dropped: this.#dropped, limit: this.limit };
  }

  /** Sends every later record to `sink`, after the ones kept so far; returns the unsubscribe. */
  pipe(sink: RecordSink): () => void {
    for (const line of this.#records) sink(line);
    this.#sinks.add(sink);
    return () => this.#sinks.delete(sink);
  }

  /**
   * Records what happened now, or (`time`, µs text) at the instant it happened: a request
   * is recorded when its answer has gone, at the time it arrived.
   */
  add(kind: RecordKind, fields: Record<string, unknown>, time?: string): void {
    if (this.#records.length >= this.limit && kind !== 'end') {
      if (this.#dropped++ === 0) this.#keep('capped', { limit: this.limit }, undefined);
      return;
    }
    this.#keep(kind, fields, time);
  }

  /** A `session` record: the recording (re)starts here, with the stub's fixtures (RS3, RS4). */
  begin(
    reason: 'start' | 'reset' | 'fixtures' | 'cleared',
    fixtures: Fixtures,
    clock: object,
    settings: object,
  ): void {
    this.add('session', { reason, fixtures: withoutSecrets(fixtures), clock, settings });
  }

  /** Empties the recording and begins again; answers how many records it held. */
  clear(): number {
    const removed = this.#records.length;
    this.#records = [];
    this.#dropped = 0;
    return removed;
  }

  /** The stub stops: an `end` record with what was dropped, even past the limit. */
  end(): void {
    this.add('end', { dropped: this.#dropped });
    this.#sinks.clear();
  }

  #keep(kind: RecordKind, fields: Record<string, unknown>, time: string | undefined): void {
    const line: RecordLine = { seq: 0, time: '', kind, ...fields };
    // Set after the fields, so no field can stand in for them; they still print first.
    line.seq = ++this.#seq;
    line.time = time ?? formatTimestamp(this.now());
    line.kind = kind;
    this.#records.push(line);
    for (const sink of this.#sinks) sink(line);
  }
}

/**
 * The fixtures with every secret replaced by a stand-in that is unique and stable within the
 * recording (RS3): a scenario made from it runs against a stub loaded with these same
 * stand-ins, so keys still tell accounts apart, and no real key is ever written.
 */
export function withoutSecrets(fixtures: Fixtures): Fixtures {
  const copy = structuredClone(fixtures);
  for (const account of copy.accounts) {
    account.api_keys = account.api_keys.map(
      (_, i) => `recorded-api-key-${account.subscriber_id}-${i + 1}`,
    );
    if (account.refresh_tokens)
      account.refresh_tokens = account.refresh_tokens.map((token, i) => ({
        ...token,
        token: `recorded-refresh-token-${account.subscriber_id}-${i + 1}`,
      }));
    for (const device of account.devices) {
      if (device.key !== undefined) device.key = `recorded-device-key-${device.id}`;
    }
  }
  return copy;
}

/** What a tap did, as the recording keeps it: the outcome and the task it concerned. */
export function tapRecord(outcome: AckResult): { result: string; task_id: string | null } {
  return { result: outcome.result, task_id: 'taskId' in outcome ? outcome.taskId : null };
}
