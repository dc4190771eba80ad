/**
 * A recording of a live session (`badge-sim stub --record FILE`, `GET`/`DELETE
 * /_stub/recording`): everything that happened on the stub, in order, on its clock, one JSON
 * object a line, secrets never written. `badge-sim record` turns it into a scenario.
 */
import Type, { type Static } from 'typebox';

/** Records kept (and written) by default since the recording began; `--record-limit` changes it (RS2). */
export const RECORDING_LIMIT_DEFAULT = 20_000;
export const RECORDING_LIMIT_MAX = 1_000_000;
/** The JSON text of the records kept, all together, at most (a request record is up to ~17 KiB). */
export const RECORDING_MAX_CHARS = 64 * 1024 * 1024;

/** What a record is about (`kind`). */
export type RecordKind =
  | 'session'
  | 'request'
  | 'connect'
  | 'close'
  | 'tap'
  | 'battery'
  | 'command'
  | 'clock'
  | 'event'
  | 'capped'
  | 'end'
  | TraceOnlyKind;

/**
 * What only a trace holds (protocol/trace.schema.ts): a badge machine's transition, an alert's
 * change, a scenario's step and its verdict, a repro's `field` events and `parting` (TR12), and
 * the `snapshot` of what the records so far left (TR14).
 * `badge-sim record` leaves them out (TR3).
 */
type TraceOnlyKind = 'transition' | 'alert' | 'step' | 'verdict' | 'field' | 'parting' | 'snapshot';

export const TRACE_ONLY_KINDS: readonly RecordKind[] = [
  'transition',
  'alert',
  'step',
  'verdict',
  'field',
  'parting',
  'snapshot',
];

export const RECORD_KINDS: readonly RecordKind[] = [
  'session',
  'request',
  'connect',
  'close',
  'tap',
  'battery',
  'command',
  'clock',
  'event',
  'capped',
  'end',
  ...TRACE_ONLY_KINDS,
];

export const RecordLine = Type.Object(
  {
    seq: Type.Integer({
      minimum: 1,
      description:
        'The order things happened: a request takes its place when it arrives, and is written when its answer has gone (after what it caused): sort by seq.',
    }),
    time: Type.String({ description: "The stub clock's time of what happened (µs)." }),
    kind: Type.String({
      enum: [...RECORD_KINDS],
      description:
        'session: the recording (re)starts, with the fixtures (secrets replaced) and the clock; request: a request to the emulated APIs, as the journal keeps it; connect / close: a badge came online (replacing a connection or not) / went offline; tap: a talk-button tap (by the badge or the control API) and what it acknowledged; battery: a new battery reading; command: a command sent to connected badges (`command` play, broadcast, speak or stop, its `task_id` and fields, the `devices` it went to in this turn); clock: the clock jumped or switched mode through the control API; event: an analytic event; capped: the limit was reached, what follows is dropped; end: the stub stopped. Only in a trace: transition (of a badge machine), alert (the state of a task after a change), step (a scenario step and its answer), verdict (the outcome of a scenario); in the trace of repro --trace, field (an event of the field export, at its instant on the run clock) and parting (where the field history and the run history part); snapshot (every badge and alert as the records before it left them, so an instant is rebuilt from the nearest one).',
    }),
  },
  {
    additionalProperties: true,
    description: 'One thing that happened; the other fields depend on `kind`.',
  },
);
export interface RecordLine {
  seq: number;
  time: string;
  kind: RecordKind;
  [field: string]: unknown;
}

export const Recording = Type.Object({
  recording: Type.Boolean({
    description:
      'Whether the stub records now: from `--record FILE`, `startStub({ record: true })` or `POST /_stub/recording` until `DELETE`.',
  }),
  records: Type.Array(RecordLine, { description: 'Oldest first.' }),
  dropped: Type.Integer({
    description: 'Records past the limit since the recording began: neither kept nor written.',
  }),
  limit: Type.Integer({ description: 'Records kept at most.' }),
});
export interface Recording {
  recording: boolean;
  records: RecordLine[];
  dropped: number;
  limit: number;
}

export const RecordingCleared = Type.Object({
  removed: Type.Integer({ description: 'Records of the recording before, removed.' }),
});
export type RecordingCleared = Static<typeof RecordingCleared>;
