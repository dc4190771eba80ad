/**
 * The control API: everything a test needs that the service itself does not offer, under the
 * one reserved prefix `/_stub` (docs/architecture.md, decision 4).
 */
import Type, { type Static } from 'typebox';
import { ClockModeSchema } from './clock.schema.ts';
import { BatteryStatus } from './device-frames.schema.ts';
import { MAX_DURATION_MS, MAX_DURATION_TEXT } from './duration.ts';
import { AnalyticEvent, ISO_8601 } from './service-api.schema.ts';
import { TaskOutcome, TaskState } from './task-outcome.schema.ts';
import { TokenUserEmail, TokenUserId } from './token-api.schema.ts';

export const CONTROL_PREFIX = '/_stub';

/**
 * The header that carries the control token of a locked stub (`--control-token`). Its own
 * header, not `Authorization`: the emulated APIs use that one for their own credentials.
 */
export const CONTROL_TOKEN_HEADER = 'X-Badge-Sim-Control-Token';

/** The headers that carry a control token to a stub (none without a token). */
export function controlTokenHeaders(token: string | undefined): Record<string, string> {
  return token === undefined ? {} : { [CONTROL_TOKEN_HEADER]: token };
}

/** What a control token may hold: 1 to 1024 visible ASCII characters (a header value). */
const CONTROL_TOKEN_FORM = /^[\x21-\x7E]{1,1024}$/;

/**
 * Why a control token cannot be used, or undefined if it can. The message never repeats the
 * token: it is a secret.
 */
export function controlTokenProblem(token: string): string | undefined {
  if (token === '') return 'is empty';
  if (!CONTROL_TOKEN_FORM.test(token))
    return 'must be 1 to 1024 visible ASCII characters (letters, digits, punctuation; no spaces)';
  return undefined;
}

export const ClockView = Type.Object({
  mode: ClockModeSchema,
  scale: Type.Number(),
  now: Type.String({ description: 'ISO 8601 with microseconds.' }),
  now_ms: Type.Number(),
  pending_timers: Type.Integer(),
  next_due_at: Type.Union([Type.String(), Type.Null()]),
});
export type ClockView = Static<typeof ClockView>;

const Count = Type.Integer({ minimum: 0 });

/** What the stub keeps at most, and what it dropped past a cap before its 7 days were up. */
export const Kept = Type.Object(
  {
    events: Type.Object({
      cap_per_account: Count,
      dropped: Type.Integer({
        minimum: 0,
        description: 'Events dropped past the cap, the oldest first, before their 7 days.',
      }),
    }),
    ended_tasks: Type.Object({
      cap: Count,
      recipients_cap: Type.Integer({
        minimum: 0,
        description: 'Recipients over the ended tasks kept: a large alert counts for many.',
      }),
      kept: Count,
      dropped: Count,
    }),
    transcript_lines: Type.Object({
      cap_per_device: Type.Integer({
        minimum: 1,
        description: "A device's share of 100,000 lines over the fixtures' devices, at most 1,000.",
      }),
      dropped: Type.Integer({
        minimum: 0,
        description: 'Lines dropped, past the cap or older than 7 days.',
      }),
    }),
    invocations: Type.Object({ cap: Count, kept: Count, dropped: Count }),
  },
  { description: 'Counted since the last reset.' },
);

export const Health = Type.Object({
  status: Type.Literal('ok'),
  clock: ClockView,
  accounts: Type.Integer(),
  devices: Type.Integer(),
});

