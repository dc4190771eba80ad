/**
 * An alert task's state after each change, as a trace keeps it (`alert` records, TR6): told
 * by the engine's events, only while a trace is written.
 */

import type { AnalyticEvent } from '../protocol/service-api.schema.ts';
import { formatMicros, parseTimestamp } from '../protocol/timestamp.ts';
import type { AlertRecordFields } from '../protocol/trace.schema.ts';
import type { AlertEngine } from './engine/alert-engine.ts';
import type { TaskSnapshot } from './engine/task-record.ts';
import type { SessionRecorder } from './recorder.ts';

/** Records the state of the task of `event` after it (TR6). */
export function traceAlert(
  recorder: SessionRecorder,
  engine: AlertEngine,
  event: AnalyticEvent,
): void {
  const fields = alertRecord(engine.task(event.task.id), event);
  if (fields) recorder.add('alert', { ...fields });
}

/** The `alert` record of `task` after `event`, or undefined for an event of no alert task. */
function alertRecord(
  task: TaskSnapshot | undefined,
  event: AnalyticEvent,
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
    cause: String(event.content.type),
    state: task.state,
    outcome: task.outcome,
    quorum: task.quorum,
    acknowledgements: task.acknowledgements,
    timeout_at:
      task.state === 'ended' || created === undefined
        ? null
        : formatMicros(created + task.timeout * 1_000_000),
    acknowledged,
    pending,
  };
}
