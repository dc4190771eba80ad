/**
 * What `badge-sim diff` compares of a world: each shape of snapshot (a stub's, a fleet's)
 * made the same plain view — its instant, tasks, events, devices, badges and generators —
 * so the diff (world-diff.ts) knows no shape. A new shape (a stub and its badges in one file)
 * is one more function here and one more row of `SHAPES` (run-diff.ts). Pure: no files.
 */

import type { WorldSnapshot } from '../protocol/snapshot.schema.ts';
import { formatMicros } from '../protocol/timestamp.ts';
import type { SavedFleet } from '../simulator/snapshot/fleet-snapshot.ts';

export interface TaskFacts {
  name: string;
  account: string;
  state: string;
  outcome: string | null;
  acknowledgements: number;
  /** Each device's status in the task: queued, playing, acknowledged, stopped. */
  devices: Record<string, string>;
}

export interface BadgeFacts {
  /** The machine's state: offline, connecting, online.playing… */
  state: string;
  /** The clip it plays, and how far into it; null when silent. */
  clip: string | null;
  battery: number;
}

export interface WorldView {
  /** What it is a snapshot of, as the diff says it: "a stub's world", "a fleet's badges". */
  kind: string;
  /** Its instant, ms since the epoch. */
  at: number;
  tasks?: Map<string, TaskFacts>;
  /** Each account's events, oldest first, as one line each (the id first). */
  events?: Map<string, string[]>;
  devices?: Map<string, { online: boolean; battery: number | null }>;
  badges?: Map<string, BadgeFacts>;
  /** Each seeded generator's state, by what it draws for (JSON text). */
  generators?: Map<string, string>;
}

/** A stub's world snapshot (checked) as a view. */
export function stubView(snapshot: WorldSnapshot): WorldView {
  const tasks = new Map<string, TaskFacts>();
  for (const task of snapshot.engine.tasks) {
    const devices: Record<string, string> = {};
    task.devices.device_id.forEach((id, i) => {
      devices[id] = task.devices.status[i]!;
    });
    tasks.set(task.task_id, {
      name: task.request.name ?? '',
      account: task.subscriber_id,
      state: task.state,
      outcome: task.outcome ?? null,
      acknowledgements: task.acknowledgements,
      devices,
    });
  }
  const events = new Map<string, string[]>();
  for (const log of snapshot.events) {
    events.set(
      log.subscriber_id,
      log.event_id.map((id, i) => {
        const kind = log.kinds[log.kind[i]!]!;
        const task = log.tasks[log.task[i]!]!;
        const content = kind.content as { type?: string; device?: string };
        const by = content.device ? ` by ${content.device}` : '';
        return `${id}: ${kind.category} ${content.type ?? ''}${by}, task ${task.id} (${task.name}), at ${formatMicros(log.at[i]!)}`;
      }),
    );
  }
  const devices = new Map(
    snapshot.devices.map((d) => [d.device_id, { online: d.online, battery: d.battery_level }]),
  );
  const generators = new Map([['task and event ids', JSON.stringify(snapshot.ids)]]);
  for (const fault of snapshot.faults.list)
    generators.set(`fault ${fault.id}'s draws`, JSON.stringify(fault));
  return { kind: "a stub's world", at: snapshot.clock.now, tasks, events, devices, generators };
}

/** A fleet's snapshot (checked) as a view. */
export function fleetView(snapshot: SavedFleet): WorldView {
  const badges = new Map<string, BadgeFacts>();
  const generators = new Map<string, string>([['the fleet seed', String(snapshot.seed)]]);
  for (const badge of snapshot.badges) {
    const { value, context } = badge.machine;
    const current = context.current;
    const elapsed = badge.clip ? `, ${Math.round(badge.clip.elapsedMs)} ms in` : '';
    badges.set(badge.deviceId, {
      state: typeof value === 'string' ? value : `online.${stateName(value.online)}`,
      clip: current ? `"${current.text}" (task ${current.taskId}${elapsed})` : null,
      battery: context.batteryLevel,
    });
    generators.set(`badge ${badge.deviceId}'s draws`, JSON.stringify(badge.random));
  }
  return { kind: "a fleet's badges", at: snapshot.at, badges, generators };
}

/** A machine's inner state value (a name, or nested states) as dotted words. */
function stateName(value: unknown): string {
  if (typeof value === 'string') return value;
  return Object.entries(value as Record<string, unknown>)
    .map(([key, inner]) => `${key}.${stateName(inner)}`)
    .join(',');
}