export const ClockAdvance = Type.Object(
  {
    by: Type.Optional(
      Type.Union(
        [
          Type.String({ minLength: 1, maxLength: MAX_DURATION_TEXT }),
          Type.Number({ minimum: 0, maximum: MAX_DURATION_MS }),
        ],
        {
          description:
            "A duration: '30s', '5m', '2h', '7d', '1500ms', or milliseconds as a number; whole milliseconds, at most 3650 days.",
        },
      ),
    ),
    to: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: 'An ISO 8601 instant ahead of now, at most 9999-12-31T23:59:59.999Z.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ClockAdvance = Static<typeof ClockAdvance>;

/** A badge that held the clock past the bound during an advance: the clock went on without it. */
export const ClockHeldBy = Type.Object({
  device_id: Type.String(),
  user: Type.String(),
  waited_ms: Type.Integer({ description: 'Real time the clock waited for it.' }),
  message: Type.String({
    description:
      "e.g. 'badge 2001 (Ada Mensah) did not answer within 2 s: the clock went on without it'",
  }),
});
export type ClockHeldBy = Static<typeof ClockHeldBy>;

export const ClockAdvanced = Type.Object({
  fired: Type.Integer(),
  clock: ClockView,
  held_by: Type.Array(ClockHeldBy, {
    description:
      'Badges counted unresponsive during this advance (they did not answer within the bound); empty when every badge did.',
  }),
  unresponsive: Type.Array(Type.String(), {
    description:
      'Device ids of every connected badge counted unresponsive when the advance ends: those of held_by and those still unresponsive from before (GET /_stub/devices shows responsive: false).',
  }),
});

/** Bounds of a scaled clock's speed (docs/decisions.md I-rows). */
export const CLOCK_SCALE_MIN = 0.001;
export const CLOCK_SCALE_MAX = 1_000_000;

export const ClockModeChange = Type.Object(
  {
    mode: ClockModeSchema,
    scale: Type.Optional(
      Type.Number({
        minimum: CLOCK_SCALE_MIN,
        maximum: CLOCK_SCALE_MAX,
        description: `For scaled mode: ${CLOCK_SCALE_MIN} to ${CLOCK_SCALE_MAX} times as fast as real time.`,
      }),
    ),
  },
  { additionalProperties: false },
);

export const TranscriptEntryView = Type.Object({
  at: Type.String(),
  type: Type.Union([
    Type.Literal('play'),
    Type.Literal('broadcast'),
    Type.Literal('stop'),
    Type.Literal('speak'),
  ]),
  task_id: Type.String(),
  name: Type.Optional(Type.String()),
  text: Type.Optional(Type.String()),
  repeat: Type.Optional(Type.Integer()),
  cause: Type.Optional(Type.String()),
});

/** A battery at or below this level (%), not charging, is low (docs/decisions.md DF6). */
export const LOW_BATTERY_LEVEL = 20;

export const DeviceView = Type.Object({
  device_id: Type.String(),
  user: Type.String(),
  subscriber_id: Type.String(),
  online: Type.Boolean({ description: 'A badge is connected for this device now.' }),
  state: Type.Union([Type.String(), Type.Null()], {
    description: 'Last state the badge reported.',
  }),
  responsive: Type.Boolean({
    description:
      'False while a connected badge is counted unresponsive: it held the virtual clock past the bound, which no longer waits for it.',
  }),
  unresponsive_since: Type.Union([Type.String(), Type.Null()], {
    description: 'When (the stub clock) it was counted unresponsive.',
  }),
  battery_level: Type.Union([Type.Integer({ minimum: 0, maximum: 100 }), Type.Null()], {
    description:
      "Last battery level the badge reported (hello or state), else the fixture's; null when neither.",
  }),
  battery_status: Type.Union([BatteryStatus, Type.Null()], {
    description: 'Last battery status the badge reported; null until one did.',
  }),
  battery_low: Type.Boolean({
    description: `battery_level is known and at most ${LOW_BATTERY_LEVEL} (%), and the badge is not charging.`,
  }),
});

export const TapResult = Type.Object({
  result: Type.Union([
    Type.Literal('acknowledged'),
    Type.Literal('duplicate'),
    Type.Literal('ended'),
    Type.Literal('not_playing'),
    Type.Literal('nothing_pending'),
  ]),
  task_id: Type.Optional(Type.String()),
});

export const TaskView = Type.Object({
  task_id: Type.String(),
  subscriber_id: Type.String(),
  name: Type.String(),
  notification: Type.String(),
  state: TaskState,
  outcome: TaskOutcome,
  created_at: Type.String(),
  ended_at: Type.Union([Type.String(), Type.Null()]),
  quorum: Type.Integer(),
  timeout: Type.Integer(),
  acknowledgements: Type.Integer(),
  devices: Type.Array(
    Type.Object({
      device_id: Type.String(),
      user: Type.String(),
      status: Type.String(),
      plays: Type.Integer(),
    }),
  ),
});

/** At most this many devices are generated in all (accounts × devicesPerAccount). */
export const GENERATE_MAX_DEVICES = 100_000;

export const GenerateRequest = Type.Object(
  {
    seed: Type.Integer({ minimum: -(2 ** 31), maximum: 2 ** 32 - 1 }),
    accounts: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    groupsPerAccount: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    devicesPerAccount: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000 })),
  },
  { additionalProperties: false },
);

