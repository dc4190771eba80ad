/**
 * The alert engine: the lifecycle of the spec's "States and transitions" table, with no HTTP
 * in sight (docs/architecture.md, decision 3): tasks created, acknowledged, ended, their events
 * and how long they are kept. Time comes from the injected clock, ids from the injected id
 * source; what each device plays, is given and keeps in its transcript is the delivery
 * bookkeeping of device-deliveries.ts, which sends every `DeviceCommand` to the listeners.
 */
import { type Clock, formatTimestamp } from '../../clock/clock.ts';
import type { CancelEvents } from '../../protocol/control-api.schema.ts';
import type { IdSource } from '../../protocol/ids.ts';
import type {
  AlertRequest,
  AnalyticEvent,
  BroadcastRequest,
  EventType,
} from '../../protocol/service-api.schema.ts';
import { type Micros, toMicros } from '../../protocol/timestamp.ts';
import type { DeviceCommand, TranscriptEntry } from './device-command.ts';
import { type DeliveryListener, DeviceDeliveries } from './device-deliveries.ts';
import type { Directory } from './directory.ts';
import { ENDED_RECIPIENTS_CAP, ENDED_TASKS_CAP, EndedTasks } from './ended-tasks.ts';
import { EngineError } from './engine-error.ts';
import type {
  AckResult,
  AlertEngineOptions,
  EngineKept,
  EngineStats,
  EventListener,
  EventsWindow,
} from './engine-types.ts';
import { EventStore, eventLimit } from './event-store.ts';
import { FanOut } from './fan-out.ts';
import { EVENT_RETENTION_MS, TASK_RETENTION_MS } from './retention.ts';
import { TaskDevices } from './task-devices.ts';
import {
  EndedRecipients,
  endEventStatus,
  newTask,
  snapshot,
  type Task,
  type TaskOutcome,
  type TaskSnapshot,
} from './task-record.ts';

export type { DeviceCommand, TranscriptEntry } from './device-command.ts';
export type { CancelEvents };

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
  /** The next task's `serial`. */
  #serial = 0;
  /** What each device plays, is given and heard: lanes, commands, transcripts. */
  readonly #deliveries: DeviceDeliveries;
  readonly #eventListeners = new Set<EventListener>();

  constructor(options: AlertEngineOptions) {
    this.#clock = options.clock;
    this.#ids = options.ids;
    this.#directory = options.directory;
    this.#cancelEvents = options.cancelEvents ?? 'end-cancelled';
    this.#deferFanOut = options.deferFanOut ?? (() => false);
    this.#deliveries = new DeviceDeliveries(this.#clock, this.#directory.devices().length);
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
    return this.#deliveries.onDeliver(listener);
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
    const task = newTask(this.#ids.taskId(), this.#serial++, subscriberId, request, {
      devices,
      now: this.#clock.now(),
    });
    this.#tasks.set(task.id, task);
    this.#emit(task, 'start', undefined, task.createdAt);
    // Set before the first repeat timer: at equal due times the timeout fires first, so a
    // 30 s timeout does not play the alert again at the instant it ends.
    task.timeoutTimer = this.#clock.setTimer(task.timeoutS * 1000, () =>
      this.#finish(task, 'timed_out'),
    );
    // A task that ends before its fan-out is through (a cancel, a quorum) reaches no one more.
    this.#reach(task.devices.values(), (td) => {
      if (task.state === 'alerting') this.#deliveries.enqueue(task, td);
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
    this.#reach(devices, (device) => this.#deliveries.deliver(device.id, command));
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
    const heard = this.#deliveries.heard(deviceId);
    return heard ? this.acknowledge(deviceId, heard.task.id) : { result: 'nothing_pending' };
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
    this.#deliveries.acknowledged(task, td);
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
    const playing = this.#deliveries.playing(deviceId);
    playing.sort((a, b) => a.task.serial - b.task.serial);
    for (const td of playing) {
      this.#clock.clearTimer(td.timer);
      this.#deliveries.play(td.task, td);
    }
  }

  /** An invoked workflow speaks on a device: once, no acknowledgement, no events. */
  say(deviceId: string, text: string, taskId: string): void {
    this.#deliveries.deliver(deviceId, { type: 'speak', taskId, text, cause: 'workflow' });
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
    return this.#deliveries.transcript(deviceId);
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
    return {
      events: { cap: this.#events.cap, dropped: this.#events.droppedEarly },
      endedTasks: {
        cap: ENDED_TASKS_CAP,
        recipientsCap: ENDED_RECIPIENTS_CAP,
        kept: this.#ended.size,
        dropped: this.#ended.droppedEarly,
      },
      transcriptLines: this.#deliveries.keptLines(),
    };
  }

  /** What the engine holds now (see `EngineStats`); counts what is stored, pruned or not. */
  stats(): EngineStats {
    const events = this.#events.stats();
    const ended = this.#ended.size;
    return {
      tasks: this.#tasks.size,
      alerting: this.#tasks.size - ended,
      ended,
      ...this.#deliveries.stats(),
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
    this.#events.clear();
    this.#ids.reset();
    if (directory) this.#directory = directory;
    this.#deliveries.reset(this.#directory.devices().length);
  }

  /** Its stores, for a world snapshot to read and to fill after a reset (server-stub/snapshot/). */
  world() {
    const serial = (next = this.#serial) => (this.#serial = next);
    const own = { deliveries: this.#deliveries, expire: (t: Task) => this.#finish(t, 'timed_out') };
    return { tasks: this.#tasks, ended: this.#ended, events: this.#events, serial, ...own };
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

  #finish(task: Task, outcome: TaskOutcome): void {
    task.state = 'ended';
    task.outcome = outcome;
    task.endedAt = this.#clock.now();
    this.#ended.push(task, task.endedAt, task.devices.size);
    this.#clock.clearTimer(task.timeoutTimer);
    task.timeoutTimer = undefined;
    if (outcome === 'timed_out') this.#emit(task, 'timed_out', undefined, task.endedAt);
    this.#deliveries.ended(task, outcome);
    task.recipients = new EndedRecipients(task.devices.values());
    task.devices = new TaskDevices();
    task.commands = undefined;
    const status = endEventStatus(outcome, this.#cancelEvents);
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
}
