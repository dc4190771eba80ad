/**
 * Whether a world snapshot can be restored, checked before anything changes: its format, its
 * shape (the JSON Schema), its secrets, then that it holds together (a timer names a task it
 * holds, an acknowledgement a device of the task...). A refusal names the field and says
 * what to do (WS2, WS9, WS14-WS17).
 */

import { isHoldableInstant } from '../../clock/clock.ts';
import type { Fixtures } from '../../fixtures/fixtures.schema.ts';
import { checkFixtures, FixtureError } from '../../fixtures/load-fixtures.ts';
import {
  SNAPSHOT_FORMAT,
  type SnapshotTask,
  WorldSnapshot,
} from '../../protocol/snapshot.schema.ts';
import { fieldPath, validatorOf } from '../../protocol/validator.ts';
import { Directory } from '../engine/directory.ts';
import type { StubSettings } from '../settings.ts';
import { DeviceRows } from './device-rows.ts';

/** Why a snapshot cannot be restored: the field at fault and what to do. */
export class SnapshotError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'SnapshotError';
  }
}

const TAKE_ANOTHER = 'take the snapshot again (GET /_stub/snapshot) rather than edit it';

/** A snapshot that restores: its fixtures checked, each task's devices as rows of them. */
export interface CheckedSnapshot {
  snapshot: WorldSnapshot;
  fixtures: Fixtures;
  /** Each task's devices (in `engine.tasks`' order) as rows of `DeviceRows`, of `size` rows. */
  taskRows: { rows: Int32Array[]; size: number };
}

/** The snapshot, checked; its fixtures checked too (as loaded fixtures are). */
export function checkSnapshot(
  input: unknown,
  settings: Pick<StubSettings, 'cancelEvents' | 'urnWord'>,
): CheckedSnapshot {
  const format = (input as { format?: unknown } | null)?.format;
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new SnapshotError('', `a snapshot is a JSON object: ${TAKE_ANOTHER}`);
  }
  if (format !== SNAPSHOT_FORMAT) {
    throw new SnapshotError(
      'format',
      `format is ${JSON.stringify(format)}: this stub reads ${SNAPSHOT_FORMAT} only; take the snapshot with a stub of this version`,
    );
  }
  const validate = validatorOf(WorldSnapshot);
  if (!validate(input)) {
    const error = validate.errors![0]!;
    const field = fieldPath(error);
    throw new SnapshotError(field, `${field || 'the snapshot'} ${error.message}: ${TAKE_ANOTHER}`);
  }
  const snapshot = input as WorldSnapshot;
  if (snapshot.secrets === 'omitted') {
    throw new SnapshotError(
      'secrets',
      'this snapshot was taken with ?secrets=omit, to read and share: its keys and tokens are placeholders, so it does not restore; restore one taken without it',
    );
  }
  for (const name of ['cancelEvents', 'urnWord'] as const) {
    if (snapshot.settings[name] !== settings[name]) {
      throw new SnapshotError(
        `settings.${name}`,
        `the snapshot was taken with ${name} ${JSON.stringify(snapshot.settings[name])}, this stub runs with ${JSON.stringify(settings[name])}: start the stub with the same setting`,
      );
    }
  }
  let fixtures: Fixtures;
  try {
    fixtures = checkFixtures(structuredClone(snapshot.fixtures));
  } catch (error) {
    if (!(error instanceof FixtureError)) throw error;
    throw new SnapshotError(`fixtures${error.path ? `.${error.path}` : ''}`, error.message);
  }
  if (!isHoldableInstant(snapshot.clock.now)) {
    throw new SnapshotError(
      'clock.now',
      `clock.now ${snapshot.clock.now} is not an instant the clock holds`,
    );
  }
  const deviceRows = new DeviceRows(fixtures);
  const rows = checkWorld(snapshot, new Directory(fixtures, settings.urnWord), deviceRows);
  return { snapshot, fixtures, taskRows: { rows, size: deviceRows.size } };
}