/** The environments of the token, trigger and device interface; pro is the default. */
export const EnvironmentName = Type.Union([Type.Literal('pro'), Type.Literal('qa')]);
export type EnvironmentName = Static<typeof EnvironmentName>;
export const ENVIRONMENTS: readonly EnvironmentName[] = EnvironmentName.anyOf.map((e) => e.const);

/** Which events a cancel (DELETE) produces; the spec does not show it (docs/decisions.md). */
export const CancelEvents = Type.Union([
  Type.Literal('end-cancelled'),
  Type.Literal('end-normal'),
  Type.Literal('none'),
]);
export type CancelEvents = Static<typeof CancelEvents>;

/** One environment as `GET /_stub/environments` shows it. */
export const EnvironmentSettings = Type.Object({
  prefix: Type.String({
    description:
      "Path prefix on the stub's port: `{api_host}` and `{auth_url}` are the stub URL plus it.",
  }),
  cliClientId: Type.String(),
  sdkClientId: Type.String(),
});
export type EnvironmentSettings = Static<typeof EnvironmentSettings>;

/** `GET /_stub/environments`: every environment by name. */
export const EnvironmentsView = Type.Object({
  pro: EnvironmentSettings,
  qa: EnvironmentSettings,
});

/**
 * How long the HTTP server waits on a client, in ms (docs/decisions.md I9). A WebSocket
 * badge, once upgraded, is not subject to them.
 */
export const HttpTimeouts = Type.Object({
  headersMs: Type.Integer({ description: 'From connecting to the end of the request headers.' }),
  requestMs: Type.Integer({
    description: 'From connecting (or the start of a request) to the end of its body.',
  }),
  keepAliveMs: Type.Integer({
    description: 'How long a keep-alive connection waits for its next request.',
  }),
  stalledAnswerMs: Type.Integer({
    description:
      'How long an answer may make no progress because the client does not read it; then the connection is dropped.',
  }),
});
export type HttpTimeouts = Static<typeof HttpTimeouts>;

/**
 * Choices a team can change to match what they observe of the original service (`GET
 * /_stub/settings`). The defaults are the decisions in docs/decisions.md.
 */
export const StubSettings = Type.Object({
  authScheme: Type.String({
    description: 'Scheme word of `Authorization: <scheme> <API_KEY>` (architecture, decision 8).',
  }),
  brandWord: Type.String({ description: 'The brand word in the device path.' }),
  urnWord: Type.String({
    description: 'The word in group URNs (`urn:<word>-resource:…`); the brand word by default.',
  }),
  unknownFields: Type.Union([Type.Literal('reject'), Type.Literal('ignore')], {
    description: 'Fields the spec does not list in a body: refused with 400, or dropped.',
  }),
  cancelEvents: CancelEvents,
  bodyLimit: Type.Integer({ description: 'Largest request body accepted, in bytes (413 over).' }),
  journalLimit: Type.Integer({
    description:
      'Entries the request journal keeps (`/_stub/journal`); past it the oldest are dropped, and counted.',
  }),
  environments: EnvironmentsView,
  unknownClientIds: Type.Union([Type.Literal('refuse'), Type.Literal('accept')], {
    description:
      'A client id of no environment at a token endpoint: refused (401 `invalid_client`) or accepted.',
  }),
  badgeAnswerTimeoutMs: Type.Number({
    description: "Real time a virtual clock waits for one badge's `handled`.",
  }),
  badgeMaxQueuedBytes: Type.Number({
    description: 'Bytes queued for a badge that does not read; past it the stub closes (4008).',
  }),
  badgeMaxBadFramesPerSecond: Type.Number({
    description: "Error frames answered to one connection's bad frames a second; past it, 4009.",
  }),
  httpTimeouts: HttpTimeouts,
});
export type StubSettings = Static<typeof StubSettings>;

