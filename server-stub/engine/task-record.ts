/**
 * An alert task as the engine keeps it: its record and its devices' (what the lifecycle
 * changes), the snapshot the control API shows, and an ended task's devices in a few bytes.
 */
import { formatTimestamp, type TimerId } from '../../clock/clock.ts';
import type { CancelEvents } from '../../protocol/control-api.schema.ts';
import {
  type AlertRequest,
  type AnalyticEvent,
  TIMEOUT_DEFAULT_S,
} from '../../protocol/service-api.schema.ts';
import type { DeviceCommand, SpeechCause, StopCause } from './device-command.ts';
import type { Device } from './directory.ts';
import { TaskDevices } from './task-devices.ts';

/**
 * `task.task_type` as the original service writes it on alert events: one frozen object that
 * every task's events share (they leave the stub only as JSON; a copy a task was 56 bytes that
 * each alerting task kept).
 */
const ALERT_TASK_TYPE = Object.freeze({
  major: 1,
  minor: 4,
  name: 'alerts',
  namespace: 'system',
} as const);
const DEFAULT_ALERT_NAME = 'alerts';

type TaskState = 'alerting' | 'ended';

export type TaskOutcome = 'quorum' | 'timed_out' | 'cancelled';
type DeviceAlertStatus = 'queued' | 'playing' | 'acknowledged' | 'stopped';

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

export interface TaskDevice {
  device: Device;
  /** The task it is a device of (a lane holds these, not tasks). */
  task: Task;
  status: DeviceAlertStatus;
  plays: number;
  /** When it last played here, as a count of plays: ties of one instant told apart. */
  lastPlayed: number;
  timer: TimerId | undefined;
  /** Whether it is in the device's lane for the task's name (reached and not yet left). */
  inLane: boolean;
}

export interface Task {
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

export interface TaskCommands {
  /** The play of the latest repeat number asked for (devices of a fan-out share it). */
  play: Extract<DeviceCommand, { type: 'play' }> | undefined;
  /** Made when first needed: most alerting tasks never stop or speak while a POST is served. */
  stop: Partial<Record<StopCause, DeviceCommand>> | undefined;
  speak: Partial<Record<SpeechCause, DeviceCommand>> | undefined;
}

/** What the control API shows of a task now. */
export function snapshot(task: Task): TaskSnapshot {
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
export class EndedRecipients {
  #devices: Device[] = [];
  #status: Uint8Array;
  #plays: Uint32Array;
  /** Sorted when first asked (`has`): most ended tasks are never asked, and a restore makes 900 at once. */
  #byId: Uint32Array | undefined;

  constructor(tds: Iterable<Pick<TaskDevice, 'device' | 'status' | 'plays'>>) {
    const all = [...tds];
    this.#status = new Uint8Array(all.length);
    this.#plays = new Uint32Array(all.length);
    all.forEach((td, i) => {
      this.#devices.push(td.device);
      this.#status[i] = STATUSES.indexOf(td.status);
      this.#plays[i] = td.plays;
    });
  }

  /** From a snapshot's columns (its restore makes 900 at once): no object made a device. */
  static fromColumns(
    devices: Device[],
    status: readonly DeviceAlertStatus[],
    plays: readonly number[],
  ): EndedRecipients {
    const recipients = new EndedRecipients([]);
    recipients.#devices = devices;
    recipients.#status = new Uint8Array(devices.length);
    recipients.#plays = new Uint32Array(devices.length);
    for (let i = 0; i < devices.length; i++) {
      recipients.#status[i] = STATUSES.indexOf(status[i]!);
      recipients.#plays[i] = plays[i]!;
    }
    return recipients;
  }

  #sortedById(): Uint32Array {
    if (this.#byId === undefined) {
      const ids = this.#devices.map((d) => d.id);
      this.#byId = Uint32Array.from(ids.keys()).sort((a, b) =>
        ids[a]! < ids[b]! ? -1 : ids[a]! > ids[b]! ? 1 : 0,
      );
    }
    return this.#byId;
  }

  has(deviceId: string): boolean {
    const byId = this.#sortedById();
    let lo = 0;
    let hi = byId.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const id = this.#devices[byId[mid]!]!.id;
      if (id === deviceId) return true;
      if (id < deviceId) lo = mid + 1;
      else hi = mid;
    }
    return false;
  }

  /** Each device's id, status and plays, in order, to the callback: a snapshot's columns, no object a device. */
  forEach(each: (deviceId: string, status: DeviceAlertStatus, plays: number) => void): void {
    this.#devices.forEach((device, i) => {
      each(device.id, STATUSES[this.#status[i]!]!, this.#plays[i]!);
    });
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

/**
 * The `status` of the end event of a task that ended with `outcome`: a cancel's as the
 * `cancelEvents` setting says (none at all with `none`).
 */
export function endEventStatus(
  outcome: TaskOutcome,
  cancelEvents: CancelEvents,
): 'normal' | 'cancelled' | undefined {
  if (outcome !== 'cancelled') return 'normal';
  return cancelEvents === 'end-cancelled'
    ? 'cancelled'
    : cancelEvents === 'end-normal'
      ? 'normal'
      : undefined;
}

/** A new alerting task of `devices`, created `now`, each device queued. */
export function newTask(
  id: string,
  serial: number,
  subscriberId: string,
  request: AlertRequest,
  { devices, now }: { devices: readonly Device[]; now: number },
): Task {
  const name = request.name ?? DEFAULT_ALERT_NAME;
  const task: Task = {
    id,
    serial,
    subscriberId,
    name,
    request,
    createdAt: now,
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
  return task;
}
