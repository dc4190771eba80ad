/**
 * The scenario model, declared once: it validates `*.scenario.yaml` files, types
 * `defineScenario(...)`, and is published as JSON Schema (`scenarios/scenario.schema.json`)
 * so editors complete and check scenario files.
 */
import Type, { type Static } from 'typebox';
import {
  DURATION_PATTERN,
  FixtureBehaviour,
  Fixtures,
  MAX_TAP_COPIES,
} from '../../fixtures/fixtures.schema.ts';
import { CancelEvents, EnvironmentName } from '../../protocol/control-api.schema.ts';
import { BadgeStatus, BatteryStatus, Location } from '../../protocol/device-frames.schema.ts';
import { MAX_DURATION_TEXT } from '../../protocol/duration.ts';
import { FaultRequest } from '../../protocol/faults.schema.ts';
import { RequestMatcher } from '../../protocol/journal.schema.ts';

const Duration = (description: string) =>
  Type.String({ maxLength: MAX_DURATION_TEXT, pattern: DURATION_PATTERN, description });
/** A device by id (`350000000000002`) or by its user's name (`Ben Okafor`). */
const DeviceRef = Type.String({ minLength: 1, description: "A device id or its user's name." });

/** A field of a request body as written: any JSON, so a scenario can send wrong ones too. */
const AsWritten = (description: string) => Type.Optional(Type.Unknown({ description }));

const AlertFields = Type.Object(
  {
    notification: AsWritten('Text spoken on the devices.'),
    groups: AsWritten('Group names or URNs.'),
    on_ack: AsWritten('Spoken on the device that acknowledged.'),
    quorum: AsWritten('Acknowledgements that end the alert.'),
    on_quorum: AsWritten('Spoken on the others at quorum.'),
    timeout: AsWritten('Seconds before the alert times out.'),
    on_timeout: AsWritten('Spoken on those who did not acknowledge.'),
    name: AsWritten('Correlation name.'),
  },
  {
    additionalProperties: true,
    description: 'The body of POST alerts, sent as written (so a scenario can send bad ones too).',
  },
);

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

const Auth = Type.Union(
  [
    Type.Literal('valid'),
    Type.Literal('none'),
    Type.Literal('wrong'),
    Type.Literal('other-account'),
  ],
  {
    description:
      'The Authorization header: the account key (default), none, an unknown key, or another account’s key.',
  },
);

/** The credential of a workflow or device-info step. */
const Bearer = Type.Union(
  [
    Type.Literal('valid'),
    Type.Literal('none'),
    Type.Literal('id_token'),
    Type.Literal('other-environment'),
  ],
  {
    description:
      'valid (default): the client with its token handling (cache, refresh on 401, retry once); none: no Authorization; id_token: the id_token as bearer; other-environment: an access token of the other environment.',
  },
);
export type Bearer = Static<typeof Bearer>;
const Environment = Type.Union(EnvironmentName.anyOf, {
  description: 'The environment whose hosts and client ids the step uses (default pro).',
});

/** A request step's client retrying as the service asks (`Retry-After`), on the stub's clock. */
const MAX_STEP_RETRIES = 10;
const Retry = Type.Optional(
  Type.Object(
    {
      times: Type.Integer({
        minimum: 1,
        maximum: MAX_STEP_RETRIES,
        description: 'Retries at most (after the first try).',
      }),
      on: Type.Array(Type.Integer({ minimum: 400, maximum: 599 }), {
        minItems: 1,
        maxItems: 200,
        description: 'The statuses that are retried, e.g. [429, 503].',
      }),
    },
    {
      additionalProperties: false,
      description:
        'Retry when the answer has one of these statuses: the clock moves on by its Retry-After (whole seconds; none: at once), then the request is sent again. `expect` checks the last answer.',
    },
  ),
);

const stepBase = {
  at: Duration('When, from the start of the scenario.'),
  as: Type.Optional(
    Type.String({ minLength: 1, description: 'A name for this step’s task or answer.' }),
  ),
  expect: Type.Optional(ResponseExpectation),
  repeat: Type.Optional(
    Type.Object(
      { times: Type.Integer({ minimum: 1, maximum: 1000 }), every: Duration('Between repeats.') },
      { additionalProperties: false, description: 'Do the step again, `times` in all.' },
    ),
  ),
  note: Type.Optional(Type.String({ description: 'For people; ignored.' })),
};

