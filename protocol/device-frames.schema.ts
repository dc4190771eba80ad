/**
 * The device protocol between the stub and a virtual badge, over one WebSocket per badge.
 * Declared once (docs/architecture.md, decision 1): the gateway validates what badges send with these
 * schemas, and the simulator validates what the stub sends. docs/device-protocol.md explains
 * the exchange.
 *
 * Every frame carries `seq`, numbered by its sender. The receiver answers each frame with
 * `{type: "handled", seq}` once it has processed it and sent whatever it caused. That is how
 * the virtual clock knows the wire is quiet before it fires the next timer.
 */
import Type, { type Static } from 'typebox';
import { ClockModeSchema } from './clock.schema.ts';

/** The version of this protocol; a badge states it in `hello`. */
export const DEVICE_PROTOCOL_VERSION = 1;
/** Where badges connect on the stub's port (under the reserved control prefix). */
export const DEVICE_WS_PATH = '/_stub/devices/connect';

/**
 * The latest instant a frame may name: 9999-12-31T23:59:59.999Z, the last one an ISO 8601
 * timestamp with a four-digit year (formatTimestamp) can show. JSON numbers reach 1e308 and
 * beyond (1e999 parses as Infinity): every number a badge sends is bounded here.
 */
export const MAX_INSTANT = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

const Seq = Type.Integer({
  minimum: 0,
  maximum: Number.MAX_SAFE_INTEGER,
  description: 'Sender-numbered sequence of the frame: a non-negative safe integer.',
});
const TaskId = Type.String({ minLength: 1 });
/**
 * An instant in a frame: a whole number of ms since the epoch (the stub rounds its clock down
 * when it tells a badge the time). Whole ms keep a wake from naming an instant a hair past the
 * last one told, over and over (docs/decisions.md W8).
 */
const Instant = (description: string) => Type.Integer({ description });
/** The stub's clock when it sent the frame: a badge on a clock of its own catches up first. */
const At = Instant("The stub's clock at sending, whole ms since the epoch.");

export const Location = Type.Object(
  {
    lat: Type.Number({ minimum: -90, maximum: 90 }),
    long: Type.Number({ minimum: -180, maximum: 180 }),
    accuracy: Type.Optional(
      Type.Number({ minimum: 0, maximum: 20_000_000, description: 'Metres (at most 20,000 km).' }),
    ),
    address: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
export type Location = Static<typeof Location>;

export const BatteryStatus = Type.Union([
  Type.Literal('charging'),
  Type.Literal('discharging'),
  Type.Literal('full'),
]);
export type BatteryStatus = Static<typeof BatteryStatus>;

/** What a connected badge is doing: the states it reports in `state` frames. */
export const BadgeStateName = Type.Union([
  Type.Literal('idle'),
  Type.Literal('playing'),
  Type.Literal('awaiting-ack'),
  Type.Literal('speaking'),
  Type.Literal('broadcasting'),
]);
export type BadgeStateName = Static<typeof BadgeStateName>;

/** A virtual badge's status: not connected, on its way, or one of the states it reports. */
export const BadgeStatus = Type.Union([
  Type.Literal('offline'),
  Type.Literal('connecting'),
  ...BadgeStateName.anyOf,
]);
export type BadgeStatus = Static<typeof BadgeStatus>;

/** A frame before its sender numbers it (each side numbers what it sends). */
export type Unnumbered<F> = F extends { seq: number } ? Omit<F, 'seq'> : never;

// ---- badge → stub -------------------------------------------------------------------------

export const HelloFrame = Type.Object(
  {
    type: Type.Literal('hello'),
    seq: Seq,
    protocol: Type.Integer({
      minimum: 1,
      maximum: Number.MAX_SAFE_INTEGER,
      description: `Protocol version; this stub speaks ${DEVICE_PROTOCOL_VERSION}.`,
    }),
    device_id: Type.String({ minLength: 1 }),
    key: Type.Optional(Type.String({ description: 'The device key of the fixtures.' })),
    battery_level: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
    battery_status: Type.Optional(BatteryStatus),
    location: Type.Optional(Location),
    app_version: Type.Optional(Type.String()),
    session: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9_-]{1,64}$',
        description:
          'The fleet this badge belongs to: a device online in one session is refused to another (device_claimed); the same session takes its old connection over.',
      }),
    ),
    resumes: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: Number.MAX_SAFE_INTEGER,
        description:
          'A badge restored from a world snapshot taken at this instant (ms since the epoch): when the stub was restored from that instant and its clock has not moved since, the alerts the badge is playing are not played again; it carries on with them. Otherwise the hello is any reconnect.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ButtonFrame = Type.Object(
  {
    type: Type.Literal('button'),
    seq: Seq,
    taps: Type.Union([
      Type.Literal('single'),
      Type.Literal('double'),
      Type.Literal('triple'),
      Type.Literal('long'),
    ]),
    task_id: Type.Optional(TaskId),
  },
  { additionalProperties: false },
);

export const StateFrame = Type.Object(
  {
    type: Type.Literal('state'),
    seq: Seq,
    state: BadgeStateName,
    battery_level: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
    battery_status: Type.Optional(BatteryStatus),
    location: Type.Optional(Location),
  },
  { additionalProperties: false },
);