function checkWorld(
  snapshot: WorldSnapshot,
  directory: Directory,
  deviceRows: DeviceRows,
): Int32Array[] {
  const tasks = new Map<string, SnapshotTask>();
  const rowsOf = new Map<SnapshotTask, Int32Array>();
  const rows = snapshot.engine.tasks.map((task, i) => {
    const where = `engine.tasks[${i}]`;
    if (tasks.has(task.task_id))
      throw new SnapshotError(`${where}.task_id`, `task ${task.task_id} is listed twice`);
    tasks.set(task.task_id, task);
    const taskRows = checkTask(task, where, directory, deviceRows, snapshot.engine.next_serial);
    rowsOf.set(task, taskRows);
    return taskRows;
  });
  /** A task's status on a device, if the device is one of the task's. */
  const statusOn: StatusOn = (task, deviceId) =>
    task?.devices.status[deviceRows.indexIn(rowsOf.get(task)!, deviceId)];
  const ended = snapshot.engine.tasks.filter((t) => t.state === 'ended').map((t) => t.task_id);
  const order = snapshot.engine.ended_order;
  if (
    order.length !== ended.length ||
    new Set(order).size !== order.length ||
    !order.every((id) => tasks.get(id)?.state === 'ended')
  ) {
    throw new SnapshotError(
      'engine.ended_order',
      `engine.ended_order must list each ended task once (${ended.length} of them): ${TAKE_ANOTHER}`,
    );
  }
  checkTimers(snapshot, tasks, statusOn);
  snapshot.engine.lanes.forEach((lane, i) => {
    lane.task_ids.forEach((id, j) => {
      const status = statusOn(tasks.get(id), lane.device_id);
      if (tasks.get(id)?.state !== 'alerting' || (status !== 'queued' && status !== 'playing')) {
        throw new SnapshotError(
          `engine.lanes[${i}].task_ids[${j}]`,
          `lane of ${lane.device_id} names task ${id}, which is not alerting on that device: ${TAKE_ANOTHER}`,
        );
      }
    });
  });
  checkDevices(snapshot, directory);
  checkEvents(snapshot);
  return rows;
}

function checkTask(
  task: SnapshotTask,
  where: string,
  directory: Directory,
  deviceRows: DeviceRows,
  nextSerial: number,
): Int32Array {
  if (!directory.hasSubscriber(task.subscriber_id)) {
    throw new SnapshotError(
      `${where}.subscriber_id`,
      `no account ${task.subscriber_id} in the snapshot's fixtures`,
    );
  }
  if (task.serial >= nextSerial) {
    throw new SnapshotError(
      `${where}.serial`,
      `serial ${task.serial} is not below engine.next_serial ${nextSerial}`,
    );
  }
  const alerting = task.state === 'alerting';
  if (alerting !== (task.outcome === null) || alerting !== (task.ended_at === null)) {
    throw new SnapshotError(
      `${where}.outcome`,
      `an ${task.state} task has ${alerting ? 'no' : 'an'} outcome and end: ${TAKE_ANOTHER}`,
    );
  }
  const devices = task.devices;
  sameLengths(`${where}.devices`, 'device_id', devices.device_id.length, {
    status: devices.status,
    plays: devices.plays,
    last_played: devices.last_played,
  });
  const rows = deviceRows.rowsOf(devices.device_id, task.subscriber_id);
  if (!(rows instanceof Int32Array)) {
    const j = rows.wrong;
    throw new SnapshotError(
      `${where}.devices.device_id[${j}]`,
      `'${devices.device_id[j]}' is not a device of account ${task.subscriber_id} in the snapshot's fixtures (or is listed twice)`,
    );
  }
  let acks = 0;
  for (const status of devices.status) if (status === 'acknowledged') acks++;
  if (acks !== task.acknowledgements) {
    throw new SnapshotError(
      `${where}.acknowledgements`,
      `acknowledgements is ${task.acknowledgements}, but ${acks} of its devices acknowledged`,
    );
  }
  return rows;
}

type StatusOn = (task: SnapshotTask | undefined, deviceId: string) => string | undefined;

function checkTimers(
  snapshot: WorldSnapshot,
  tasks: Map<string, SnapshotTask>,
  statusOn: StatusOn,
): void {
  const timeouts = new Set<string>();
  const repeats = new Set<string>();
  snapshot.clock.timers.forEach((timer, i) => {
    const where = `clock.timers[${i}]`;
    const task = tasks.get(timer.task_id);
    if (!task)
      throw new SnapshotError(
        `${where}.task_id`,
        `a timer for task ${timer.task_id}, which the snapshot does not hold: ${TAKE_ANOTHER}`,
      );
    if (task.state !== 'alerting')
      throw new SnapshotError(
        `${where}.task_id`,
        `a timer for task ${timer.task_id}, which has ended`,
      );
    if (snapshot.clock.mode === 'virtual' && timer.due < snapshot.clock.now) {
      throw new SnapshotError(
        `${where}.due`,
        `due ${timer.due} is before clock.now ${snapshot.clock.now}: a virtual clock has fired it`,
      );
    }
    if (timer.kind === 'task_timeout') {
      if (timeouts.has(task.task_id))
        throw new SnapshotError(where, `task ${task.task_id} has two timeouts`);
      timeouts.add(task.task_id);
      return;
    }
    const status = statusOn(task, timer.device_id);
    const key = `${task.task_id}\u0000${timer.device_id}`;
    if (status !== 'playing' || repeats.has(key)) {
      throw new SnapshotError(
        `${where}.device_id`,
        `a repeat of task ${task.task_id} on '${timer.device_id}', which is not playing it there (or twice)`,
      );
    }
    repeats.add(key);
  });
  for (const task of tasks.values()) {
    if (task.state === 'alerting' && !timeouts.has(task.task_id)) {
      const i = [...tasks.keys()].indexOf(task.task_id);
      throw new SnapshotError(
        `engine.tasks[${i}]`,
        `alerting task ${task.task_id} has no task_timeout timer in clock.timers: ${TAKE_ANOTHER}`,
      );
    }
  }
}

