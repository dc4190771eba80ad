/**
 * The alert engine: the lifecycle of the spec's "States and transitions" table, with no
 * HTTP in sight (docs/architecture.md, decision 3). Time comes from the injected clock, ids from the
 * injected id source, and everything the engine does to a device goes out as a
 * `DeviceCommand` to the listeners (the transcript, and the device gateway).
 */
import { type Clock, formatTimestamp, type TimerId } from '../../protocol/clock.ts';
import type { CancelEvents } from '../../protocol/control-api.schema.ts';
import type { IdSource } from '../../protocol/ids.ts';
import {
  type AlertRequest,
  type AnalyticEvent,
  type BroadcastRequest,
  EVENTS_LIMIT_MAX,
  type EventType,
  TIMEOUT_DEFAULT_S,
} from '../../protocol/service-api.schema.ts';
import { type Micros, toMicros } from '../../protocol/timestamp.ts';
import type { DeviceCommand, SpeechCause, StopCause, TranscriptEntry } from './device-command.ts';
import type { Device, Directory } from './directory.ts';
import { ENDED_RECIPIENTS_CAP, ENDED_TASKS_CAP, EndedTasks } from './ended-tasks.ts';
import { EngineError } from './engine-error.ts';
import { EventStore } from './event-store.ts';
import { FanOut } from './fan-out.ts';
import { Lane } from './lane.ts';
import { TaskDevices } from './task-devices.ts';
import { Transcript, transcriptShare } from './transcript.ts';

/** The spec's repeat interval: an alert plays again every 30 s until acknowledged. */
export const REPEAT_INTERVAL_MS = 30_000;
/** Events are kept at least 7 days (the spec's default window). */
export const EVENT_RETENTION_MS = 7 * 24 * 3600 * 1000;
/**
 * Ended tasks and transcript lines are kept as long as events (docs/decisions.md H1, H2):
 * a task that ended more than 7 days ago is forgotten, as if it never existed.
 */
export const TASK_RETENTION_MS = EVENT_RETENTION_MS;
export const TRANSCRIPT_RETENTION_MS = EVENT_RETENTION_MS;
/** At most this many transcript lines per device, the oldest dropped first (H2). */
export const TRANSCRIPT_CAP = 1_000;
/**
 * `task.task_type` as the original service writes it on alert events: one frozen object that
 * every task's events share (they leave the stub only as JSON; a copy a task was 56 bytes that
 * each alerting task kept).
 */
export const ALERT_TASK_TYPE = Object.freeze({
  major: 1,
  minor: 4,
  name: 'alerts',
  namespace: 'system',
} as const);
export const DEFAULT_ALERT_NAME = 'alerts';

export type {
  DeviceCommand,
  SpeechCause,
  StopCause,
  TranscriptEntry,
} from './device-command.ts';
export type { CancelEvents };

/**
 * What the engine holds, for tests and benches (not an interface of the service): every
 * count that should fall to 0 on a reset, and stay bounded without one.
 */
export interface EngineStats {
  /** Tasks known (alerting and ended, not yet forgotten). */
  tasks: number;
  alerting: number;
  /** Ended tasks waiting for their retention to run out. */
  ended: number;
  /** Devices with at least one lane, and lanes (device × alert name). */
  laneDevices: number;
  lanes: number;
  /** Devices with a transcript, and transcript lines held. */
  transcriptDevices: number;
  transcriptEntries: number;
  eventAccounts: number;
  events: number;
}

/** Which events a GET events answers: from `oldest` (whole µs) on, at most `limit`. */
export interface EventsWindow {
  oldest?: Micros;
  limit?: number;
}

export type DeliveryListener = (deviceId: string, command: DeviceCommand) => void;
/** Hears an analytic event as it is recorded, with the account it belongs to. */
export type EventListener = (subscriberId: string, event: AnalyticEvent) => void;

export type TaskState = 'alerting' | 'ended';

/** What the engine keeps at most and dropped early (`kept()`). */
export interface EngineKept {
  /** Events an account. */
  events: { cap: number; dropped: number };
  /** Ended tasks: at most `cap`, and `recipientsCap` recipients over them. */
  endedTasks: { cap: number; recipientsCap: number; kept: number; dropped: number };
  /** Lines a device's transcript. */
  transcriptLines: { cap: number; dropped: number };
}
export type TaskOutcome = 'quorum' | 'timed_out' | 'cancelled';
export type DeviceAlertStatus = 'queued' | 'playing' | 'acknowledged' | 'stopped';

