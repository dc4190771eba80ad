/**
 * The notification and events interface, declared once (docs/architecture.md, decision 1). These schemas
 * drive fastify's validation and serialisation, the OpenAPI document and the TypeScript types
 * that the engine, the client and the scenarios use.
 */
import Type, { type Static } from 'typebox';

/** The spec's event kinds (`content.type`). */
const EVENT_TYPES = ['start', 'acknowledged', 'timed_out', 'end'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Alert timeout bounds in seconds. The spec gives only the default; see docs/decisions.md. */
export const TIMEOUT_DEFAULT_S = 300;
export const TIMEOUT_MAX_S = 7 * 24 * 3600;
/** The largest `quorum` an alert may ask for (as many as the most devices generated). */
const QUORUM_MAX = 100_000;
/** Every GET events answers at most this many events, whatever `limit` says. */
export const EVENTS_LIMIT_MAX = 100;

const Text = (description: string) => Type.String({ minLength: 1, description });

export const AlertRequest = Type.Object(
  {
    notification: Text('Text spoken on the devices.'),
    groups: Type.Array(Text('A group name or group URN.'), {
      minItems: 1,
      description: 'Group names or group URNs to send to.',
    }),
    on_ack: Type.Optional(Text('Spoken on the device that acknowledged.')),
    quorum: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: QUORUM_MAX,
        description: 'Acknowledgements after which remaining alerts are cancelled. Default: all.',
      }),
    ),
    on_quorum: Type.Optional(Text('Spoken on devices that have not acknowledged at quorum.')),
    timeout: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: TIMEOUT_MAX_S,
        description: 'Seconds after which remaining alerts are cancelled. Default 300.',
      }),
    ),
    on_timeout: Type.Optional(Text('Spoken on devices that have not acknowledged at timeout.')),
    name: Type.Optional(Text('Correlation name; alerts of one name play one after another.')),
  },
  { additionalProperties: false },
);
export type AlertRequest = Static<typeof AlertRequest>;

export const BroadcastRequest = Type.Object(
  {
    notification: Text('Text spoken once on the devices.'),
    groups: Type.Array(Text('A group name or group URN.'), { minItems: 1 }),
  },
  { additionalProperties: false },
);
export type BroadcastRequest = Static<typeof BroadcastRequest>;

export const TaskCreated = Type.Object({ task_id: Type.String() });
export type TaskCreated = Static<typeof TaskCreated>;

export const SubscriberParams = Type.Object({ id: Type.String({ minLength: 1 }) });
export const TaskParams = Type.Object({
  id: Type.String({ minLength: 1 }),
  task_id: Type.String({ minLength: 1 }),
});

/**
 * ISO 8601 date or date-time; a time without a zone is read as UTC. A space may stand for the
 * `+` of an offset, because an unencoded `+` in a query string arrives as a space.
 */
export const ISO_8601 =
  '^\\d{4}-\\d{2}-\\d{2}([T ]\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+ -]\\d{2}(:?\\d{2})?)?)?$';

export const EventsQuery = Type.Object(
  {
    oldest: Type.Optional(
      Type.String({ pattern: ISO_8601, description: 'Oldest event time. Default: 7 days ago.' }),
    ),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, description: 'Default 100; never more than 100 are returned.' }),
    ),
  },
  // Unknown query parameters are ignored, as web services commonly do.
);
export type EventsQuery = Static<typeof EventsQuery>;

const TaskType = Type.Object({
  major: Type.Integer(),
  minor: Type.Integer(),
  name: Type.String(),
  namespace: Type.String(),
});

export const AnalyticEvent = Type.Object({
  category: Type.String(),
  content: Type.Object({
    type: Type.Union([
      Type.Literal('start'),
      Type.Literal('acknowledged'),
      Type.Literal('timed_out'),
      Type.Literal('end'),
    ]),
    device: Type.Optional(Type.String()),
    status: Type.Optional(Type.String()),
  }),
  task: Type.Object({ id: Type.String(), name: Type.String(), task_type: TaskType }),
  event_id: Type.String(),
  timestamp: Type.String(),
});
export type AnalyticEvent = Static<typeof AnalyticEvent>;

export const EventList = Type.Array(AnalyticEvent);

/** The one error body of the stub, on both its APIs. */
export const ErrorBody = Type.Object({
  statusCode: Type.Integer(),
  error: Type.String({ description: 'HTTP reason phrase.' }),
  code: Type.String({ description: 'Stable machine-readable code.' }),
  message: Type.String(),
  field: Type.Optional(Type.String({ description: 'The request field at fault, if any.' })),
});
export type ErrorBody = Static<typeof ErrorBody>;

/** The token endpoint's refusals: OAuth 2.0 error bodies (RFC 6749 §5.2). */
export const OAuthErrorBody = Type.Object({
  error: Type.String({
    description: '`invalid_request`, `invalid_client`, `invalid_grant`, `unsupported_grant_type`…',
  }),
  error_description: Type.String(),
});
export type OAuthErrorBody = Static<typeof OAuthErrorBody>;
