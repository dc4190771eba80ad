/**
 * One virtual badge as an xstate machine. Pure: it imports no ws and reads no clock. What it
 * does to the world goes through the named actions (`openConnection`, `closeConnection`,
 * `reportState`, `sendButton`, `startClip`, `stopClipTimer`) onto the `io` of its input. Its
 * only delay, a clip's duration, comes from the text-to-speech engine through the events and
 * runs on the io's timer (the badge's clock), not on xstate's delayed events, whose scheduler
 * was the largest single cost of a play at 10,000 badges. Tests give it a fake `io` on a
 * virtual clock.
 *
 *   offline ──CONNECT──▶ connecting ──CONNECTED──▶ online
 *      ▲                     │                       │
 *      └──────DISCONNECTED───┴───────GO_OFFLINE──────┘
 *
 *   online: idle · playing (an alert) · awaiting-ack · speaking (on_ack/on_quorum/on_timeout)
 *           · broadcasting; `route` picks the next one from the audio queue and open alerts.
 */
import { assign, emit, setup } from 'xstate';
import type { BadgeStateName, BadgeStatus } from '../protocol/device-frames.schema.ts';
import type {
  BadgeContext,
  BadgeEmitted,
  BadgeEvent,
  BadgeInput,
  Clip,
  OpenAlert,
  StateReport,
} from './badge-machine-types.ts';

export type {
  BadgeContext,
  BadgeEmitted,
  BadgeEvent,
  BadgeInput,
  BadgeIo,
  Clip,
  OpenAlert,
  StateReport,
} from './badge-machine-types.ts';

/**
 * The alert a tap acknowledges, by the badge's tap rule. An alert that has arrived but not yet
 * played (queued behind speech) has not been heard: never it.
 */
function tapTarget(context: BadgeContext, wanted?: string): string | undefined {
  if (wanted) return context.open.some((a) => a.taskId === wanted) ? wanted : undefined;
  const open = new Set(context.open.map((a) => a.taskId));
  const isOpen = (taskId: string) => open.has(taskId);
  switch (context.tapRule) {
    case 'oldest':
      return context.firstHeard.find(isOpen);
    case 'newest':
      return context.firstHeard.findLast(isOpen);
    default:
      if (context.current?.kind === 'alert') return context.current.taskId;
      return context.heard.findLast(isOpen);
  }
}

/**
 * The report of a state alone, one frozen object a state for every badge of the process: a
 * badge's link serialises a frame that cannot change once (`protocol/numbered-frame.ts`), so a
 * fan-out's 10,000 `playing` reports cost one JSON.stringify, not 10,000.
 */
const stateReports = new Map<BadgeStateName, StateReport>();

function stateReport(state: BadgeStateName): StateReport {
  let report = stateReports.get(state);
  if (report === undefined) {
    report = Object.freeze({ type: 'state', state } as const);
    stateReports.set(state, report);
  }
  return report;
}

/** Entry actions that tell the stub and the listeners which state the badge is in now. */
function announce<S extends BadgeStateName>(state: S) {
  return [
    { type: 'reportState', params: { state } },
    { type: 'emitState', params: { state } },
  ] as const;
}

/**
 * A state that plays a clip for its duration, then routes on. The transition into it has
 * made the clip `current` (`takeClip` from the queue, or `takeArrival`).
 */
function clipState<S extends 'playing' | 'speaking' | 'broadcasting'>(state: S) {
  return {
    entry: ['emitClipStarted', ...announce(state), 'startClip'],
    // Whatever ends the state (a STOP, going offline) ends the clip: its timer goes too.
    exit: 'stopClipTimer',
    on: { CLIP_ENDED: { target: 'route', actions: 'finishClip' } },
  } as const;
}

/** The one event a clip timer sends: one object for every badge, not one per play. */
const CLIP_ENDED: BadgeEvent = { type: 'CLIP_ENDED' };

/**
 * PLAY, BROADCAST and SPEAK where nothing is queued (idle, awaiting-ack): what arrives is the
 * next clip, so they go straight to its state with it (`takeArrival`, one assign), instead of
 * queueing it, passing through `route` and taking it from the queue.
 */
const START_AT_ONCE = {
  PLAY: { target: 'playing', actions: 'takeArrival' },
  BROADCAST: { target: 'broadcasting', actions: 'takeArrival' },
  SPEAK: { target: 'speaking', actions: 'takeArrival' },
} as const;

type ClipEvent = Extract<BadgeEvent, { type: 'PLAY' | 'BROADCAST' | 'SPEAK' }>;

/** The clip an arriving PLAY, BROADCAST or SPEAK plays. */
function clipOf(event: ClipEvent): Clip {
  switch (event.type) {
    case 'PLAY': {
      const { taskId, text, repeat, durationMs } = event;
      return { kind: 'alert', taskId, text, repeat, durationMs };
    }
    case 'BROADCAST': {
      const { taskId, text, durationMs } = event;
      return { kind: 'broadcast', taskId, text, durationMs };
    }
    case 'SPEAK': {
      const { taskId, text, cause, durationMs } = event;
      return { kind: 'speech', taskId, text, cause, durationMs };
    }
  }
}

