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
import { parseTimestamp } from '../../protocol/timestamp.ts';
import { fieldPath, validatorOf } from '../../protocol/validator.ts';
import { Directory } from '../engine/directory.ts';
import type { StubSettings } from '../settings.ts';

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

/** The snapshot, checked; its fixtures checked too (as loaded fixtures are). */
export function checkSnapshot(
  input: unknown,
  settings: Pick<StubSettings, 'cancelEvents' | 'urnWord'>,
): { snapshot: WorldSnapshot; fixtures: Fixtures } {
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
  checkWorld(snapshot, new Directory(fixtures, settings.urnWord));
  return { snapshot, fixtures };
}

function checkWorld(snapshot: WorldSnapshot, directory: Directory): void {
  const tasks = new Map<string, SnapshotTask>();
  snapshot.engine.tasks.forEach((task, i) => {
    const where = `engine.tasks[${i}]`;
    if (tasks.has(task.task_id))
      throw new SnapshotError(`${where}.task_id`, `task ${task.task_id} is listed twice`);
    tasks.set(task.task_id, task);
    checkTask(task, where, directory, snapshot.engine.next_serial);
  });
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
  checkTimers(snapshot, tasks);
  snapshot.engine.lanes.forEach((lane, i) => {
    lane.task_ids.forEach((id, j) => {
      const status = tasks.get(id)?.devices.find((d) => d.device_id === lane.device_id)?.status;
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
}

function checkTask(
  task: SnapshotTask,
  where: string,
  directory: Directory,
  nextSerial: number,
): void {
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
  const seen = new Set<string>();
  task.devices.forEach((d, j) => {
    const device = directory.device(d.device_id);
    if (!device || device.subscriberId !== task.subscriber_id || seen.has(d.device_id)) {
      throw new SnapshotError(
        `${where}.devices[${j}].device_id`,
        `'${d.device_id}' is not a device of account ${task.subscriber_id} in the snapshot's fixtures (or is listed twice)`,
      );
    }
    seen.add(d.device_id);
  });
  const acks = task.devices.filter((d) => d.status === 'acknowledged').length;
  if (acks !== task.acknowledgements) {
    throw new SnapshotError(
      `${where}.acknowledgements`,
      `acknowledgements is ${task.acknowledgements}, but ${acks} of its devices acknowledged`,
    );
  }
}

function checkTimers(snapshot: WorldSnapshot, tasks: Map<string, SnapshotTask>): void {
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
    const status = task.devices.find((d) => d.device_id === timer.device_id)?.status;
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
  snapshot.events.forEach(({ events }, i) => {
    let last = Number.NEGATIVE_INFINITY;
    events.forEach((event, j) => {
      const at = parseTimestamp(event.timestamp);
      if (at === undefined || at < last) {
        throw new SnapshotError(
          `events[${i}].events[${j}].timestamp`,
          `'${event.timestamp}' is not a timestamp at or after the event before it`,
        );
      }
      last = at;
    });
  });
}
