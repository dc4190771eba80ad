/**
 * The control API's devices (`/_stub/devices`, `/_stub/settle`): each device as the stub sees
 * it, its transcript, a tap, settling, and a wait for a device to be as asked.
 */
import Type, { type Static } from 'typebox';
import { BatteryStatus } from '../device-frames.schema.ts';
import { MAX_DURATION_TEXT } from '../duration.ts';
import { AWAIT_TIMEOUT_DEFAULT_MS, AWAIT_TIMEOUT_MAX_MS } from './events.schema.ts';

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
/** `POST /_stub/settle`: whether it had to wait for a badge. */
export const Settled = Type.Object({ waited: Type.Boolean() });
export type Settled = Static<typeof Settled>;

export const ControlDeviceParams = Type.Object({ device_id: Type.String({ minLength: 1 }) });

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

export type TranscriptEntryView = Static<typeof TranscriptEntryView>;
export type DeviceView = Static<typeof DeviceView>;
export type TapResult = Static<typeof TapResult>;