export const Step = Type.Union([
  Type.Object(
    { ...stepBase, alert: AlertFields, auth: Type.Optional(Auth), retry: Retry },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      ...stepBase,
      broadcast: Type.Object(
        {},
        { additionalProperties: true, description: 'The body of POST broadcasts.' },
      ),
      auth: Type.Optional(Auth),
      retry: Retry,
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      ...stepBase,
      cancel: Type.String({ description: 'The `as` of an alert step, or a task id.' }),
      auth: Type.Optional(Auth),
      retry: Retry,
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      ...stepBase,
      events: Type.Object(
        {
          oldest: Type.Optional(
            Type.String({ description: 'ISO 8601, or a duration from the start: 10s.' }),
          ),
          limit: Type.Optional(Type.Union([Type.Integer(), Type.String()])),
        },
        { additionalProperties: false, description: 'GET events with these query parameters.' },
      ),
      auth: Type.Optional(Auth),
      retry: Retry,
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      ...stepBase,
      request: Type.Object(
        {
          method: Type.Union([
            Type.Literal('GET'),
            Type.Literal('POST'),
            Type.Literal('DELETE'),
            Type.Literal('PUT'),
          ]),
          path: Type.String({
            description: 'After /subscribers/{id}/api/v1/, e.g. alerts; no `..`.',
          }),
          body: Type.Optional(Type.Unknown()),
          raw_body: Type.Optional(Type.String({ description: 'Sent as is, with content_type.' })),
          content_type: Type.Optional(Type.String()),
        },
        { additionalProperties: false, description: 'Any request to the service API.' },
      ),
      auth: Type.Optional(Auth),
      retry: Retry,
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      ...stepBase,
      workflow: Type.Object(
        {
          id: Type.String({ minLength: 1, description: 'The workflow id, e.g. wf_http_page.' }),
          user: DeviceRef,
          targets: Type.Optional(
            Type.Array(DeviceRef, { description: 'Sent as target_device_ids.' }),
          ),
          action_args: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
        },
        {
          additionalProperties: false,
          description:
            'POST ibot/workflow/{id}?subscriber_id&user_id with {"action":"invoke"}; `as` names the invocation (heard `task:`).',
        },
      ),
      environment: Type.Optional(Environment),
      auth: Type.Optional(Bearer),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      ...stepBase,
      device_info: DeviceRef,
      environment: Type.Optional(Environment),
      auth: Type.Optional(Bearer),
    },
    { additionalProperties: false, description: 'GET service/api/v1/device/{id}.' },
  ),
  Type.Object(
    {
      ...stepBase,
      expire_tokens: Type.Literal(true, {
        description:
          'Move the clock on by the access-token lifetime (2 hours, timers fire on the way): every access token issued so far expires.',
      }),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      ...stepBase,
      tap: DeviceRef,
      lost: Type.Optional(
        Type.Literal(true, {
          description: 'The button frame never reaches the stub; the badge believes it tapped.',
        }),
      ),
      delay: Type.Optional(Duration('The button frame leaves this much later (badge clock).')),
      duplicate: Type.Optional(
        Type.Integer({
          minimum: 2,
          maximum: MAX_TAP_COPIES,
          description: 'The button frame arrives this many times.',
        }),
      ),
      gap: Type.Optional(Duration('Time between the copies of a duplicated tap (default 0).')),
    },
    {
      additionalProperties: false,
      description:
        'Press the talk button. lost, delay and duplicate make the tap go wrong on the way (a badge only).',
    },
  ),
  Type.Object({ ...stepBase, offline: DeviceRef }, { additionalProperties: false }),
  Type.Object(
    { ...stepBase, vanish: DeviceRef },
    {
      additionalProperties: false,
      description:
        "The badge's network vanishes without a close (half-open): the stub still sees it online. `online` brings it back on a new socket; the stub replaces the old one.",
    },
  ),
  Type.Object(
    {
      ...stepBase,
      drop: DeviceRef,
      for: Duration('How long the badge stays off the network before it comes back.'),
    },
    {
      additionalProperties: false,
      description: 'The badge drops off the network now and comes back `for` later (badge clock).',
    },
  ),
  Type.Object(
    {
      ...stepBase,
      battery: DeviceRef,
      level: Type.Integer({ minimum: 0, maximum: 100, description: 'Battery level, %.' }),
      status: Type.Optional(BatteryStatus),
    },
    {
      additionalProperties: false,
      description: 'The badge’s battery changes; it reports it in a state frame when online.',
    },
  ),
  Type.Object(
    {
      ...stepBase,
      move: DeviceRef,
      location: Location,
    },
    {
      additionalProperties: false,
      description:
        'The wearer moves: the badge reports its location in a state frame when online, and keeps it for when it is back.',
    },
  ),
  Type.Object({ ...stepBase, online: DeviceRef }, { additionalProperties: false }),
  Type.Object(
    { ...stepBase, jump: Duration('Move the clock on by this much (timers fire on the way).') },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      ...stepBase,
      fault: Type.Object(FaultRequest.properties, {
        additionalProperties: false,
        description:
          'Add a fault on the emulated APIs (as POST /_stub/faults takes it); `as` names it for clear_fault. Its window starts when the step runs.',
      }),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      ...stepBase,
      clear_fault: Type.String({
        minLength: 1,
        description: 'The `as` of an earlier fault step, or `all` for every fault.',
      }),
    },
    { additionalProperties: false },
  ),
]);
export type Step = Static<typeof Step>;

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