/** Result of a device acknowledging (tapping its talk button). */
export type AckResult =
  | { result: 'acknowledged'; taskId: string }
  | { result: 'duplicate'; taskId: string }
  | { result: 'ended'; taskId: string }
  | { result: 'not_playing'; taskId: string }
  | { result: 'nothing_pending' };

/** A task as the control API shows it. */
export interface TaskSnapshot {
  task_id: string;
  subscriber_id: string;
  name: string;
  notification: string;
  state: TaskState;
  outcome: TaskOutcome | null;
  created_at: string;
  ended_at: string | null;
  quorum: number;
  timeout: number;
  acknowledgements: number;
  devices: { device_id: string; user: string; status: DeviceAlertStatus; plays: number }[];
}

interface TaskDevice {
  device: Device;
  /** The task it is a device of (a lane holds these, not tasks). */
  task: Task;
  status: DeviceAlertStatus;
  plays: number;
  /** When it last played here, as a count of plays (`#plays`): ties of one instant told apart. */
  lastPlayed: number;
  timer: TimerId | undefined;
  /** Whether it is in the device's lane for the task's name (reached and not yet left). */
  inLane: boolean;
}

interface Task {
  id: string;
  /** The order of POSTs (ids are random): what a return replays in (MB2). */
  serial: number;
  subscriberId: string;
  name: string;
  request: AlertRequest;
  createdAt: number;
  quorum: number;
  timeoutS: number;
  state: TaskState;
  outcome: TaskOutcome | null;
  endedAt: number | null;
  acks: number;
  /** The devices of an alerting task; emptied when it ends (see `recipients`). */
  devices: TaskDevices<TaskDevice>;
  /** The devices of an ended task, compact: it is kept 7 days and never changes again. */
  recipients: EndedRecipients | undefined;
  timeoutTimer: TimerId | undefined;
  /**
   * Commands made once and given to every device: each transcript line points at one. Made
   * when first needed (an alert queued behind another never plays while it is posted), let go
   * when the task ends.
   */
  commands: TaskCommands | undefined;
  /** Its events' `task`: one object for all of them, so the event store writes it once. */
  eventTask: AnalyticEvent['task'];
  /** The event store's JSON piece of `eventTask`, written with the first event. */
  eventTaskPiece: string | undefined;
}

interface TaskCommands {
  /** The play of the latest repeat number asked for (devices of a fan-out share it). */
  play: Extract<DeviceCommand, { type: 'play' }> | undefined;
  /** Made when first needed: most alerting tasks never stop or speak while a POST is served. */
  stop: Partial<Record<StopCause, DeviceCommand>> | undefined;
  speak: Partial<Record<SpeechCause, DeviceCommand>> | undefined;
}

export interface AlertEngineOptions {
  clock: Clock;
  ids: IdSource;
  directory: Directory;
  cancelEvents?: CancelEvents;
  /**
   * Whether an alert's or a broadcast's devices are reached after the request has returned, in
   * chunks (real and scaled time, decision D14), or at once (the virtual clock). Asked per
   * request: the clock's mode may change.
   */
  deferFanOut?: () => boolean;
}

export class AlertEngine {
  readonly #clock: Clock;
  readonly #ids: IdSource;
  readonly #cancelEvents: CancelEvents;
  readonly #deferFanOut: () => boolean;
  readonly #fanOut = new FanOut();
  #directory: Directory;
  readonly #events = new EventStore(EVENT_RETENTION_MS);
  // The stores below are replaced, not cleared, on reset: nothing of their size survives it.
  #tasks = new Map<string, Task>();
  /** Ended tasks in the order they ended: forgotten after 7 days, or past a cap (H1, H10). */
  #ended = this.#endedTasks();
  /**
   * Per device, per alert name, the alerts waiting for it: the head plays, the rest queue
   * (serial alerting for one name); different names each have a lane and interleave.
   */
  #lanes = new Map<string, Map<string, Lane<TaskDevice>>>();
  #transcripts = new Map<string, Transcript>();
  /** Lines a device's transcript keeps: its share of TRANSCRIPT_LINES_BUDGET. */
  #transcriptCap = TRANSCRIPT_CAP;
  /** The next task's `serial`. */
  #serial = 0;
  /** Plays so far: which of two alerts played at one instant played last (L9, MB2). */
  #plays = 0;
  readonly #listeners = new Set<DeliveryListener>();
  readonly #eventListeners = new Set<EventListener>();

