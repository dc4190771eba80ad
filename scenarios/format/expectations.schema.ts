/**
 * What a scenario expects: of each API step's answer, and at the end of the events, what each
 * badge heard, the badges' states, the devices, invocations, requests, tokens and tasks.
 */
import Type, { type Static } from 'typebox';
import { BadgeStatus, BatteryStatus } from '../../protocol/device-frames.schema.ts';
import { RequestMatcher } from '../../protocol/journal.schema.ts';
import { Duration, Environment } from './common-fields.schema.ts';

/** What an API step's answer must be. */
export const ResponseExpectation = Type.Object(
  {
    status: Type.Optional(Type.Integer({ description: 'HTTP status.' })),
    body: Type.Optional(Type.Unknown({ description: 'Matched partially: listed fields only.' })),
    count: Type.Optional(
      Type.Integer({ minimum: 0, description: 'For a JSON array: its length.' }),
    ),
  },
  { additionalProperties: false },
);
export type ResponseExpectation = Static<typeof ResponseExpectation>;

export const EventMatcher = Type.Object(
  {
    type: Type.Optional(
      Type.Union([
        Type.Literal('start'),
        Type.Literal('acknowledged'),
        Type.Literal('timed_out'),
        Type.Literal('end'),
      ]),
    ),
    device: Type.Optional(Type.String({ description: 'content.device: the user’s name.' })),
    status: Type.Optional(Type.String({ description: 'content.status.' })),
    task: Type.Optional(
      Type.String({ description: 'The `as` of an alert step: the event belongs to it.' }),
    ),
    name: Type.Optional(Type.String({ description: 'task.name.' })),
    at: Type.Optional(Duration('When, from the start.')),
    within: Type.Optional(
      Duration('Tolerance of `at` (default 0 on the virtual clock, 2s in real time).'),
    ),
  },
  { additionalProperties: false },
);
export type EventMatcher = Static<typeof EventMatcher>;

const EventsExpectation = Type.Union([
  Type.Array(EventMatcher, {
    description: 'These events, in this order (others may come between).',
  }),
  Type.Object(
    {
      order: Type.Optional(
        Type.Union([Type.Literal('strict'), Type.Literal('any')], {
          description: 'Default strict.',
        }),
      ),
      only: Type.Optional(Type.Boolean({ description: 'And no other events.' })),
      items: Type.Array(EventMatcher),
    },
    { additionalProperties: false },
  ),
]);

export const HeardMatcher = Type.Object(
  {
    kind: Type.Optional(
      Type.Union([Type.Literal('alert'), Type.Literal('broadcast'), Type.Literal('speech')]),
    ),
    text: Type.Optional(Type.String()),
    cause: Type.Optional(Type.String()),
    task: Type.Optional(Type.String()),
    at: Type.Optional(Duration('When it started, from the start.')),
    within: Type.Optional(Duration('Tolerance of `at`.')),
  },
  { additionalProperties: false },
);
export type HeardMatcher = Static<typeof HeardMatcher>;

export const HeardExpectation = Type.Object(
  {
    count: Type.Optional(
      Type.Object(
        {
          alert: Type.Optional(Type.Integer({ minimum: 0 })),
          broadcast: Type.Optional(Type.Integer({ minimum: 0 })),
          speech: Type.Optional(Type.Integer({ minimum: 0 })),
          total: Type.Optional(Type.Integer({ minimum: 0 })),
        },
        { additionalProperties: false },
      ),
    ),
    texts: Type.Optional(
      Type.Array(Type.String(), { description: 'Exactly these texts, in order.' }),
    ),
    includes: Type.Optional(
      Type.Array(HeardMatcher, { description: 'These, in order (others may come between).' }),
    ),
    exactly: Type.Optional(
      Type.Array(HeardMatcher, { description: 'These and nothing else, in order.' }),
    ),
  },
  { additionalProperties: false },
);
export type HeardExpectation = Static<typeof HeardExpectation>;

export const DeviceExpectation = Type.Object(
  {
    online: Type.Optional(Type.Boolean()),
    battery_level: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
    battery_status: Type.Optional(BatteryStatus),
    battery_low: Type.Optional(Type.Boolean({ description: 'At most 20 % and not charging.' })),
  },
  { additionalProperties: false },
);
export type DeviceExpectation = Static<typeof DeviceExpectation>;

export const Expectations = Type.Object(
  {
    events: Type.Optional(EventsExpectation),
    heard: Type.Optional(
      Type.Record(Type.String(), HeardExpectation, { description: 'By device id or user name.' }),
    ),
    states: Type.Optional(
      Type.Record(Type.String(), BadgeStatus, { description: 'Final state of each badge.' }),
    ),
    devices: Type.Optional(
      Type.Record(Type.String(), DeviceExpectation, {
        description:
          'What the stub knows of each device at the end (GET /_stub/devices): listed fields only.',
      }),
    ),
    invocations: Type.Optional(
      Type.Array(
        Type.Object(
          {
            workflow: Type.Optional(Type.String()),
            user: Type.Optional(Type.String({ description: 'A device id or its user’s name.' })),
            environment: Type.Optional(Environment),
          },
          { additionalProperties: false },
        ),
        {
          description:
            'The workflow invocations the stub recorded during the scenario: exactly these, in order.',
        },
      ),
    ),
    requests: Type.Optional(
      Type.Array(RequestMatcher, {
        description:
          'Requests the emulated APIs received during the scenario (the stub’s request journal): each matcher counts the entries with its method, path pattern, body fields, status and fault; at least one unless `count` says otherwise.',
      }),
    ),
    token_requests: Type.Optional(
      Type.Integer({
        minimum: 0,
        description:
          'How many times the scenario’s clients went to oauth2/token (the first token and each refresh).',
      }),
    ),
    tasks: Type.Optional(
      Type.Record(
        Type.String(),
        Type.Object(
          {
            state: Type.Optional(Type.Union([Type.Literal('alerting'), Type.Literal('ended')])),
            outcome: Type.Optional(
              Type.Union([
                Type.Literal('quorum'),
                Type.Literal('timed_out'),
                Type.Literal('cancelled'),
                Type.Null(),
              ]),
            ),
            acknowledgements: Type.Optional(Type.Integer({ minimum: 0 })),
          },
          { additionalProperties: false },
        ),
        { description: 'By the `as` of an alert step.' },
      ),
    ),
  },
  { additionalProperties: false },
);
export type Expectations = Static<typeof Expectations>;
