/**
 * The live stream of a stub (`GET /_stub/stream`, server-sent events): what the dashboard at
 * `/_stub/ui/` draws. A `snapshot` first (and again after a reset or a fixture load), then
 * `update`s with what changed, coalesced. Bounds are constants here (decisions UI1–UI4).
 */
import Type, { type Static } from 'typebox';
import { ClockView, TaskView } from './control-api.schema.ts';
import { BadgeStateName, BatteryStatus, Location } from './device-frames.schema.ts';
import { AnalyticEvent } from './service-api.schema.ts';

/** Real ms between two messages to one client: changes in between are merged (UI2). */
export const STREAM_FLUSH_MS = 100;
/** Events a snapshot carries: the newest, across accounts (UI1). */
export const STREAM_RECENT_EVENTS = 200;
/** Events one client may have waiting; past it the oldest are dropped and counted (UI2). */
export const STREAM_PENDING_EVENTS_MAX = 500;
/** Bytes the socket of one client may hold unread; past it nothing more is written (UI2). */
export const STREAM_MAX_BUFFERED_BYTES = 1024 * 1024;
/** Tasks a message carries: every alerting one first, then the newest ended (UI1). */
export const STREAM_TASKS_MAX = 50;
/** Streams open at once; one more is refused with 429 (UI2). */
export const STREAM_CLIENTS_MAX = 64;
/**
 * Plays, broadcasts and speech the stub keeps for the stream, across devices: a snapshot
 * carries them (history across a reload) and an update every one since the last (the repeats
 * inside a clock jump), UI12.
 */
export const STREAM_RECENT_HEARD = 500;
/**
 * Badges going offline and coming back that the stub keeps for the stream, across devices: a
 * snapshot carries them (each badge's offline spans across a reload), an update every one
 * since the last, UI17.
 */
export const STREAM_RECENT_PRESENCE = 500;

/** What a device hears or says now, as the stub last told it (cleared by its stop). */
export const LiveHeard = Type.Object({
  kind: Type.Union([Type.Literal('play'), Type.Literal('broadcast'), Type.Literal('speak')]),
  text: Type.String(),
  task_id: Type.String(),
  at: Type.String({ description: 'When the stub sent it (its clock).' }),
});
export type LiveHeard = Static<typeof LiveHeard>;

/** One play, broadcast or speech the stub sent a device (UI12). */
export const LiveHeardLine = Type.Object({
  device_id: Type.String(),
  ...LiveHeard.properties,
});
export type LiveHeardLine = Static<typeof LiveHeardLine>;

/** A badge going offline (its connection closed) or coming back (it said hello), UI17. */
export const LivePresenceLine = Type.Object({
  device_id: Type.String(),
  online: Type.Boolean({ description: 'true: it came online; false: it went offline.' }),
  at: Type.String({ description: 'When (the stub’s clock).' }),
});
export type LivePresenceLine = Static<typeof LivePresenceLine>;

export const LiveDevice = Type.Object({
  device_id: Type.String(),
  user: Type.String(),
  subscriber_id: Type.String(),
  groups: Type.Array(Type.String(), { description: 'Names of the groups it is in.' }),
  online: Type.Boolean(),
  state: Type.Union([BadgeStateName, Type.Null()], {
    description: 'The badge machine state it last reported; null until it connected.',
  }),
  responsive: Type.Boolean(),
  battery_level: Type.Union([Type.Integer(), Type.Null()]),
  battery_status: Type.Union([BatteryStatus, Type.Null()]),
  location: Type.Union([Location, Type.Null()]),
  heard: Type.Union([LiveHeard, Type.Null()]),
  run_by_stub: Type.Boolean({
    description: 'A badge the stub runs itself (`--badges`): it can be taken offline and back.',
  }),
});
export type LiveDevice = Static<typeof LiveDevice>;

