/**
 * The event store in a world snapshot, as columns (WS19): an account's events are a table of
 * kinds (category and content) and one of tasks, and four arrays (kind, task, id, instant).
 * The store keeps each event as shared JSON pieces (event-store.ts), so taking and restoring
 * map pieces to table rows and back: no event is made an object, parsed or written whole.
 */

import type { AnalyticEvent } from '../../protocol/service-api.schema.ts';
import type { SnapshotEventLog } from '../../protocol/snapshot.schema.ts';
import type { EventStore, StoredEvent } from '../engine/event-store.ts';

/** What follows a task's JSON in its piece (`taskPiece`). */
const AFTER_TASK = ',"event_id":"';
/** What a head piece lacks to be a JSON object: its `task`'s value and the closing brace. */
const HEAD_END = 'null}';

/** Every account's retained events at `now`, as columns. */
export function eventColumns(store: EventStore, now: number): SnapshotEventLog[] {
  return store.retained(now).map(({ subscriberId, events }) => {
    const kinds = new Map<string, number>();
    const tasks = new Map<string, number>();
    const log: SnapshotEventLog = {
      subscriber_id: subscriberId,
      kinds: [],
      tasks: [],
      kind: new Array(events.length),
      task: new Array(events.length),
      event_id: new Array(events.length),
      at: new Array(events.length),
    };
    events.forEach((event, i) => {
      log.kind[i] = indexOf(kinds, event.head);
      log.task[i] = indexOf(tasks, event.task);
      log.event_id[i] = event.eventId;
      log.at[i] = event.at;
    });
    for (const head of kinds.keys()) {
      const { category, content } = JSON.parse(head + HEAD_END) as AnalyticEvent;
      log.kinds.push({ category, content });
    }
    for (const piece of tasks.keys())
      log.tasks.push(JSON.parse(piece.slice(0, -AFTER_TASK.length)) as AnalyticEvent['task']);
    return log;
  });
}

function indexOf(table: Map<string, number>, piece: string): number {
  let index = table.get(piece);
  if (index === undefined) {
    index = table.size;
    table.set(piece, index);
  }
  return index;
}

/** Puts checked columns back into a store just cleared: each kind and task written once. */
export function restoreEventColumns(store: EventStore, logs: readonly SnapshotEventLog[]): void {
  for (const log of logs) {
    const heads = log.kinds.map((kind) => store.headOf(kind));
    const pieces = log.tasks.map((task) => store.taskPiece(task));
    const events: StoredEvent[] = new Array(log.at.length);
    for (let i = 0; i < events.length; i++) {
      events[i] = {
        at: log.at[i]!,
        head: heads[log.kind[i]!]!,
        task: pieces[log.task[i]!]!,
        eventId: log.event_id[i]!,
      };
    }
    store.restoreStored(log.subscriber_id, events);
  }
}