/** One invocation of an HTTP workflow, as `GET /_stub/workflows/invocations` shows it. */
export const WorkflowInvocation = Type.Object({
  invocation_id: Type.String(),
  environment: EnvironmentName,
  workflow_id: Type.String(),
  subscriber_id: Type.String(),
  user_id: Type.String(),
  action: Type.String(),
  action_args: Type.Optional(Type.Unknown()),
  target_device_ids: Type.Optional(Type.Array(Type.String())),
  at: Type.String(),
});
export type WorkflowInvocation = Static<typeof WorkflowInvocation>;

/** `POST /_stub/tokens/refresh`: a refresh token for a user of an account in an environment. */
export const RefreshTokenRequest = Type.Object(
  {
    subscriber_id: Type.String({ minLength: 1 }),
    environment: Type.Optional(EnvironmentName),
    user_id: Type.Optional(TokenUserId),
    email: Type.Optional(TokenUserEmail),
  },
  { additionalProperties: false },
);
export type RefreshTokenRequest = Static<typeof RefreshTokenRequest>;
export const RefreshTokenIssued = Type.Object({ refresh_token: Type.String() });
export type RefreshTokenIssued = Static<typeof RefreshTokenIssued>;

/** `POST /_stub/tokens/revoke`: the token in the body (a secret does not go in a URL). */
export const RevokeRequest = Type.Object(
  { refresh_token: Type.String({ minLength: 1 }) },
  { additionalProperties: false },
);
export const Revoked = Type.Object({ revoked: Type.Boolean() });
export type Revoked = Static<typeof Revoked>;

/** `POST /_stub/settle`: whether it had to wait for a badge. */
export const Settled = Type.Object({ waited: Type.Boolean() });
export type Settled = Static<typeof Settled>;

export const ControlDeviceParams = Type.Object({ device_id: Type.String({ minLength: 1 }) });
export const TaskParams = Type.Object({ task_id: Type.String() });
export const TasksQuery = Type.Object({ subscriber_id: Type.Optional(Type.String()) });

/** How long `GET /_stub/events/await` waits in real time by default, and at most (AW3). */
export const AWAIT_TIMEOUT_DEFAULT_MS = 5_000;
export const AWAIT_TIMEOUT_MAX_MS = 60_000;
/** How far `advance=true` moves the clock by default (AW5). */
export const AWAIT_ADVANCE_MAX_DEFAULT_MS = 3_600_000;

export const EventAwaitQuery = Type.Object({
  type: Type.Optional(
    Type.Union(
      [
        Type.Literal('start'),
        Type.Literal('acknowledged'),
        Type.Literal('timed_out'),
        Type.Literal('end'),
      ],
      { description: 'The event type (`content.type`).' },
    ),
  ),
  task: Type.Optional(
    Type.String({ description: 'A task id (`task.id`); an unknown one is 404.' }),
  ),
  device: Type.Optional(
    Type.String({
      description:
        'The acknowledging badge (`content.device`): its user, or its device id. Only `acknowledged` events name one.',
    }),
  ),
  subscriber_id: Type.Optional(
    Type.String({
      description: 'The account of the event; an unknown one is 404. Default: every account.',
    }),
  ),
  oldest: Type.Optional(
    Type.String({
      pattern: ISO_8601,
      description:
        'The oldest event that answers (as in GET events). Default: every retained event, so an event recorded before the wait answers at once.',
    }),
  ),
  timeout: Type.Optional(
    Type.String({
      maxLength: MAX_DURATION_TEXT,
      description: `How long to wait in real time ('200ms', '5s'): at most ${AWAIT_TIMEOUT_MAX_MS / 1000}s; default ${AWAIT_TIMEOUT_DEFAULT_MS / 1000}s. Then 408.`,
    }),
  ),
  advance: Type.Optional(
    Type.Union([Type.Literal('true'), Type.Literal('false')], {
      description:
        'true: when no event matches yet, advance the clock (as POST /_stub/clock/advance) timer by timer up to the first matching event.',
    }),
  ),
  advance_max: Type.Optional(
    Type.String({
      maxLength: MAX_DURATION_TEXT,
      description: `With advance=true: how far the clock may move ('1h'; default ${AWAIT_ADVANCE_MAX_DEFAULT_MS / 3_600_000}h). An event at that very instant answers; none by then is 408.`,
    }),
  ),
});
export type EventAwaitQuery = Static<typeof EventAwaitQuery>;