  constructor(options: AlertEngineOptions) {
    this.#clock = options.clock;
    this.#ids = options.ids;
    this.#directory = options.directory;
    this.#cancelEvents = options.cancelEvents ?? 'end-cancelled';
    this.#deferFanOut = options.deferFanOut ?? (() => false);
    this.#transcriptCap = transcriptShare(this.#directory.devices().length, TRANSCRIPT_CAP);
  }

  /** Devices an alert or a broadcast has still to reach (decision D14). */
  get fanOutPending(): number {
    return this.#fanOut.pending;
  }

  /** Reaches every device still waiting for an alert or a broadcast, now. */
  drainFanOut(): void {
    this.#fanOut.drain();
  }

  get directory(): Directory {
    return this.#directory;
  }

  /** Listens to every command the engine gives a device; returns the unsubscribe function. */
  onDeliver(listener: DeliveryListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Hears every analytic event as it is recorded; returns the unsubscribe function. */
  onEvent(listener: EventListener): () => void {
    this.#eventListeners.add(listener);
    return () => this.#eventListeners.delete(listener);
  }

  /**
   * The earliest retained event at or after `oldest` (whole µs; default: retention's start)
   * that `match` accepts, in one account or in all.
   */
  findEvent(
    match: (subscriberId: string, event: AnalyticEvent) => boolean,
    where: { subscriberId?: string; oldest?: Micros } = {},
  ): { subscriberId: string; event: AnalyticEvent } | undefined {
    const now = this.#clock.now();
    return this.#events.find(
      where.subscriberId === undefined ? undefined : [where.subscriberId],
      where.oldest ?? toMicros(now - EVENT_RETENTION_MS),
      now,
      match,
    );
  }

