/** The event store keeps events in shared pieces (decision H5): what it answers is unchanged. */
import { expect, test } from 'vitest';
import { formatTimestamp } from '../../clock/clock.ts';
import type { AnalyticEvent } from '../../protocol/service-api.schema.ts';
import { toMicros } from '../../protocol/timestamp.ts';
import { EventStore } from './event-store.ts';

const T0 = Date.UTC(2026, 0, 1);
const TASK_TYPE = { major: 1, minor: 4, name: 'alerts', namespace: 'system' };

function event(
  at: number,
  i: number,
  content: AnalyticEvent['content'],
  task = 'T1',
): AnalyticEvent {
  return {
    category: 'tasks',
    content,
    task: { id: task, name: 'alerts "night"', task_type: TASK_TYPE },
    event_id: i.toString(16).padStart(32, '0'),
    timestamp: formatTimestamp(at),
  };
}

test('answers byte for byte what JSON.stringify writes of the events, in order', () => {
  const store = new EventStore(7 * 24 * 3600 * 1000);
  const events: AnalyticEvent[] = [];
  const kinds: AnalyticEvent['content'][] = [
    { type: 'start' },
    { type: 'acknowledged', device: 'Ada Mensah' },
    { type: 'acknowledged', device: 'Zoë "Z" Ünal' },
    { type: 'timed_out' },
    { type: 'end', status: 'normal' },
    { type: 'end', status: 'cancelled' },
  ];
  for (let i = 0; i < 200; i++) {
    // Instants with sub-millisecond parts too (a running clock), and tasks that interleave.
    const at = T0 + i * 250.5;
    const e = event(at, i, kinds[i % kinds.length]!, `T${i % 70}`);
    events.push(e);
    store.append('100001', at, e);
  }
  const now = T0 + 200 * 250.5;
  // `oldest` is whole microseconds, as a timestamp is read.
  expect(store.queryJson('100001', toMicros(T0), 100, now)).toBe(
    JSON.stringify(events.slice(0, 100)),
  );
  expect(store.queryJson('100001', toMicros(T0 + 100 * 250.5), 100, now)).toBe(
    JSON.stringify(events.slice(100, 200)),
  );
  expect(store.query('100001', toMicros(T0), 5, now)).toEqual(events.slice(0, 5));
});

test('keeps at most its cap of events an account: the oldest go first, before their 7 days, and are counted', () => {
  const store = new EventStore(7 * 24 * 3600 * 1000, 5);
  for (let i = 0; i < 12; i++) store.append('A', T0 + i, event(T0 + i, i, { type: 'start' }));
  store.append('B', T0, event(T0, 99, { type: 'start' }));
  const kept = store.query('A', toMicros(T0), 100, T0 + 20);
  expect(kept.map((e) => e.event_id)).toEqual(
    [7, 8, 9, 10, 11].map((i) => i.toString(16).padStart(32, '0')),
  );
  expect(store.count('B', T0 + 20)).toBe(1);
  expect(store.droppedEarly).toBe(7);
  store.clear();
  expect(store.droppedEarly).toBe(0);
});

test('a cap of 50,000 an account by default (decision V8), dropping past it for as long as events come', () => {
  const store = new EventStore(7 * 24 * 3600 * 1000);
  expect(store.cap).toBe(50_000);
  for (let i = 0; i < 120_000; i++) store.append('A', T0 + i, event(T0 + i, i, { type: 'start' }));
  expect(store.count('A', T0 + 120_000)).toBe(50_000);
  expect(store.stats().events).toBe(50_000);
  expect(store.droppedEarly).toBe(70_000);
  const [first] = store.query('A', toMicros(T0), 1, T0 + 120_000);
  expect(first!.event_id).toBe((70_000).toString(16).padStart(32, '0'));
});

test('a task piece kept by the caller (as the engine keeps one a task) answers what JSON.stringify writes', () => {
  const store = new EventStore(7 * 24 * 3600 * 1000);
  const frozenType = Object.freeze({ ...TASK_TYPE });
  const tasks: AnalyticEvent['task'][] = [
    { id: 'T1', name: 'alerts', task_type: frozenType },
    { id: 'T2', name: 'night "shift" \\ Zoë \u0001 \ud83d\ude91', task_type: frozenType },
    { id: 'T3', name: 'alerts', task_type: { ...TASK_TYPE } },
    // Another shape (key order) than the engine's: written by JSON.stringify as it stands.
    { name: 'alerts', id: 'T4', task_type: frozenType } as AnalyticEvent['task'],
  ];
  const events: AnalyticEvent[] = [];
  for (let i = 0; i < 12; i++) {
    const task = tasks[i % tasks.length]!;
    const e: AnalyticEvent = { ...event(T0 + i, i, { type: 'start' }), task };
    events.push(e);
    store.append('100001', T0 + i, e, store.taskPiece(task));
  }
  expect(store.queryJson('100001', toMicros(T0), 100, T0 + 12)).toBe(JSON.stringify(events));
  expect(store.query('100001', toMicros(T0 + 5), 100, T0 + 12)).toEqual(events.slice(5));
});

test('a window answers from its first event at or after oldest, past expired and dropped ones', () => {
  const store = new EventStore(1000, 5);
  for (let i = 0; i < 9; i++)
    store.append('A', T0 + i * 100, event(T0 + i * 100, i, { type: 'start' }));
  // Kept: 4..8 (cap 5). At T0 + 1450 the retention starts at T0 + 450: 5..8 remain.
  const ids = (oldest: number) =>
    store.query('A', toMicros(oldest), 100, T0 + 1450).map((e) => Number.parseInt(e.event_id, 16));
  expect(ids(T0)).toEqual([5, 6, 7, 8]);
  expect(ids(T0 + 500)).toEqual([5, 6, 7, 8]);
  expect(ids(T0 + 501)).toEqual([6, 7, 8]);
  expect(ids(T0 + 800)).toEqual([8]);
  expect(ids(T0 + 801)).toEqual([]);
});

test('a window as bytes is its JSON in UTF-8, encoded once while it stands and again once events change', () => {
  const store = new EventStore(7 * 24 * 3600 * 1000);
  const first = event(T0, 1, { type: 'acknowledged', device: 'Zoë "Z" Ünal' });
  store.append('100001', T0, first);
  const bytes = store.queryBytes('100001', toMicros(T0), 100, T0);
  expect(bytes.toString()).toBe(JSON.stringify([first]));
  expect(store.queryBytes('100001', toMicros(T0), 100, T0)).toBe(bytes);
  const second = event(T0 + 1, 2, { type: 'start' });
  store.append('100001', T0 + 1, second);
  const after = store.queryBytes('100001', toMicros(T0), 100, T0 + 1);
  expect(after.toString()).toBe(JSON.stringify([first, second]));
  expect(bytes.toString()).toBe(JSON.stringify([first])); // what was sent is never changed
  expect(store.queryBytes('nobody', toMicros(T0), 100, T0).toString()).toBe('[]');
});
