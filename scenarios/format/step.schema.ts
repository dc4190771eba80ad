/**
 * A scenario's timeline steps, one variant a kind: the requests to the service API and the
 * trigger interface, what happens to a badge, the clock and the faults.
 */
import Type, { type Static } from 'typebox';
import { MAX_TAP_COPIES } from '../../fixtures/fixtures.schema.ts';
import { BatteryStatus, Location } from '../../protocol/device-frames.schema.ts';
import { FaultRequest } from '../../protocol/faults.schema.ts';
import { DeviceRef, Duration, Environment } from './common-fields.schema.ts';
import { ResponseExpectation } from './expectations.schema.ts';

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
      snapshot: Type.String({
        minLength: 1,
        description:
          'Write the world now (the stub’s snapshot, with the scenario’s badges as `badges`) to this file, relative to the scenario file: a later scenario’s `from:` starts there (decision WS20).',
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
