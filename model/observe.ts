/**
 * Which of the lifecycle's named transitions (transitions.ts) a service's history shows: what
 * `run --coverage` reads from a run's stub (its events, what it sent each device, DELETE
 * answers, tap results, badges going off and on line). The property tests hold this reading
 * to the model: for any schedule, the transitions read from the model's own predicted history
 * are exactly those its `step` took (decision CV2), so a run is credited only with what the
 * model would have done.
 */
import { predictionOf } from './alert.model.ts';
import { type ModelState, REPEAT_MS, type Sent } from './lifecycle-state.ts';
import type { LifecycleTransition } from './transitions.ts';

/** What a service did, ms from any common zero, tasks by any key. */
export interface ServiceHistory {
  /** Every task, with its alert name and its recipients (device ids, the group's order). */
  tasks: { key: string; name: string; createdAt: number; devices: string[] }[];
  /** The user a device id belongs to: analytic events name users. */
  users: ReadonlyMap<string, string>;
  /** Analytic events in the order recorded. */
  events: { type: string; task: string; at: number; device?: string; status?: string }[];
  /** What the service sent each device (play, stop, speak), in order. */
  sent: ReadonlyMap<string, readonly Sent[]>;
  deletes: { task: string; at: number; status: number }[];
  taps: { device: string; at: number; result: string; task?: string }[];
  /** A device going off (`online: false`) or coming on the network, in order. */
  links: { device: string; at: number; online: boolean }[];
}

/** The named transitions a history shows. */
export function transitionsIn(history: ServiceHistory): Set<LifecycleTransition> {
  const seen = new Set<LifecycleTransition>();
  for (const task of history.tasks) readTask(history, task, seen);
  for (const d of history.deletes) if (d.status === 409) seen.add('delete-of-ended-refused');
  for (const tap of history.taps) {
    const why = TAP_RESULTS.get(tap.result);
    if (why) seen.add(why);
  }
  for (const link of history.links)
    if (!link.online && playingAt(history, link.device, link.at)) seen.add('dropped-mid-alert');
  return seen;
}

const TAP_RESULTS = new Map<string, LifecycleTransition>([
  ['acknowledged', 'acknowledged'],
  ['duplicate', 'duplicate-ack-ignored'],
  ['ended', 'ack-after-end-ignored'],
  ['not_playing', 'ack-of-queued-refused'],
  ['nothing_pending', 'tap-with-nothing-playing'],
]);

type Task = ServiceHistory['tasks'][number];

function readTask(history: ServiceHistory, task: Task, seen: Set<LifecycleTransition>): void {
  const events = history.events.filter((e) => e.task === task.key);
  const acks = events.filter((e) => e.type === 'acknowledged').length;
  if (acks > 0) seen.add('acknowledged');
  const end = events.find((e) => e.type === 'end');
  if (end?.status === 'cancelled') seen.add('cancelled');
  else if (events.some((e) => e.type === 'timed_out'))
    seen.add(acks > 0 ? 'timed-out-short-of-quorum' : 'timed-out');
  else if (end) seen.add(acks < task.devices.length ? 'quorum-some' : 'quorum-all');
  for (const device of task.devices) {
    const lines = (history.sent.get(device) ?? []).filter((l) => l.task === task.key);
    readPlays(history, task, device, lines, seen);
    const played = lines.some((l) => l.type === 'play');
    for (const line of lines) {
      if (line.type !== 'speak') continue;
      if (line.cause === 'on_ack') seen.add('spoke-on-ack');
      if (line.cause === 'on_quorum') seen.add('spoke-on-quorum');
      if (line.cause === 'on_timeout') seen.add('spoke-on-timeout');
      if ((line.cause === 'on_quorum' || line.cause === 'on_timeout') && !played)
        seen.add('spoke-where-queued');
    }
    if (!played && end && notReleasedAtTimeout(history, task, device, events)) {
      seen.add('not-released-at-its-timeout');
    }
  }
}

/**
 * A task's plays on one device: the first at the POST (else it waited and was released),
 * then repeats 30 s after the play before, and plays again when the device came back.
 */