/**
 * "My clock has a timer due at `at`: send me a `clock` frame then." A badge process whose
 * clock follows the stub's (another process) asks this, so its timers fire at the right
 * instant of a virtual-clock jump. A new wake replaces the connection's previous one.
 */
export const WakeFrame = Type.Object(
  {
    type: Type.Literal('wake'),
    seq: Seq,
    at: Type.Integer({
      minimum: 0,
      maximum: MAX_INSTANT,
      description:
        'Whole ms since the epoch, up to MAX_INSTANT (9999-12-31T23:59:59.999Z). An instant already past wakes at once; one at or before the last instant the stub told this connection (welcome `now`, a `clock` frame) is answered and sends nothing.',
    }),
  },
  { additionalProperties: false },
);
export type WakeFrame = Static<typeof WakeFrame>;

export const HandledFrame = Type.Object(
  { type: Type.Literal('handled'), seq: Seq },
  { additionalProperties: false },
);

export const BadgeFrame = Type.Union([
  HelloFrame,
  ButtonFrame,
  StateFrame,
  WakeFrame,
  HandledFrame,
]);
export type BadgeFrame = Static<typeof BadgeFrame>;
export type HelloFrame = Static<typeof HelloFrame>;
export type ButtonFrame = Static<typeof ButtonFrame>;
export type StateFrame = Static<typeof StateFrame>;
/** What a badge sends besides `handled` (which answers, and is written as it is). */
export type OutgoingBadgeFrame = Unnumbered<Exclude<BadgeFrame, { type: 'handled' }>>;

// ---- stub → badge -------------------------------------------------------------------------

export const WelcomeFrame = Type.Object({
  type: Type.Literal('welcome'),
  seq: Seq,
  protocol: Type.Integer(),
  device_id: Type.String(),
  user: Type.String(),
  now: Instant("The stub's clock, whole ms since the epoch."),
  mode: ClockModeSchema,
  scale: Type.Number(),
});

export const PlayFrame = Type.Object({
  type: Type.Literal('play'),
  seq: Seq,
  at: At,
  task_id: TaskId,
  name: Type.String(),
  text: Type.String(),
  repeat: Type.Integer({ minimum: 0, description: '0 for the first play, then 1, 2, …' }),
});

export const BroadcastFrame = Type.Object({
  type: Type.Literal('broadcast'),
  seq: Seq,
  at: At,
  task_id: TaskId,
  text: Type.String(),
});

export const StopFrame = Type.Object({
  type: Type.Literal('stop'),
  seq: Seq,
  at: At,
  task_id: TaskId,
  cause: Type.Union([
    Type.Literal('acknowledged'),
    Type.Literal('quorum'),
    Type.Literal('timed_out'),
    Type.Literal('cancelled'),
  ]),
});

export const SpeakFrame = Type.Object({
  type: Type.Literal('speak'),
  seq: Seq,
  at: At,
  task_id: TaskId,
  text: Type.String(),
  cause: Type.Union([
    Type.Literal('on_ack'),
    Type.Literal('on_quorum'),
    Type.Literal('on_timeout'),
    Type.Literal('workflow'),
  ]),
});

/** The stub's clock: sent for a `wake`, and to every badge after the clock jumps or switches. */
export const ClockFrame = Type.Object({
  type: Type.Literal('clock'),
  seq: Seq,
  now: Instant("The stub's clock, whole ms since the epoch."),
  mode: ClockModeSchema,
  scale: Type.Number(),
});

export const ErrorFrame = Type.Object({
  type: Type.Literal('error'),
  seq: Seq,
  code: Type.String(),
  message: Type.String(),
  field: Type.Optional(Type.String()),
  in_reply_to: Type.Optional(Seq),
});

export const StubFrame = Type.Union([
  WelcomeFrame,
  PlayFrame,
  BroadcastFrame,
  StopFrame,
  SpeakFrame,
  ClockFrame,
  ErrorFrame,
  HandledFrame,
]);
export type StubFrame = Static<typeof StubFrame>;
export type PlayFrame = Static<typeof PlayFrame>;
export type ErrorFrame = Static<typeof ErrorFrame>;
/** What the stub sends, before its connection numbers it. */
export type OutgoingStubFrame = Unnumbered<StubFrame>;

/** WebSocket close codes of the protocol (4000–4999 are the application's). */
export const CLOSE_CODES = {
  /** The hello was refused (unknown device, wrong key, wrong protocol version). */
  refused: 4001,
  /** No hello arrived in time. */
  helloTimeout: 4002,
  /** The same device connected again; the older connection is closed. */
  replaced: 4003,
  /** The badge does not read what it is sent: more than the cap (1 MiB) waited for it. */
  tooSlow: 4008,
  /** The badge sent more bad frames a second than the stub answers (20). */
  tooManyBadFrames: 4009,
  /**
   * The device is online in another fleet's session (`device_claimed`, decision D13): the
   * badge may try again shortly (that fleet may be leaving), then gives up.
   */
  claimed: 4010,
  /** The stub is stopping. */
  shutdown: 1001,
} as const;