export const AwaitedEvent = Type.Object({
  event: AnalyticEvent,
  subscriber_id: Type.String({ description: 'The account the event belongs to.' }),
  now: Type.String({ description: "The clock's now when answered." }),
  now_ms: Type.Number(),
});
export type AwaitedEvent = Static<typeof AwaitedEvent>;

/** What a device is as `GET /_stub/devices` shows it, and so what a wait for it can ask. */
export const DeviceFacts = Type.Pick(DeviceView, [
  'online',
  'battery_level',
  'battery_status',
  'battery_low',
]);
export type DeviceFacts = Static<typeof DeviceFacts>;

/** The fields of `DeviceFacts` a wait can ask for, in the order a message names them. */
export const DEVICE_WANT_FIELDS = [
  'online',
  'battery_level',
  'battery_status',
  'battery_low',
] as const;

/** A wait's conditions on a device: every field given, as the device shows it (HO5). */
export type DeviceWant = { [K in keyof DeviceFacts]?: NonNullable<DeviceFacts[K]> };

const TrueOrFalse = (description: string) =>
  Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')], { description }));

export const DeviceAwaitQuery = Type.Object({
  online: TrueOrFalse(
    'Wait until the device is connected (true: its hello accepted) or not (false: its connection closed, as the stub sees it). At least one of online, battery_level, battery_status and battery_low is required.',
  ),
  battery_level: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 100,
      description:
        "Wait until the device's battery level (%) is this: its last report (hello or state frame), else the fixture's. Plain decimal digits.",
    }),
  ),
  battery_status: Type.Optional(
    Type.Union([...BatteryStatus.anyOf], {
      description: "Wait until the device's last reported battery status is this.",
    }),
  ),
  battery_low: TrueOrFalse(
    `Wait until the battery is low (true: a known level at most ${LOW_BATTERY_LEVEL} %, not charging) or not (false).`,
  ),
  timeout: Type.Optional(
    Type.String({
      maxLength: MAX_DURATION_TEXT,
      description: `How long to wait in real time ('200ms', '5s'): at most ${AWAIT_TIMEOUT_MAX_MS / 1000}s; default ${AWAIT_TIMEOUT_DEFAULT_MS / 1000}s; 0 only looks. Then 408.`,
    }),
  ),
});
export type DeviceAwaitQuery = Static<typeof DeviceAwaitQuery>;

export const DeviceAwaited = Type.Object({
  device_id: Type.String(),
  ...DeviceFacts.properties,
  now: Type.String({ description: "The clock's now when answered." }),
  now_ms: Type.Number(),
});
export type DeviceAwaited = Static<typeof DeviceAwaited>;

// The control API's answers as types, by the schemas' names: what `StubControlClient` returns,
// so a user of the package can name them (they are in its public types).
export type Health = Static<typeof Health>;
export type StubKept = Static<typeof Kept>;
export type ClockAdvanced = Static<typeof ClockAdvanced>;
export type TranscriptEntryView = Static<typeof TranscriptEntryView>;
export type DeviceView = Static<typeof DeviceView>;
export type TapResult = Static<typeof TapResult>;
export type TaskView = Static<typeof TaskView>;
export type GenerateRequest = Static<typeof GenerateRequest>;
