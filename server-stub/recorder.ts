/**
 * The recording of a live session (`badge-sim stub --record FILE`, `/_stub/recording`):
 * everything that happened on the stub, in order, on its clock. It keeps no second copy of
 * what a request was: a `request` record is the request journal's entry (secrets masked
 * there). At most `limit` records and RECORDING_MAX_CHARS of their JSON since the recording
 * began (RS2): past either, records are counted as dropped, neither kept nor given to the
 * sinks, and one `capped` record says so.
 */

import { formatTimestamp } from '../clock/clock.ts';
import type { Fixtures } from '../fixtures/fixtures.schema.ts';
import {
  RECORDING_MAX_CHARS,
  type Recording,
  type RecordKind,
  type RecordLine,
} from '../protocol/recording.schema.ts';
import type { DeviceCommand } from './engine/device-command.ts';
import type { AckResult } from './engine/engine-types.ts';

/** A command sent this turn, the devices it went to, and the place of its first sending. */
interface SentGroup {
  command: DeviceCommand;
  devices: string[];
  place: RecordPlace;
}

/** Told each record as it is kept, with its JSON text (the file writer of `--record`). */
export type RecordSink = (line: RecordLine, text: string) => void;

/** Where a record goes in the order of things: its instant and its place (a reserved `seq`). */
export interface RecordPlace {
  time: string;
  seq: number;
}

export class SessionRecorder {
  #records: { line: RecordLine; text: string }[] = [];
  #chars = 0;
  #dropped = 0;
  #seq = 0;
  readonly #sinks = new Set<RecordSink>();
  readonly #sessionListeners = new Set<() => void>();
  /** Off until started (RS1): a stub that nobody records keeps nothing and spends nothing. */
  #on = false;
  /** Traces written now (trace-file.ts): they record what only a trace holds (TR2). */
  #traces = 0;
  /**
   * The commands sent to badges this turn of the event loop, one a distinct command with the
   * devices it went to, in the order first sent (RS17): a fan-out to 10,000 badges is one
   * record, not 10,000. Each keeps the place (`seq`, time) of its first sending.
   */
  readonly #sent = new Map<string, SentGroup>();
  /** The group last added to: a fan-out sends one command object to every device. */
  #lastSent: SentGroup | undefined;

  constructor(
    private readonly now: () => number,
    readonly limit: number,
    /** The JSON text the records kept may take at most, all together (RS2). */
    readonly maxChars: number = RECORDING_MAX_CHARS,
  ) {}

  /** Whether it records now. */
  get recording(): boolean {
    return this.#on;
  }