/** The open alerts once a PLAY has arrived: it is open, once, and newest. */
function openWith(open: OpenAlert[], play: Extract<BadgeEvent, { type: 'PLAY' }>): OpenAlert[] {
  const others = open.filter((a) => a.taskId !== play.taskId);
  return [...others, { taskId: play.taskId, name: play.name, text: play.text }];
}

/**
 * The alerts heard, once `clip` starts: an alert moves to the end of `heard` (heard last) and
 * joins the end of `firstHeard` if it is not there yet.
 */
function heardWith(
  context: Pick<BadgeContext, 'heard' | 'firstHeard'>,
  clip: Clip,
): Pick<BadgeContext, 'heard' | 'firstHeard'> {
  if (clip.kind !== 'alert') return { heard: context.heard, firstHeard: context.firstHeard };
  return {
    heard: [...context.heard.filter((id) => id !== clip.taskId), clip.taskId],
    firstHeard: context.firstHeard.includes(clip.taskId)
      ? context.firstHeard
      : [...context.firstHeard, clip.taskId],
  };
}

function isClipEvent(event: BadgeEvent): event is ClipEvent {
  return event.type === 'PLAY' || event.type === 'BROADCAST' || event.type === 'SPEAK';
}

export const badgeMachine = setup({
  types: {
    context: {} as BadgeContext,
    events: {} as BadgeEvent,
    input: {} as BadgeInput,
    emitted: {} as BadgeEmitted,
  },
  actions: {
    openConnection: ({ context }) => context.io.open(),
    closeConnection: ({ context }) => context.io.close(),
    reportState: ({ context }, params: { state: BadgeStateName }) =>
      context.io.send(stateReport(params.state)),
    reportTelemetry: ({ context, self }) => {
      const value = self.getSnapshot().value;
      const inner = typeof value === 'object' && 'online' in value ? String(value.online) : 'idle';
      context.io.send({
        type: 'state',
        state: (inner === 'route' ? 'idle' : inner) as BadgeStateName,
        battery_level: context.batteryLevel,
        battery_status: context.batteryStatus,
        ...(context.location ? { location: context.location } : {}),
      });
    },
    sendButton: ({ context }, params: { taskId: string }) =>
      context.io.send({ type: 'button', task_id: params.taskId }),
    /** The clip is said (by an engine that speaks) and its timer starts: one action a play. */
    startClip: ({ context, self }) => {
      const clip = context.current;
      if (clip) context.io.speakAloud(clip.text);
      // No clip (the guards make it impossible) still routes on, at once.
      context.io.startClipTimer(clip?.durationMs ?? 0, () => self.send(CLIP_ENDED));
    },
    stopClipTimer: ({ context }) => context.io.stopClipTimer(),
    enqueue: assign(({ context, event }) => {
      if (!isClipEvent(event)) return {};
      const queue = [...context.queue, clipOf(event)];
      return event.type === 'PLAY' ? { queue, open: openWith(context.open, event) } : { queue };
    }),
    /** With nothing queued, what arrives plays at once: enqueue and takeClip in one. */
    takeArrival: assign(({ context, event }) => {
      if (!isClipEvent(event)) return {};
      const current = clipOf(event);
      const heard = heardWith(context, current);
      if (event.type !== 'PLAY') return { current, ...heard };
      return { current, ...heard, open: openWith(context.open, event) };
    }),
    /** The stub stopped an alert: forget it and its queued plays (speech stays). */
    forget: assign({
      open: ({ context, event }) =>
        event.type === 'STOP'
          ? context.open.filter((a) => a.taskId !== event.taskId)
          : context.open,
      heard: ({ context, event }) =>
        event.type === 'STOP' ? context.heard.filter((id) => id !== event.taskId) : context.heard,
      firstHeard: ({ context, event }) =>
        event.type === 'STOP'
          ? context.firstHeard.filter((id) => id !== event.taskId)
          : context.firstHeard,
      queue: ({ context, event }) =>
        event.type === 'STOP'
          ? context.queue.filter((c) => !(c.kind === 'alert' && c.taskId === event.taskId))
          : context.queue,
    }),
    takeClip: assign(({ context }) => {
      const next = context.queue[0];
      if (!next) return { current: null };
      return {
        current: next,
        queue: context.queue.slice(1),
        ...heardWith(context, next),
      };
    }),
    emitClipStarted: emit(({ context }) => ({
      type: 'clipStarted' as const,
      clip: context.current!,
    })),
    emitClipCut: emit(({ context }) => ({ type: 'clipCut' as const, clip: context.current! })),
    finishClip: assign({ current: null }),
    clearAudio: assign({ current: null, queue: [], open: [], heard: [], firstHeard: [] }),
    setTapRule: assign({
      tapRule: ({ context, event }) => (event.type === 'TAP_RULE' ? event.rule : context.tapRule),
    }),
    emitState: emit((_, params: { state: BadgeStatus }) => ({
      type: 'stateChanged' as const,
      state: params.state,
    })),
    setBattery: assign({
      batteryLevel: ({ context, event }) =>
        event.type === 'BATTERY' ? event.level : context.batteryLevel,
      batteryStatus: ({ context, event }) =>
        event.type === 'BATTERY' && event.status ? event.status : context.batteryStatus,
    }),
    setLocation: assign({
      location: ({ context, event }) =>
        event.type === 'LOCATION' ? event.location : context.location,
    }),
    setUser: assign({
      user: ({ context, event }) => (event.type === 'CONNECTED' ? event.user : context.user),
    }),
  },
  guards: {
    hasAudio: ({ context }) => context.queue.length > 0,
    nextIsAlert: ({ context }) => context.queue[0]?.kind === 'alert',
    nextIsBroadcast: ({ context }) => context.queue[0]?.kind === 'broadcast',
    hasOpenAlerts: ({ context }) => context.open.length > 0,
    stopsCurrent: ({ context, event }) =>
      event.type === 'STOP' &&
      context.current?.kind === 'alert' &&
      context.current.taskId === event.taskId,
    canAcknowledge: ({ context, event }) =>
      event.type === 'TAP' && tapTarget(context, event.taskId) !== undefined,
  },
}).createMachine({
  id: 'badge',
  context: ({ input }) => ({
    deviceId: input.deviceId,
    user: null,
    io: input.io,
    open: [],
    heard: [],
    firstHeard: [],
    tapRule: 'sounding',
    queue: [],
    current: null,
    batteryLevel: input.batteryLevel ?? 100,
    batteryStatus: 'discharging',
    location: input.location ?? null,
  }),
  initial: 'offline',
  on: {
    BATTERY: { actions: 'setBattery' },
    TAP_RULE: { actions: 'setTapRule' },
    LOCATION: { actions: 'setLocation' },
  },
  states: {
    offline: {
      entry: { type: 'emitState', params: { state: 'offline' } },
      on: { CONNECT: 'connecting' },
    },
    connecting: {
      entry: [{ type: 'emitState', params: { state: 'connecting' } }, 'openConnection'],
      on: {
        CONNECTED: { target: 'online', actions: 'setUser' },
        DISCONNECTED: 'offline',
        GO_OFFLINE: { target: 'offline', actions: 'closeConnection' },
      },
    },
    online: {
      initial: 'route',
      // A badge off the network hears nothing more; the stub resumes open alerts on return.
      exit: 'clearAudio',
      on: {
        DISCONNECTED: 'offline',
        GO_OFFLINE: { target: 'offline', actions: 'closeConnection' },
        // Online, a change of battery or place is reported to the stub at once.
        BATTERY: { actions: ['setBattery', 'reportTelemetry'] },
        LOCATION: { actions: ['setLocation', 'reportTelemetry'] },
        PLAY: { actions: 'enqueue' },
        BROADCAST: { actions: 'enqueue' },
        SPEAK: { actions: 'enqueue' },
        STOP: [
          {
            guard: 'stopsCurrent',
            target: '.route',
            actions: ['emitClipCut', 'finishClip', 'forget'],
          },
          { actions: 'forget' },
        ],
        TAP: {
          guard: 'canAcknowledge',
          actions: [
            {
              type: 'sendButton',
              params: ({ context, event }) => ({ taskId: tapTarget(context, event.taskId)! }),
            },
            emit(({ context, event }) => ({
              type: 'tapped' as const,
              taskId: tapTarget(context, event.taskId) ?? null,
            })),
          ],
        },
      },
      states: {
        route: {
          always: [
            { guard: 'nextIsAlert', target: 'playing', actions: 'takeClip' },
            { guard: 'nextIsBroadcast', target: 'broadcasting', actions: 'takeClip' },
            { guard: 'hasAudio', target: 'speaking', actions: 'takeClip' },
            { guard: 'hasOpenAlerts', target: 'awaiting-ack' },
            { target: 'idle' },
          ],
        },
        // Only `route` leads here, and only with nothing queued: see START_AT_ONCE.
        idle: {
          entry: [...announce('idle')],
          on: START_AT_ONCE,
        },
        'awaiting-ack': {
          entry: [...announce('awaiting-ack')],
          on: { ...START_AT_ONCE, STOP: { target: 'route', actions: 'forget' } },
        },
        playing: clipState('playing'),
        speaking: clipState('speaking'),
        broadcasting: clipState('broadcasting'),
      },
    },
  },
});
