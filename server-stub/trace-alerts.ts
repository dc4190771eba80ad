/**
 * An alert task's state after each change, as a trace keeps it (`alert` records, TR6): told
 * by the engine's events, and after each turn in which it played or repeated on devices (its
 * next repeat moved, TR10), only while a trace is written.
 */

import type { VirtualClock } from '../clock/clock.ts';
import type { AnalyticEvent } from '../protocol/service-api.schema.ts';
import { formatMicros, formatTimestamp, parseTimestamp } from '../protocol/timestamp.ts';
import type { AlertRecordFields } from '../protocol/trace.schema.ts';
import type { AlertEngine } from './engine/alert-engine.ts';
import type { DeviceCommand } from './engine/device-command.ts';
import type { TaskSnapshot } from './engine/task-record.ts';
import type { SessionRecorder } from './recorder.ts';

/** What an `alert` record is read from. */
interface TracedStub {
  readonly recorder: SessionRecorder;
  readonly engine: AlertEngine;
  readonly clock: VirtualClock;
}

/** Records the state of the task of `event` after it (TR6). */
export function traceAlert(stub: TracedStub, event: AnalyticEvent): void {
  recordAlert(stub, event.task.id, String(event.content.type));
}

function recordAlert(
  stub: TracedStub,
  taskId: string,
  cause: string,
  next = nextRepeat(stub, taskId),
): void {
  const fields = alertRecord(stub.engine.task(taskId), cause, next);
  if (fields) stub.recorder.add('alert', { ...fields });
}

/**
 * After a turn in which the task played: its `alert` record only if its next repeat moved.
 * The devices of a fan-out repeat one timer each at one instant: one record, not one each.
 */
function recordPlayed(stub: TracedStub, taskId: string, told: Map<string, string | null>): void {
  const next = nextRepeat(stub, taskId);
  if (told.get(taskId) === next) return;
  // Bounded: forgetting only costs a record that tells what the last one did.
  if (told.size >= TOLD_MAX) told.clear();
  told.set(taskId, next);
  recordAlert(stub, taskId, 'play', next);
}

/** Tasks whose last told next repeat is remembered at most. */
const TOLD_MAX = 10_000;

/**
 * While a trace is written, an `alert` record (cause `play`) of each task that played on
 * devices in a turn, once the turn is over (its repeat timers are set then, TR10). The
 * listener is the engine's only while traced: a stub nobody traces pays nothing a delivery.
 * Returns the function that stops it.
 */
export function tracePlays(stub: TracedStub): () => void {
  // Two traces of one stub at once share one listener: each `play` record is made once.
  const shared = playListeners.get(stub);
  if (shared) {
    shared.traces++;
    return () => release(stub);
  }
  playListeners.set(stub, { traces: 1, stop: listenToPlays(stub) });
  return () => release(stub);
}

const playListeners = new WeakMap<TracedStub, { traces: number; stop: () => void }>();

function release(stub: TracedStub): void {
  const shared = playListeners.get(stub);
  if (shared === undefined || --shared.traces > 0) return;
  shared.stop();
  playListeners.delete(stub);
}

function listenToPlays(stub: TracedStub): () => void {
  const played = new Set<string>();
  /** The next repeat each task's last `play` record told. */
  const told = new Map<string, string | null>();
  let last: DeviceCommand | undefined;
  const flush = () => {
    last = undefined;
    for (const taskId of played) recordPlayed(stub, taskId, told);
    played.clear();
  };
  return stub.engine.onDeliver((_device, command) => {
    // A fan-out gives every device one command object: one look a turn, not one a device.
    if (command === last || command.type !== 'play') return;
    last = command;
    if (played.size === 0) queueMicrotask(flush);
    played.add(command.taskId);
  });
}

/** The earliest repeat the engine keeps for the task on any of its devices (µs), or null. */
function nextRepeat({ engine, clock }: TracedStub, taskId: string): string | null {
  const task = engine.world().tasks.get(taskId);
  if (task === undefined || task.state !== 'alerting') return null;
  let earliest = Number.POSITIVE_INFINITY;
  for (const td of task.devices.values()) {
    const due = clock.timerInfo(td.timer)?.due;
    if (due !== undefined && due < earliest) earliest = due;
  }
  return earliest === Number.POSITIVE_INFINITY ? null : formatTimestamp(earliest);
}

/** The `alert` record of `task` after `cause`, or undefined for no alert task. */
function alertRecord(
  task: TaskSnapshot | undefined,
  cause: string,
  nextRepeatAt: string | null,
): AlertRecordFields | undefined {
  if (task === undefined) return undefined;
  const acknowledged: string[] = [];
  const pending: string[] = [];
  for (const device of task.devices) {
    if (device.status === 'acknowledged') acknowledged.push(device.device_id);
    else if (device.status === 'queued' || device.status === 'playing')
      pending.push(device.device_id);
  }
  const created = parseTimestamp(task.created_at);
  return {
    account: task.subscriber_id,
    task_id: task.task_id,
    name: task.name,
    cause,
    state: task.state,
    outcome: task.outcome,
    quorum: task.quorum,
    acknowledgements: task.acknowledgements,
    timeout_at:
      task.state === 'ended' || created === undefined
        ? null
        : formatMicros(created + task.timeout * 1_000_000),
    next_repeat_at: nextRepeatAt,
    acknowledged,
    pending,
  };
}
