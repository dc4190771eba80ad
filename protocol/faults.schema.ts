/**
 * Faults on demand (`/_stub/faults`): what a test asks the emulated APIs to do wrong, for which
 * requests and when. The stub's fault table (`server-stub/faults.ts`) reads these shapes and
 * checks what a schema cannot (docs/decisions.md, HF1–HF12).
 */
import Type, { type Static } from 'typebox';
import { MAX_DURATION_MS, MAX_DURATION_TEXT } from './duration.ts';
import { PATH_PATTERN_MAX_LENGTH } from './path-pattern.ts';

/** At most this many faults are kept (HF3); the next one is refused until one is removed. */
export const FAULTS_CAP = 100;
/** The longest latency or stall: a client's timeout is real time, and so is this (HF5). */
export const FAULT_DELAY_MAX_MS = 60_000;
/** The largest `Retry-After` a fault sends, in whole seconds (one day). */
const RETRY_AFTER_MAX_S = 86_400;
/** The largest `times` a fault counts down from. */
const FAULT_TIMES_MAX = 1_000_000;
/** The largest custom body a status fault answers with, as JSON text (16 KiB). */
export const FAULT_BODY_MAX_BYTES = 16 * 1024;

const duration = (description: string) =>
  Type.Union(
    [
      Type.String({ minLength: 1, maxLength: MAX_DURATION_TEXT }),
      Type.Number({ minimum: 0, maximum: MAX_DURATION_MS }),
    ],
    { description },
  );

export const FaultMatch = Type.Object(
  {
    method: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z]{1,16}$',
        description: 'An HTTP method (any case); default: every method.',
      }),
    ),
    path: Type.String({
      minLength: 1,
      maxLength: PATH_PATTERN_MAX_LENGTH,
      description:
        'A path pattern: literal segments, `*` or `{name}` for one segment, `**` for any number; the query string is never part of the match. The path is the one the client sent.',
    }),
    account: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 256,
        description:
          'A subscriber id: the account the request names (`/subscribers/{id}/…`, `?subscriber_id=`) or whose access token it carries. Default: every request.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type FaultMatch = Static<typeof FaultMatch>;

const actionFields = {
  status: Type.Optional(
    Type.Integer({
      minimum: 400,
      maximum: 599,
      description: 'Answer with this status (400–599) before any handler: nothing is stored.',
    }),
  ),
  retry_after: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: RETRY_AFTER_MAX_S,
      description:
        'The `Retry-After` header of a status answer, in whole seconds. Default: 1 for 429 and 503, none for other statuses.',
    }),
  ),
  body: Type.Optional(
    Type.Unknown({
      description:
        "The body of a status answer (any JSON, at most 16 KiB). Default: the service's error shape, code `fault_injected`.",
    }),
  ),
  latency: Type.Optional(
    Type.Union(
      [
        Type.String({ minLength: 1, maxLength: 2 * MAX_DURATION_TEXT + 2 }),
        Type.Integer({ minimum: 0, maximum: FAULT_DELAY_MAX_MS }),
      ],
      {
        description:
          "Delay the request this long in real time, then let it through: '800ms', or a range to draw from, '100ms..900ms' (seeded with the stub). At most 60 s.",
      },
    ),
  ),
  reset: Type.Optional(
    Type.Literal(true, {
      description: 'Destroy the connection without an answer, before any handler.',
    }),
  ),
  stall: Type.Optional(
    Type.Union(
      [
        Type.String({ minLength: 1, maxLength: MAX_DURATION_TEXT }),
        Type.Integer({ minimum: 0, maximum: FAULT_DELAY_MAX_MS }),
      ],
      {
        description:
          "Let the request through, send the answer's headers, and hold its body this long in real time (or until the client goes away), then send it. At most 60 s.",
      },
    ),
  ),
};

export const FaultAction = Type.Object(actionFields, {
  additionalProperties: false,
  description: 'Exactly one of `status`, `latency`, `reset`, `stall`.',
});
export type FaultAction = Static<typeof FaultAction>;

export const FaultWhen = Type.Object(
  {
    times: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: FAULT_TIMES_MAX,
        description:
          'Apply to the next this many matching requests, then no more. Default: no limit.',
      }),
    ),
    probability: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 1,
        description:
          "Apply to a matching request with this chance; drawn from the stub's seed and the fault's id, so a seeded stub repeats the pattern. Default: 1.",
      }),
    ),
    after: Type.Optional(
      duration(
        "Active from this long after the fault was added, on the stub's clock (the instant included). Default: at once.",
      ),
    ),
    for: Type.Optional(
      duration(
        "Active for this long from then, on the stub's clock (its end instant excluded). Default: until removed.",
      ),
    ),
  },
  { additionalProperties: false },
);
export type FaultWhen = Static<typeof FaultWhen>;

export const FaultRequest = Type.Object(
  {
    match: FaultMatch,
    action: FaultAction,
    when: Type.Optional(FaultWhen),
  },
  { additionalProperties: false },
);
export type FaultRequest = Static<typeof FaultRequest>;

export const FaultView = Type.Object({
  id: Type.String({ description: 'Its id: `GET`/`DELETE /_stub/faults/{id}`.' }),
  match: FaultMatch,
  action: Type.Object({
    kind: Type.Union(
      [
        Type.Literal('status'),
        Type.Literal('latency'),
        Type.Literal('reset'),
        Type.Literal('stall'),
      ],
      { description: 'Which of the four it is.' },
    ),
    ...actionFields,
  }),
  when: FaultWhen,
  added_at: Type.String({ description: "When it was added, on the stub's clock." }),
  active_from: Type.String({ description: 'The first instant it applies (inclusive).' }),
  active_until: Type.Union([Type.String(), Type.Null()], {
    description: 'The instant it stops applying (exclusive); null: until removed.',
  }),
  remaining: Type.Union([Type.Integer(), Type.Null()], {
    description: 'How many more requests it applies to; null: no limit.',
  }),
  applied: Type.Integer({ description: 'How many requests it has applied to.' }),
});
export type FaultView = Static<typeof FaultView>;

export const FaultParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
export type FaultParams = Static<typeof FaultParams>;

export const FaultsCleared = Type.Object({
  removed: Type.Integer({ description: 'How many faults were removed.' }),
});
export type FaultsCleared = Static<typeof FaultsCleared>;
