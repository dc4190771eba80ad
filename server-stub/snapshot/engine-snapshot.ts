/**
 * The alert engine's part of a world snapshot: its tasks with all it keeps of them, their
 * timers as records (what each is for, when it is due, its place among timers due then), the
 * ended tasks' order, the lanes, transcripts and events; and putting them back into an engine
 * just reset, making each timer again from the record that owns it (WS3, WS11-WS13).
 */
import type { VirtualClock } from '../../clock/clock.ts';
import type {
  SnapshotTask,
  SnapshotTaskDevices,
  SnapshotTimer,
  WorldSnapshot,
} from '../../protocol/snapshot.schema.ts';
import type { AlertEngine } from '../engine/alert-engine.ts';
import type { Device } from '../engine/directory.ts';
import { EndedRecipients, newTask, type Task } from '../engine/task-record.ts';
import { eventColumns, restoreEventColumns } from './event-columns.ts';
import type { CheckedSnapshot } from './snapshot-checks.ts';

type EngineSnapshot = WorldSnapshot['engine'];

/** What the engine keeps now, and its timers (the clock's part of the snapshot). */
export function captureEngine(
  engine: AlertEngine,
  clock: VirtualClock,
): { engine: EngineSnapshot; timers: SnapshotTimer[]; events: WorldSnapshot['events'] } {
  // What real time had still to reach is reached first (D14): a snapshot holds no fan-out.
  engine.drainFanOut();
  engine.kept(); // Forgets the tasks past their 7 days, as any read does.
  const world = engine.world();
  const now = clock.now();
  const tasks: SnapshotTask[] = [];
  const timers: SnapshotTimer[] = [];
  for (const task of world.tasks.values()) {
    tasks.push(taskRecord(task));
    const timeout = clock.timerInfo(task.timeoutTimer);
    if (timeout) timers.push({ kind: 'task_timeout', task_id: task.id, ...timeout });
    for (const td of task.devices.values()) {
      const repeat = clock.timerInfo(td.timer);
      if (repeat)
        timers.push({ kind: 'repeat', task_id: task.id, device_id: td.device.id, ...repeat });
    }
  }
  // Their order among themselves is what counts: numbered from 0, so equal worlds write alike.
  timers.sort((a, b) => a.due - b.due || a.order - b.order);
  timers.forEach((timer, i) => {
    timer.order = i;
  });
  const ended = [...world.ended.newest(Number.POSITIVE_INFINITY)].reverse().map((t) => t.id);
  const deliveries = world.deliveries.toSnapshot(now);
  return {
    engine: {
      next_serial: world.serial(),
      plays: deliveries.plays,
      tasks,
      ended_order: ended,
      lanes: deliveries.lanes,
      commands: deliveries.commands as EngineSnapshot['commands'],
      transcripts: deliveries.transcripts,
    },
    timers,
    events: eventColumns(world.events, now),
  };
}

function taskRecord(task: Task): SnapshotTask {
  const devices: SnapshotTaskDevices = { device_id: [], status: [], plays: [], last_played: [] };
  const add = (deviceId: string, status: TaskDeviceStatus, plays: number, lastPlayed: number) => {
    devices.device_id.push(deviceId);
    devices.status.push(status);
    devices.plays.push(plays);
    devices.last_played.push(lastPlayed);
  };
  if (task.recipients) {
    task.recipients.forEach((id, status, plays) => {
      add(id, status, plays, 0);
    });
  } else {
    for (const td of task.devices.values()) add(td.device.id, td.status, td.plays, td.lastPlayed);
  }
  return {
    task_id: task.id,
    serial: task.serial,
    subscriber_id: task.subscriberId,
    request: task.request,
    created_at: task.createdAt,
    state: task.state,
    outcome: task.outcome,
    ended_at: task.endedAt,
    acknowledgements: task.acks,
    devices,
  };
}

/**
 * Fills an engine just reset (with the snapshot's fixtures) from a checked snapshot, on a
 * clock restarted at the snapshot's instant: tasks, ended order, lanes, transcripts, events,
 * then the timers in their order, each made again from what owns it.
 */
export function restoreEngine(
  engine: AlertEngine,
  clock: VirtualClock,
  snapshot: WorldSnapshot,
  taskRows: CheckedSnapshot['taskRows'],
): void {
  const world = engine.world();
  // The directory lists the fixtures' devices in the rows' order (device-rows.ts).
  const all = engine.directory.devices();
  if (all.length !== taskRows.size)
    throw new Error('restore: the directory is not the checked fixtures');
  snapshot.engine.tasks.forEach((record, i) => {
    const rows = taskRows.rows[i]!;
    const devices: Device[] = new Array(rows.length);
    for (let j = 0; j < rows.length; j++) devices[j] = all[rows[j]!]!;
    world.tasks.set(record.task_id, task(record, devices));
  });
  world.serial(snapshot.engine.next_serial);
  const recipients = new Map(
    snapshot.engine.tasks.map((t) => [t.task_id, t.devices.device_id.length]),
  );
  for (const id of snapshot.engine.ended_order) {
    const ended = world.tasks.get(id)!;
    world.ended.push(ended, ended.endedAt!, recipients.get(id)!);
  }
  const member = (taskId: string, deviceId: string) =>
    world.tasks.get(taskId)!.devices.get(deviceId)!;
  world.deliveries.restore(
    {
      plays: snapshot.engine.plays,
      lanes: snapshot.engine.lanes,
      commands: snapshot.engine.commands,
      transcripts: snapshot.engine.transcripts,
    },
    member,
  );
  restoreEventColumns(world.events, snapshot.events);
  const timers = [...snapshot.clock.timers].sort((a, b) => a.order - b.order);
  for (const timer of timers) {
    const owner = world.tasks.get(timer.task_id)!;
    const delay = timer.due - clock.now();
    if (timer.kind === 'task_timeout') {
      owner.timeoutTimer = clock.setTimer(delay, () => world.expire(owner));
    } else {
      const td = owner.devices.get(timer.device_id)!;
      td.timer = clock.setTimer(delay, () => world.deliveries.play(owner, td));
    }
  }
}

/** A task as it was, its devices' progress included (the checks made sure they exist). */
function task(record: SnapshotTask, devices: Device[]): Task {
  const saved = record.devices;
  const ended = record.state === 'ended';
  // An ended task keeps its devices packed (EndedRecipients): none is made a TaskDevice first.
  const restored = newTask(record.task_id, record.serial, record.subscriber_id, record.request, {
    devices: ended ? [] : devices,
    now: record.created_at,
  });
  restored.quorum = record.request.quorum ?? devices.length;
  restored.state = record.state;
  restored.outcome = record.outcome;
  restored.endedAt = record.ended_at;
  restored.acks = record.acknowledgements;
  if (ended) {
    restored.recipients = EndedRecipients.fromColumns(devices, saved.status, saved.plays);
    return restored;
  }
  restored.devices.values().forEach((td, i) => {
    td.status = saved.status[i]!;
    td.plays = saved.plays[i]!;
    td.lastPlayed = saved.last_played[i]!;
  });
  return restored;
}

type TaskDeviceStatus = SnapshotTaskDevices['status'][number];