  /** POST alerts: validates the groups first, so a refused alert changes nothing. */
  createAlert(subscriberId: string, request: AlertRequest): { taskId: string } {
    this.#forgetExpiredTasks();
    const devices = this.#directory.resolveGroups(subscriberId, request.groups);
    const id = this.#ids.taskId();
    const name = request.name ?? DEFAULT_ALERT_NAME;
    const task: Task = {
      id,
      serial: this.#serial++,
      subscriberId,
      name,
      request,
      createdAt: this.#clock.now(),
      quorum: request.quorum ?? devices.length,
      timeoutS: request.timeout ?? TIMEOUT_DEFAULT_S,
      state: 'alerting',
      outcome: null,
      endedAt: null,
      acks: 0,
      devices: new TaskDevices(),
      recipients: undefined,
      timeoutTimer: undefined,
      commands: undefined,
      eventTask: { id, name, task_type: ALERT_TASK_TYPE },
      eventTaskPiece: undefined,
    };
    for (const device of devices) {
      const td: TaskDevice = {
        device,
        task,
        status: 'queued',
        plays: 0,
        lastPlayed: 0,
        timer: undefined,
        inLane: false,
      };
      task.devices.add(td);
    }
    this.#tasks.set(task.id, task);
    this.#emit(task, 'start', undefined, task.createdAt);
    // Set before the first repeat timer: at equal due times the timeout fires first, so a
    // 30 s timeout does not play the alert again at the instant it ends.
    task.timeoutTimer = this.#clock.setTimer(task.timeoutS * 1000, () =>
      this.#finish(task, 'timed_out'),
    );
    // A task that ends before its fan-out is through (a cancel, a quorum) reaches no one more.
    this.#reach(task.devices.values(), (td) => {
      if (task.state === 'alerting') this.#enqueue(task, td);
    });
    return { taskId: task.id };
  }

  /** DELETE alerts/{task_id}: cancels on every device that has not acknowledged. */
  cancelAlert(subscriberId: string, taskId: string): void {
    this.#forgetExpiredTasks();
    const task = this.#tasks.get(taskId);
    if (!task || task.subscriberId !== subscriberId) {
      throw new EngineError(
        'unknown_task',
        `no alert task '${taskId}' in account ${subscriberId}`,
        'task_id',
      );
    }
    if (task.state === 'ended') {
      throw new EngineError(
        'task_ended',
        `alert task '${taskId}' has already ended (${task.outcome})`,
        'task_id',
      );
    }
    this.#finish(task, 'cancelled');
  }

  /** POST broadcasts: played once on every device of the groups; no acknowledgement, no events. */
  broadcast(subscriberId: string, request: BroadcastRequest): { taskId: string } {
    const devices = this.#directory.resolveGroups(subscriberId, request.groups);
    const taskId = this.#ids.taskId();
    const command: DeviceCommand = { type: 'broadcast', taskId, text: request.notification };
    this.#reach(devices, (device) => this.#deliver(device.id, command));
    return { taskId };
  }

  /**
   * A tap of the talk button: acknowledges the alert the device is playing. With alerts of
   * several names playing at once, the one played most recently is the one being heard.
   */
  tap(deviceId: string): AckResult {
    if (!this.#directory.device(deviceId)) {
      throw new EngineError('unknown_device', `no device '${deviceId}'`, 'device_id');
    }
    let heard: TaskDevice | undefined;
    let heardTask: Task | undefined;
    for (const lane of this.#lanes.get(deviceId)?.values() ?? []) {
      const td = lane.head()!;
      if (td.status === 'playing' && (!heard || td.lastPlayed > heard.lastPlayed)) {
        heard = td;
        heardTask = td.task;
      }
    }
    if (!heardTask) return { result: 'nothing_pending' };
    return this.acknowledge(deviceId, heardTask.id);
  }

  /** A device acknowledges one alert; only the first acknowledgement of a device counts. */
  acknowledge(deviceId: string, taskId: string): AckResult {
    this.#forgetExpiredTasks();
    const task = this.#tasks.get(taskId);
    if (!task) throw new EngineError('unknown_task', `no alert task '${taskId}'`, 'task_id');
    const td = task.devices.get(deviceId);
    if (!td && !task.recipients?.has(deviceId)) {
      throw new EngineError(
        'unknown_device',
        `device '${deviceId}' is not a recipient of alert '${taskId}'`,
        'device_id',
      );
    }
    if (!td || task.state === 'ended') return { result: 'ended', taskId };
    if (td.status === 'acknowledged') return { result: 'duplicate', taskId };
    if (td.status !== 'playing') return { result: 'not_playing', taskId };

    td.status = 'acknowledged';
    this.#clock.clearTimer(td.timer);
    task.acks++;
    this.#emit(task, 'acknowledged', { device: td.device.user });
    this.#deliver(deviceId, stopCommand(task, 'acknowledged'));
    if (task.request.on_ack)
      this.#deliver(deviceId, speakCommand(task, 'on_ack', task.request.on_ack));
    this.#leaveLane(task, td);
    if (task.acks >= task.quorum) this.#finish(task, 'quorum');
    return { result: 'acknowledged', taskId };
  }

  /**
   * A device (re)connected: every alert it is playing plays again now and repeats from now,
   * so a badge that joins or comes back mid-alert hears it. What it acknowledged stays
   * acknowledged; what is queued waits its turn. They play in the order they were posted
   * (decision MB2), not lane by lane: so the newest is heard last, as a tap expects (L9).
   */
  resume(deviceId: string): void {
    const playing: TaskDevice[] = [];
    for (const lane of this.#lanes.get(deviceId)?.values() ?? []) {
      const td = lane.head()!;
      if (td.status === 'playing') playing.push(td);
    }
    playing.sort((a, b) => a.task.serial - b.task.serial);
    for (const td of playing) {
      this.#clock.clearTimer(td.timer);
      this.#play(td.task, td);
    }
  }

  /** An invoked workflow speaks on a device: once, no acknowledgement, no events. */
  say(deviceId: string, text: string, taskId: string): void {
    this.#deliver(deviceId, { type: 'speak', taskId, text, cause: 'workflow' });
  }

  /**
   * GET events: oldest first from `oldest` (whole µs, as `parseTimestamp` reads a timestamp;
   * default 7 days back), at most 100.
   */
  events(subscriberId: string, query: EventsWindow = {}): AnalyticEvent[] {
    const now = this.#clock.now();
    return this.#events.query(
      subscriberId,
      query.oldest ?? toMicros(now - EVENT_RETENTION_MS),
      eventLimit(query.limit),
      now,
    );
  }

  /**
   * The same answer as `events`, already as the JSON array the HTTP interface sends, in UTF-8
   * (encoded once while the answer stands: do not change the bytes).
   */
  eventsBytes(subscriberId: string, query: EventsWindow = {}): Buffer {
    const now = this.#clock.now();
    return this.#events.queryBytes(
      subscriberId,
      query.oldest ?? toMicros(now - EVENT_RETENTION_MS),
      eventLimit(query.limit),
      now,
    );
  }

  /**
   * Everything played or spoken on a device, oldest first: the last 7 days, at most
   * TRANSCRIPT_CAP lines (H2).
   */
  transcript(deviceId: string): readonly TranscriptEntry[] {
    const transcript = this.#transcripts.get(deviceId);
    if (!transcript) return [];
    transcript.dropBefore(this.#clock.now() - TRANSCRIPT_RETENTION_MS);
    const entries: TranscriptEntry[] = [];
    for (const { atMs, command } of transcript.lines()) {
      entries.push({ ...command, at: formatTimestamp(atMs) });
    }
    return entries;
  }

  /** A task, unless unknown or ended more than 7 days ago (H1). */
  task(taskId: string): TaskSnapshot | undefined {
    this.#forgetExpiredTasks();
    const task = this.#tasks.get(taskId);
    return task && snapshot(task);
  }

  tasks(subscriberId?: string): TaskSnapshot[] {
    this.#forgetExpiredTasks();
    const all = [...this.#tasks.values()];
    return (subscriberId ? all.filter((t) => t.subscriberId === subscriberId) : all).map(snapshot);
  }

  /**
   * The alerting tasks, newest first, then the tasks that ended most recently: at most
   * `limit` in all, and only those are made into snapshots (the live stream asks on every
   * change; a week of ended tasks can be many).
   */
  latestTasks(limit: number): TaskSnapshot[] {
    this.#forgetExpiredTasks();
    const alerting: Task[] = [];
    for (const task of this.#tasks.values()) if (task.state === 'alerting') alerting.push(task);
    const chosen = alerting.reverse().slice(0, limit);
    chosen.push(...this.#ended.newest(limit - chosen.length));
    return chosen.map(snapshot);
  }

  /**
   * What the engine keeps at most, and what it dropped before its 7 days were up (past a cap)
   * since the last reset: events an account, ended tasks, transcript lines a device (H2, H10,
   * V8). Transcript lines count every line dropped, by the cap or by age.
   */
  kept(): EngineKept {
    this.#forgetExpiredTasks();
    let transcriptDropped = 0;
    for (const t of this.#transcripts.values()) transcriptDropped += t.dropped;
    return {
      events: { cap: this.#events.cap, dropped: this.#events.droppedEarly },
      endedTasks: {
        cap: ENDED_TASKS_CAP,
        recipientsCap: ENDED_RECIPIENTS_CAP,
        kept: this.#ended.size,
        dropped: this.#ended.droppedEarly,
      },
      transcriptLines: { cap: this.#transcriptCap, dropped: transcriptDropped },
    };
  }

  /** What the engine holds now (see `EngineStats`); counts what is stored, pruned or not. */
  stats(): EngineStats {
    let lanes = 0;
    for (const byName of this.#lanes.values()) lanes += byName.size;
    let transcriptEntries = 0;
    for (const t of this.#transcripts.values()) transcriptEntries += t.size;
    const events = this.#events.stats();
    const ended = this.#ended.size;
    return {
      tasks: this.#tasks.size,
      alerting: this.#tasks.size - ended,
      ended,
      laneDevices: this.#lanes.size,
      lanes,
      transcriptDevices: this.#transcripts.size,
      transcriptEntries,
      eventAccounts: events.accounts,
      events: events.events,
    };
  }

  /**
   * Forgets every task, event and transcript, and cancels every timer the engine set; with a
   * new directory, serves other fixtures. The stores are replaced by new, empty ones.
   */
  reset(directory?: Directory): void {
    for (const task of this.#tasks.values()) {
      this.#clock.clearTimer(task.timeoutTimer);
      for (const td of task.devices.values()) this.#clock.clearTimer(td.timer);
    }
    this.#fanOut.clear();
    this.#tasks = new Map();
    this.#ended = this.#endedTasks();
    this.#lanes = new Map();
    this.#transcripts = new Map();
    this.#events.clear();
    this.#ids.reset();
    if (directory) this.#directory = directory;
    this.#transcriptCap = transcriptShare(this.#directory.devices().length, TRANSCRIPT_CAP);
  }

  /** Forgets the tasks that ended more than TASK_RETENTION_MS ago (usually one comparison). */
  #forgetExpiredTasks(): void {
    this.#ended.forgetExpired(this.#clock.now());
  }

  #endedTasks(): EndedTasks<Task> {
    return new EndedTasks<Task>(TASK_RETENTION_MS, (task) => this.#tasks.delete(task.id));
  }

  /** Reaches every item, at once or after the request (D14), after what is already waiting. */
  #reach<T>(items: readonly T[], reach: (item: T) => void): void {
    this.#fanOut.add(items, reach);
    if (!this.#deferFanOut()) this.#fanOut.drain();
  }

  #enqueue(task: Task, td: TaskDevice): void {
    let lanes = this.#lanes.get(td.device.id);
    if (!lanes) {
      lanes = new Map();
      this.#lanes.set(td.device.id, lanes);
    }
    const lane = lanes.get(task.name);
    if (lane) {
      lane.add(td);
      return;
    }
    const newLane = new Lane<TaskDevice>();
    newLane.add(td);
    lanes.set(task.name, newLane);
    td.status = 'playing';
    this.#play(task, td);
  }

  #play(task: Task, td: TaskDevice): void {
    td.lastPlayed = ++this.#plays;
    this.#deliver(td.device.id, playCommand(task, td.plays++));
    td.timer = this.#clock.setTimer(REPEAT_INTERVAL_MS, () => this.#play(task, td));
  }

  /** Takes a task out of a device's lane; if it was playing there, the next one starts. */
  #leaveLane(task: Task, td: TaskDevice): void {
    if (!td.inLane) return;
    const lanes = this.#lanes.get(td.device.id)!;
    const lane = lanes.get(task.name)!;
    const wasHead = lane.head() === td;
    lane.remove(td);
    if (lane.size === 0) {
      lanes.delete(task.name);
      if (lanes.size === 0) this.#lanes.delete(td.device.id);
      return;
    }
    if (wasHead) {
      const nextTd = lane.head()!;
      const next = nextTd.task;
      // The timeout wins at its instant (L1), for a queued alert too: one that times out at
      // this very instant does not start here, only to be cut at once (its timeout ends it).
      if (next.createdAt + next.timeoutS * 1000 <= this.#clock.now()) return;
      nextTd.status = 'playing';
      this.#play(next, nextTd);
    }
  }

  #finish(task: Task, outcome: TaskOutcome): void {
    task.state = 'ended';
    task.outcome = outcome;
    task.endedAt = this.#clock.now();
    this.#ended.push(task, task.endedAt, task.devices.size);
    this.#clock.clearTimer(task.timeoutTimer);
    task.timeoutTimer = undefined;
    if (outcome === 'timed_out') this.#emit(task, 'timed_out', undefined, task.endedAt);
    const speech =
      outcome === 'quorum'
        ? task.request.on_quorum
        : outcome === 'timed_out'
          ? task.request.on_timeout
          : undefined;
    const cause: SpeechCause = outcome === 'quorum' ? 'on_quorum' : 'on_timeout';
    for (const td of task.devices.values()) {
      if (td.status === 'acknowledged') continue;
      if (td.status === 'playing') {
        this.#clock.clearTimer(td.timer);
        this.#deliver(td.device.id, stopCommand(task, outcome));
      }
      td.status = 'stopped';
      if (speech) this.#deliver(td.device.id, speakCommand(task, cause, speech));
      this.#leaveLane(task, td);
    }
    task.recipients = new EndedRecipients(task.devices.values());
    task.devices = new TaskDevices();
    task.commands = undefined;
    const status =
      outcome !== 'cancelled'
        ? 'normal'
        : this.#cancelEvents === 'end-cancelled'
          ? 'cancelled'
          : this.#cancelEvents === 'end-normal'
            ? 'normal'
            : undefined;
    if (status) this.#emit(task, 'end', { status }, task.endedAt);
  }

  /**
   * Records an event. `at` is the instant the task's record shows for it (created, ended), so
   * that on a running clock the task and its events agree to the microsecond.
   */
  #emit(
    task: Task,
    type: EventType,
    extra?: { device?: string; status?: string },
    at: number = this.#clock.now(),
  ): void {
    const event: AnalyticEvent = {
      category: 'tasks',
      content: { type, ...extra },
      task: task.eventTask,
      event_id: this.#ids.eventId(),
      timestamp: formatTimestamp(at),
    };
    task.eventTaskPiece ??= this.#events.taskPiece(task.eventTask);
    this.#events.append(task.subscriberId, at, event, task.eventTaskPiece);
    for (const listener of this.#eventListeners) listener(task.subscriberId, event);
  }

  #deliver(deviceId: string, command: DeviceCommand): void {
    let transcript = this.#transcripts.get(deviceId);
    if (!transcript) {
      transcript = new Transcript(this.#transcriptCap);
      this.#transcripts.set(deviceId, transcript);
    }
    const now = this.#clock.now();
    transcript.add(now, command);
    transcript.dropBefore(now - TRANSCRIPT_RETENTION_MS);
    for (const listener of this.#listeners) listener(deviceId, command);
  }
}

function eventLimit(limit: number | undefined): number {
  return Math.max(0, Math.min(limit ?? EVENTS_LIMIT_MAX, EVENTS_LIMIT_MAX));
}

/**
 * A task's n-th play, shared by the devices that hear it together (a fan-out, a repeat): only
 * the latest is kept, so a week-long alert does not keep one command per repeat.
 */
function playCommand(task: Task, repeat: number): DeviceCommand {
  const commands = commandsOf(task);
  if (commands.play?.repeat !== repeat) {
    commands.play = {
      type: 'play',
      taskId: task.id,
      name: task.name,
      text: task.request.notification,
      repeat,
    };
  }
  return commands.play;
}

function stopCommand(task: Task, cause: StopCause): DeviceCommand {
  const commands = commandsOf(task);
  commands.stop ??= {};
  const stop = commands.stop;
  stop[cause] ??= { type: 'stop', taskId: task.id, cause };
  return stop[cause];
}

function speakCommand(task: Task, cause: SpeechCause, text: string): DeviceCommand {
  const commands = commandsOf(task);
  commands.speak ??= {};
  const speak = commands.speak;
  speak[cause] ??= { type: 'speak', taskId: task.id, text, cause };
  return speak[cause];
}

function commandsOf(task: Task): TaskCommands {
  task.commands ??= { play: undefined, stop: undefined, speak: undefined };
  return task.commands;
}

function snapshot(task: Task): TaskSnapshot {
  return {
    task_id: task.id,
    subscriber_id: task.subscriberId,
    name: task.name,
    notification: task.request.notification,
    state: task.state,
    outcome: task.outcome,
    created_at: formatTimestamp(task.createdAt),
    ended_at: task.endedAt === null ? null : formatTimestamp(task.endedAt),
    quorum: task.quorum,
    timeout: task.timeoutS,
    acknowledgements: task.acks,
    devices:
      task.recipients?.view() ??
      task.devices.values().map((td) => ({
        device_id: td.device.id,
        user: td.device.user,
        status: td.status,
        plays: td.plays,
      })),
  };
}

const STATUSES: readonly DeviceAlertStatus[] = ['queued', 'playing', 'acknowledged', 'stopped'];

/**
 * An ended task's devices in a few bytes each (a task is kept 7 days): the devices in the
 * order they were alerted, their final status and play count, and their indices sorted by
 * device id, so asking whether a device was alerted is a binary search, not a Map entry each.
 */
class EndedRecipients {
  readonly #devices: Device[] = [];
  readonly #status: Uint8Array;
  readonly #plays: Uint32Array;
  readonly #byId: Uint32Array;

  constructor(tds: Iterable<TaskDevice>) {
    const all = [...tds];
    this.#status = new Uint8Array(all.length);
    this.#plays = new Uint32Array(all.length);
    all.forEach((td, i) => {
      this.#devices.push(td.device);
      this.#status[i] = STATUSES.indexOf(td.status);
      this.#plays[i] = td.plays;
    });
    const ids = this.#devices.map((d) => d.id);
    this.#byId = Uint32Array.from(ids.keys()).sort((a, b) =>
      ids[a]! < ids[b]! ? -1 : ids[a]! > ids[b]! ? 1 : 0,
    );
  }

  has(deviceId: string): boolean {
    let lo = 0;
    let hi = this.#byId.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const id = this.#devices[this.#byId[mid]!]!.id;
      if (id === deviceId) return true;
      if (id < deviceId) lo = mid + 1;
      else hi = mid;
    }
    return false;
  }

  view(): TaskSnapshot['devices'] {
    return this.#devices.map((device, i) => ({
      device_id: device.id,
      user: device.user,
      status: STATUSES[this.#status[i]!]!,
      plays: this.#plays[i]!,
    }));
  }
}