export const LiveTask = Type.Object({
  ...TaskView.properties,
  timeout_at: Type.String({ description: 'created_at + timeout: when it times out.' }),
});
export type LiveTask = Static<typeof LiveTask>;

export const LiveEvent = Type.Object({ subscriber_id: Type.String(), event: AnalyticEvent });
export type LiveEvent = Static<typeof LiveEvent>;

const LiveAccount = Type.Object({
  subscriber_id: Type.String(),
  name: Type.Union([Type.String(), Type.Null()]),
  groups: Type.Array(Type.String()),
});

export const LiveSnapshot = Type.Object({
  clock: ClockView,
  accounts: Type.Array(LiveAccount),
  devices: Type.Array(LiveDevice),
  tasks: Type.Array(LiveTask),
  events: Type.Array(LiveEvent, {
    description: `The newest ${STREAM_RECENT_EVENTS}, oldest first.`,
  }),
  heard: Type.Array(LiveHeardLine, {
    description: `The newest ${STREAM_RECENT_HEARD} plays, broadcasts and speech, across devices, oldest first.`,
  }),
  heard_dropped: Type.Integer({
    description: `Plays, broadcasts and speech since the last reset that are no longer kept: older than the newest ${STREAM_RECENT_HEARD}.`,
  }),
  presence: Type.Array(LivePresenceLine, {
    description: `The newest ${STREAM_RECENT_PRESENCE} times a badge went offline or came online, across devices, oldest first.`,
  }),
  presence_dropped: Type.Integer({
    description: `Times a badge went offline or came online since the last reset that are no longer kept: older than the newest ${STREAM_RECENT_PRESENCE}.`,
  }),
});
export type LiveSnapshot = Static<typeof LiveSnapshot>;

export const LiveUpdate = Type.Object({
  clock: ClockView,
  devices: Type.Array(LiveDevice, { description: 'The devices that changed, as they are now.' }),
  tasks: Type.Optional(
    Type.Array(LiveTask, {
      description: 'When any task changed: the whole list, as in a snapshot.',
    }),
  ),
  events: Type.Array(LiveEvent, { description: 'New events, oldest first.' }),
  events_dropped: Type.Integer({
    description: `Events this client missed since the last message: it read too slowly and more than ${STREAM_PENDING_EVENTS_MAX} were waiting.`,
  }),
  heard: Type.Array(LiveHeardLine, {
    description: 'Every play, broadcast and speech sent since the last message, oldest first.',
  }),
  heard_dropped: Type.Integer({
    description: `Plays, broadcasts and speech this client missed: more than ${STREAM_RECENT_HEARD} since its last message.`,
  }),
  presence: Type.Array(LivePresenceLine, {
    description:
      'Every time a badge went offline or came online since the last message, oldest first.',
  }),
  presence_dropped: Type.Integer({
    description: `Times a badge went offline or came online that this client missed: more than ${STREAM_RECENT_PRESENCE} since its last message.`,
  }),
});
export type LiveUpdate = Static<typeof LiveUpdate>;

export const StreamQuery = Type.Object({
  once: Type.Optional(
    Type.Union([Type.Literal('true'), Type.Literal('false')], {
      description: 'true: send the snapshot and end the stream (a look, for scripts).',
    }),
  ),
});

/** The answer as OpenAPI shows it: an event stream whose `data:` lines are these JSON bodies. */
export const StreamMessages = Type.Union([LiveSnapshot, LiveUpdate]);
export const STREAM_DESCRIPTION =
  'text/event-stream: `event: snapshot` (data: LiveSnapshot) first and after each reset, then `event: update` (data: LiveUpdate) as things change, at most one a client every ' +
  `${STREAM_FLUSH_MS} ms.`;

export const DeviceSwitched = Type.Object({
  device_id: Type.String(),
  online: Type.Boolean({ description: 'What the badge was told: go offline (false) or back.' }),
});
export type DeviceSwitched = Static<typeof DeviceSwitched>;