function readPlays(
  history: ServiceHistory,
  task: Task,
  device: string,
  lines: readonly Sent[],
  seen: Set<LifecycleTransition>,
): void {
  const plays = lines.filter((l) => l.type === 'play');
  const queued = queuedAtPost(history, task, device);
  if (queued) seen.add('queued');
  if (plays.length > 0) seen.add(queued ? 'released' : 'played');
  for (let i = 1; i < plays.length; i++) {
    const returned = history.links.some(
      (l) => l.device === device && l.online && l.at === plays[i]!.at,
    );
    const repeat = plays[i]!.at === plays[i - 1]!.at + REPEAT_MS;
    seen.add(repeat || !returned ? 'repeated' : 'replayed-on-return');
  }
}

/**
 * L7: at the task's POST, one of its name posted before was still on the device (neither
 * acknowledged there nor ended): the task waited. Told by the order events were recorded in.
 */
function queuedAtPost(history: ServiceHistory, task: Task, device: string): boolean {
  const startOf = (key: string) =>
    history.events.findIndex((e) => e.task === key && e.type === 'start');
  const posted = startOf(task.key);
  const user = history.users.get(device);
  return history.tasks.some((other) => {
    if (other === task || other.name !== task.name || !other.devices.includes(device)) return false;
    const start = startOf(other.key);
    if (start < 0 || start > posted) return false;
    const done = history.events.findIndex(
      (e) =>
        e.task === other.key &&
        (e.type === 'end' || (e.type === 'acknowledged' && e.device === user)),
    );
    return done < 0 || done > posted;
  });
}

/**
 * L1a: a task that timed out queued on a device, at the instant that device was done with the
 * one of its name playing there (that one's end or acknowledgement recorded first), and no
 * older one of the name was waiting there too (it would have been released instead).
 */
function notReleasedAtTimeout(
  history: ServiceHistory,
  task: Task,
  device: string,
  events: ServiceHistory['events'],
): boolean {
  const timedOut = events.find((e) => e.type === 'timed_out');
  if (!timedOut) return false;
  const at = timedOut.at;
  const order = history.events.indexOf(timedOut);
  const user = history.users.get(device);
  const doneIndex = (key: string) =>
    history.events.findIndex(
      (e) =>
        e.task === key && (e.type === 'end' || (e.type === 'acknowledged' && e.device === user)),
    );
  const startOf = (key: string) =>
    history.events.findIndex((e) => e.task === key && e.type === 'start');
  const playedBefore = (key: string) =>
    (history.sent.get(device) ?? []).some((l) => l.task === key && l.type === 'play' && l.at < at);
  const same = history.tasks.filter(
    (t) => t !== task && t.name === task.name && t.devices.includes(device),
  );
  const ahead = same.find((u) => {
    const done = doneIndex(u.key);
    return done >= 0 && done < order && history.events[done]!.at === at && playedBefore(u.key);
  });
  if (!ahead) return false;
  const released = doneIndex(ahead.key);
  return !same.some(
    (w) =>
      w !== ahead &&
      startOf(w.key) < startOf(task.key) &&
      !playedBefore(w.key) &&
      (doneIndex(w.key) < 0 || doneIndex(w.key) > released),
  );
}

/** Whether some alert was playing on the device at `at`: played, not stopped, not ended. */
function playingAt(history: ServiceHistory, device: string, at: number): boolean {
  const lines = (history.sent.get(device) ?? []).filter((l) => l.at <= at);
  const open = new Set<string>();
  for (const line of lines) {
    if (line.type === 'play') open.add(line.task);
    if (line.type === 'stop') open.delete(line.task);
  }
  for (const e of history.events)
    if (e.type === 'end' && e.at <= at && open.has(e.task)) open.delete(e.task);
  return open.size > 0;
}

/** The history a model state predicts: devices named by their users, tasks by their keys. */
export function historyOfModel(state: ModelState, users: readonly string[]): ServiceHistory {
  const prediction = predictionOf(state);
  return {
    tasks: state.tasks.map((t) => ({
      key: t.key,
      name: t.name,
      createdAt: t.createdAt,
      devices: [...users],
    })),
    users: new Map(users.map((u) => [u, u])),
    events: prediction.events,
    sent: new Map(users.map((u, d) => [u, prediction.sent[d]!])),
    deletes: state.deletes,
    taps: state.taps.map((t) => ({ ...t, device: users[t.device]! })),
    links: state.links.map((l) => ({ ...l, device: users[l.device]! })),
  };
}
