/**
 * The request journal (`GET`/`DELETE /_stub/journal`): what the emulated APIs received and
 * answered, secrets masked; and the request matcher that `requests:` expectations and the
 * `toHaveReceived` vitest matcher check it with.
 */
import Type, { type Static } from 'typebox';
import { PATH_PATTERN_MAX_LENGTH } from './path-pattern.ts';
import { ISO_8601 } from './service-api.schema.ts';

/** Entries kept by default (the `journalLimit` setting); older ones are dropped first (RJ3). */
export const JOURNAL_LIMIT_DEFAULT = 1_000;
/** The largest `journalLimit` a stub takes. */
export const JOURNAL_LIMIT_MAX = 100_000;
/** A body or answer is kept up to this many characters of its JSON (or raw) text (RJ4). */
export const JOURNAL_BODY_MAX_CHARS = 8 * 1024;
/** Entries in one page of `GET /_stub/journal`: `limit`'s default and its most. */
export const JOURNAL_PAGE_DEFAULT = 100;
export const JOURNAL_PAGE_MAX = 1_000;

export const AppliedFaultView = Type.Object({
  id: Type.String({ description: 'The fault, as `GET /_stub/faults` lists it.' }),
  kind: Type.Union(
    [Type.Literal('status'), Type.Literal('latency'), Type.Literal('reset'), Type.Literal('stall')],
    { description: 'What it did to the request.' },
  ),
  let_through: Type.Boolean({
    description: 'Whether the request reached the emulated API (and may have changed state).',
  }),
});
export type AppliedFaultView = Static<typeof AppliedFaultView>;

export const JournalEntry = Type.Object({
  id: Type.Integer({
    description: 'Sequence number: increasing, never reused in a stub process (not after a reset).',
  }),
  time: Type.String({ description: "The stub clock's time when the request arrived (µs)." }),
  method: Type.String(),
  path: Type.String({ description: 'Without the query string.' }),
  query: Type.Record(Type.String(), Type.Unknown(), {
    description: 'The query string, read as fastify reads it (repeated names: a list).',
  }),
  headers: Type.Record(Type.String(), Type.String(), {
    description:
      'content-type, accept and user-agent as sent, authorization with its credential masked (`Bearer ***`).',
  }),
  body: Type.Unknown({
    description: `The body parsed (JSON or form), else its text, secrets masked; null when none arrived. Past ${JOURNAL_BODY_MAX_CHARS} characters: the JSON text cut there (see \`truncated\`).`,
  }),
  account: Type.Union([Type.String(), Type.Null()], {
    description:
      'The subscriber id the path or query named, else the owner of the credentials sent; null when neither says.',
  }),
  status: Type.Union([Type.Integer(), Type.Null()], {
    description: 'The status sent; null when the connection was reset or aborted first.',
  }),
  answer: Type.Unknown({
    description: 'The answer body as sent (parsed when JSON), secrets masked; null when none.',
  }),
  duration_ms: Type.Number({ description: 'Real time from arrival to the end of the answer.' }),
  fault: Type.Union([AppliedFaultView, Type.Null()], {
    description: 'The fault that shaped the answer (`/_stub/faults`), or null.',
  }),
  truncated: Type.Optional(
    Type.Array(Type.Union([Type.Literal('body'), Type.Literal('answer')]), {
      description: 'Which of body and answer were cut to their JSON text.',
    }),
  ),
});
export type JournalEntry = Static<typeof JournalEntry>;

export const JournalQuery = Type.Object(
  {
    method: Type.Optional(Type.String({ minLength: 1, maxLength: 16, description: 'Any case.' })),
    path: Type.Optional(
      Type.String({
        maxLength: PATH_PATTERN_MAX_LENGTH,
        description:
          'A path pattern: literal segments, `*` or `{name}` for one segment, `**` for any number.',
      }),
    ),
    account: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
    since: Type.Optional(
      Type.String({
        pattern: ISO_8601,
        description:
          'Entries whose `time` is at or after this instant (as `oldest` of GET events; an entry at that very instant is listed).',
      }),
    ),
    status: Type.Optional(Type.Integer({ minimum: 100, maximum: 599 })),
    fault: Type.Optional(
      Type.Union([Type.Literal('true'), Type.Literal('false')], {
        description: 'true: only requests a fault shaped; false: only the others.',
      }),
    ),
    after: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: 'Only entries with a larger id: the `next` of the page before.',
      }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: JOURNAL_PAGE_MAX,
        description: `Entries in this page (default ${JOURNAL_PAGE_DEFAULT}).`,
      }),
    ),
  },
  { additionalProperties: false },
);
export type JournalQuery = Static<typeof JournalQuery>;

export const JournalPage = Type.Object({
  entries: Type.Array(JournalEntry, { description: 'Oldest first.' }),
  dropped: Type.Integer({
    description: 'Entries dropped to keep the journal within its cap since it was last emptied.',
  }),
  next: Type.Union([Type.Integer(), Type.Null()], {
    description: 'Give it as `after` for the next page; null when this page is the last.',
  }),
});
export type JournalPage = Static<typeof JournalPage>;

export const JournalCleared = Type.Object({
  removed: Type.Integer({ description: 'Entries removed.' }),
});
export type JournalCleared = Static<typeof JournalCleared>;

/** How many requests a matcher wants: exactly `n`, or a range (default: at least one). */
const RequestCount = Type.Union([
  Type.Integer({ minimum: 0 }),
  Type.Object(
    {
      min: Type.Optional(Type.Integer({ minimum: 0 })),
      max: Type.Optional(Type.Integer({ minimum: 0 })),
    },
    { additionalProperties: false },
  ),
]);

/** Requests the emulated APIs received, as `requests:` and `toHaveReceived` describe them. */
export const RequestMatcher = Type.Object(
  {
    method: Type.Optional(Type.String({ minLength: 1, description: 'Any case.' })),
    path: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: PATH_PATTERN_MAX_LENGTH,
        description: 'A path pattern (`*`, `{name}`: one segment; `**`: any).',
      }),
    ),
    body: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: 'Fields the body has (nested objects partially; lists whole).',
      }),
    ),
    status: Type.Optional(Type.Integer({ minimum: 100, maximum: 599 })),
    fault: Type.Optional(Type.Boolean({ description: 'Whether a fault shaped the request.' })),
    count: Type.Optional(RequestCount),
  },
  { additionalProperties: false },
);
export type RequestMatcher = Static<typeof RequestMatcher>;