function checkDevices(snapshot: WorldSnapshot, directory: Directory): void {
  const devices: { device_id: string }[][] = [
    snapshot.devices,
    snapshot.engine.lanes,
    snapshot.engine.transcripts,
  ];
  const names = ['devices', 'engine.lanes', 'engine.transcripts'];
  devices.forEach((list, k) => {
    list.forEach((d, i) => {
      if (!directory.device(d.device_id)) {
        throw new SnapshotError(
          `${names[k]}[${i}].device_id`,
          `no device '${d.device_id}' in the snapshot's fixtures`,
        );
      }
    });
  });
}

function checkEvents(snapshot: WorldSnapshot): void {
  snapshot.events.forEach((log, i) => {
    const where = `events[${i}]`;
    sameLengths(where, 'at', log.at.length, {
      kind: log.kind,
      task: log.task,
      event_id: log.event_id,
    });
    indicesWithin(`${where}.kind`, log.kind, log.kinds.length, `${where}.kinds`);
    indicesWithin(`${where}.task`, log.task, log.tasks.length, `${where}.tasks`);
    const at = log.at;
    for (let j = 1; j < at.length; j++) {
      if (at[j]! < at[j - 1]!) {
        throw new SnapshotError(
          `${where}.at[${j}]`,
          `${at[j]} is before the event before it (${at[j - 1]}): events are kept oldest first; ${TAKE_ANOTHER}`,
        );
      }
    }
    // An id is written into the events' JSON as it stands: one that JSON must escape is not one the stub made.
    const j = firstEscaped(log.event_id);
    if (j >= 0) {
      throw new SnapshotError(
        `${where}.event_id[${j}]`,
        `${JSON.stringify(log.event_id[j])} is not an event id the stub makes (a quote, backslash or control character): ${TAKE_ANOTHER}`,
      );
    }
  });
  snapshot.engine.transcripts.forEach((transcript, i) => {
    const where = `engine.transcripts[${i}]`;
    sameLengths(where, 'at', transcript.at.length, { command: transcript.command });
    indicesWithin(
      `${where}.command`,
      transcript.command,
      snapshot.engine.commands.length,
      'engine.commands',
    );
  });
}

/**
 * The index of the first string JSON writes other than as it stands, or -1: each is searched
 * as it is (not joined: 100,000 ids made a 3 MB string first), and written as JSON only when
 * something there may be.
 */
function firstEscaped(texts: string[]): number {
  for (let i = 0; i < texts.length; i++) {
    const text = texts[i]!;
    if (mayBeEscaped(text) && JSON.stringify(text).length !== text.length + 2) return i;
  }
  return -1;
}

/**
 * What JSON escapes (a quote, a backslash, a control character) and surrogates (a lone one is
 * escaped, a pair is not: JSON.stringify tells), a character at a time: a regular expression
 * run 100,000 times costs more.
 */
function mayBeEscaped(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return true;
  }
  return false;
}

/** Columns of one table are as long as its `first`. */
function sameLengths(
  where: string,
  first: string,
  length: number,
  columns: Record<string, unknown[]>,
): void {
  for (const [name, column] of Object.entries(columns)) {
    if (column.length !== length) {
      throw new SnapshotError(
        `${where}.${name}`,
        `${where}.${name} has ${column.length} entries, ${where}.${first} ${length}: the columns go together; ${TAKE_ANOTHER}`,
      );
    }
  }
}

/** Each index names a row of a table of `size` rows. */
function indicesWithin(where: string, indices: number[], size: number, table: string): void {
  for (let j = 0; j < indices.length; j++) {
    if (indices[j]! >= size) {
      throw new SnapshotError(
        `${where}[${j}]`,
        `${indices[j]} is past ${table}, which has ${size} entries: ${TAKE_ANOTHER}`,
      );
    }
  }
}