/**
 * The stub settings that change what the engine answers or accepts, which a scenario may need (decision
 * Y4): the embedded stub starts with them; an external stub must already run with them.
 */
export const ScenarioSettings = Type.Object(
  {
    cancel_events: Type.Optional(
      Type.Union([...CancelEvents.anyOf], {
        description:
          'The events of a cancel (DELETE): end-cancelled (default), end-normal, or none (the stub’s --cancel-events).',
      }),
    ),
    unknown_fields: Type.Optional(
      Type.Union([Type.Literal('reject'), Type.Literal('ignore')], {
        description:
          'Fields the spec does not list in a body: reject (default, 400) or ignore (the stub’s --unknown-fields).',
      }),
    ),
    urn_word: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9_-]+$',
        maxLength: 64,
        description:
          'The word of group URNs, urn:<word>-resource:… (default service; the stub’s --urn-word).',
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'Stub settings this scenario needs (default: the stub’s defaults).',
  },
);
export type ScenarioSettings = Static<typeof ScenarioSettings>;

export const Scenario = Type.Object(
  {
    $schema: Type.Optional(Type.String()),
    name: Type.String({ minLength: 1 }),
    proves: Type.String({ minLength: 1, description: 'One line: what this scenario proves.' }),
    tags: Type.Optional(Type.Array(Type.String())),
    decisions: Type.Optional(
      Type.Array(Type.String({ pattern: '^[A-Z]+[0-9]+[a-z]?$' }), {
        maxItems: 100,
        uniqueItems: true,
        description:
          'Ids of the rows of docs/decisions.md this scenario exercises (`L1`, `D3`): `run --coverage` reports the rows no scenario touched. An id that is no row is refused.',
      }),
    ),
    real_time: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 500,
        description:
          'Why this scenario waits real time in its own process: only when that wait is what it proves (a transport bound). Every other scenario runs on the virtual clock without one (decision SP3); bench:scenarios times the ones that say so apart from the rest.',
      }),
    ),
    seed: Type.Optional(Type.Integer({ description: 'Default: the runner’s --seed (0).' })),
    settings: Type.Optional(ScenarioSettings),
    fixtures: Type.Optional(
      Type.Union([
        Type.Literal('default'),
        Fixtures,
        Type.Object(
          {
            file: Type.String({
              minLength: 1,
              description:
                'A fixtures file (YAML or JSON, as `badge-sim stub --fixtures` reads), relative to this scenario file: read each time the scenario is loaded (decision Y7).',
            }),
          },
          { additionalProperties: false },
        ),
        Type.Object(
          {
            generate: Type.Object(
              {
                seed: Type.Integer(),
                accounts: Type.Optional(Type.Integer({ minimum: 1 })),
                groupsPerAccount: Type.Optional(Type.Integer({ minimum: 1 })),
                devicesPerAccount: Type.Optional(Type.Integer({ minimum: 0 })),
              },
              { additionalProperties: false },
            ),
          },
          { additionalProperties: false },
        ),
      ]),
    ),
    account: Type.Optional(
      Type.String({ description: 'Subscriber id the API steps use (default: the first account).' }),
    ),
    badges: Type.Optional(
      Type.Union(
        [
          Type.Literal('none'),
          Type.Object(
            {
              group: Type.Optional(Type.String()),
              devices: Type.Optional(Type.Array(DeviceRef)),
            },
            { additionalProperties: false },
          ),
        ],
        {
          description: 'Which devices run a virtual badge (default: every device of the account).',
        },
      ),
    ),
    behaviours: Type.Optional(
      Type.Record(Type.String(), FixtureBehaviour, {
        description: 'Behaviour by device id, user name, or `*` for every badge without one.',
      }),
    ),
    timeline: Type.Array(Step),
    duration: Type.Optional(Duration('Run the clock to this point (default: the last step).')),
    expect: Expectations,
  },
  { additionalProperties: false },
);
export type Scenario = Static<typeof Scenario>;