  /** What is recorded so far, in the order things happened (`seq`). */
  list(): Recording {
    this.#flushSent();
    const records = this.#records.map((r) => r.line).sort((a, b) => a.seq - b.seq);
    return { recording: this.#on, records, dropped: this.#dropped, limit: this.limit };
  }

  /** Empties it and records from now on; the caller begins the session (`begin`). */
  start(): number {
    const removed = this.clear();
    this.#on = true;
    return removed;
  }

  /** Whether a trace is written now: the engine then records each alert's changes too. */
  get traced(): boolean {
    return this.#traces > 0;
  }

  /**
   * Stops recording and empties it; answers how many records it held. While a trace is
   * written it only empties it: the trace goes on (TR2).
   */
  stop(): number {
    this.#on = this.#traces > 0;
    return this.clear();
  }

  /** `pipe` for a trace: records on until the returned function stops the trace (TR2). */
  trace(sink: RecordSink): () => void {
    this.#traces++;
    const unpipe = this.pipe(sink);
    let stopped = false;
    return () => {
      if (stopped) return;
      stopped = true;
      this.#traces--;
      unpipe();
    };
  }

  /** Sends every later record to `sink`, after the ones kept so far; returns the unsubscribe. */
  pipe(sink: RecordSink): () => void {
    for (const { line, text } of this.#records) sink(line, text);
    this.#sinks.add(sink);
    return () => this.#sinks.delete(sink);
  }

  /**
   * A place in the order of things for a record made later: a request takes one when it
   * arrives and is recorded when its answer has gone, so what it caused comes after it.
   */
  reserve(): RecordPlace {
    return { time: formatTimestamp(this.now()), seq: ++this.#seq };
  }

  /** Records what happened now, or at the place reserved for it. */
  add(kind: RecordKind, fields: Record<string, unknown>, place?: RecordPlace): void {
    if (!this.#on) return;
    // Once full, everything newer is dropped: a recording with holes would replay wrong.
    if (this.#dropped > 0 && kind !== 'end' && kind !== 'capped') {
      this.#dropped++;
      return;
    }
    const line: RecordLine = { seq: 0, time: '', kind, ...fields };
    // Set after the fields, so no field can stand in for them; they still print first.
    line.seq = place?.seq ?? ++this.#seq;
    line.time = place?.time ?? formatTimestamp(this.now());
    line.kind = kind;
    const text = JSON.stringify(line);
    const full = this.#records.length >= this.limit || this.#chars + text.length > this.maxChars;
    // The two records about the recording itself are kept past its limits.
    if (full && kind !== 'end' && kind !== 'capped') {
      if (this.#dropped++ === 0)
        this.add('capped', { limit: this.limit, max_chars: this.maxChars });
      return;
    }
    this.#records.push({ line, text });
    this.#chars += text.length;
    for (const sink of this.#sinks) sink(line, text);
  }

  /** A command the stub sent a connected badge (play, broadcast, speak, stop), recorded this turn. */
  sent(device: string, command: DeviceCommand): void {
    if (!this.#on) return;
    // The same object as the last command: its group, without serialising it again.
    let group = this.#lastSent?.command === command ? this.#lastSent : undefined;
    if (group === undefined) {
      const key = JSON.stringify(command);
      group = this.#sent.get(key);
      if (group === undefined) {
        if (this.#sent.size === 0) queueMicrotask(() => this.#flushSent());
        group = { command, devices: [], place: this.reserve() };
        this.#sent.set(key, group);
      }
      this.#lastSent = group;
    }
    group.devices.push(device);
  }

  #flushSent(): void {
    if (this.#sent.size === 0) return;
    const groups = [...this.#sent.values()];
    this.#sent.clear();
    this.#lastSent = undefined;
    for (const { command, devices, place } of groups)
      this.add('command', { devices, ...commandRecord(command) }, place);
  }

  /** A `session` record: the recording (re)starts here, with the stub's fixtures (RS3, RS4). */
  begin(
    reason: 'start' | 'reset' | 'fixtures',
    fixtures: Fixtures,
    clock: object,
    settings: object,
  ): void {
    this.add('session', { reason, fixtures: withoutSecrets(fixtures), clock, settings });
    for (const listener of this.#sessionListeners) listener();
  }

  /**
   * Listens for the start of each session, to record what is already so then (the gateway:
   * the badges still connected after a reset); returns the unsubscribe function.
   */
  onSession(listener: () => void): () => void {
    this.#sessionListeners.add(listener);
    return () => this.#sessionListeners.delete(listener);
  }

  /** Empties the recording; answers how many records it held. */
  clear(): number {
    this.#sent.clear();
    this.#lastSent = undefined;
    const removed = this.#records.length;
    this.#records = [];
    this.#chars = 0;
    this.#dropped = 0;
    return removed;
  }

  /** The stub stops: an `end` record with what was dropped, even past the limit. */
  end(): void {
    this.#flushSent();
    this.add('end', { dropped: this.#dropped });
    this.#sinks.clear();
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

/** A command as the recording keeps it: `command` its type, then its fields as the frame names them. */
function commandRecord(command: DeviceCommand): Record<string, unknown> {
  const { type, taskId, ...rest } = command;
  return { command: type, task_id: taskId, ...rest };
}
