/**
 * Random schedules for the property tests (fast-check): alerts of two names with various
 * quorums and timeouts, taps, cancels, drops, returns and clock jumps, as model inputs; and
 * the invariants every history of the service must keep, checked on what an engine recorded.
 */
import fc from 'fast-check';
import { stringify } from 'yaml';
import type { ModelInput } from '../../model/lifecycle-state.ts';
import { scheduleScenario } from '../../scenarios/format/from-model.ts';

export const DEVICES = 3;
/** Past the longest timeout a schedule can ask for: every task has ended by then. */
const SETTLE_MS = 330_000;

type Op =
  | { kind: 'post'; name: string; quorum: number | undefined; timeout: number }
  | { kind: 'tap' | 'drop' | 'return'; device: number }
  | { kind: 'delete'; task: number };

const device = fc.integer({ min: 0, max: DEVICES - 1 });
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    arbitrary: fc.record({
      kind: fc.constant('post' as const),
      name: fc.constantFrom('x', 'y'),
      quorum: fc.constantFrom(undefined, 1, 2, 3, 4),
      timeout: fc.constantFrom(30, 45, 60, 90, 300),
    }),
    weight: 3,
  },
  { arbitrary: fc.record({ kind: fc.constant('tap' as const), device }), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constant('delete' as const), task: fc.nat(7) }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('drop' as const), device }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('return' as const), device }), weight: 2 },
);
/**
 * Time before an input: mostly a few seconds (alerts overlap), often nothing or a repeat's
 * boundary, sometimes any ms up to a minute, rarely a long jump.
 */
const gap = fc.oneof(
  { arbitrary: fc.integer({ min: 0, max: 10_000 }), weight: 6 },
  { arbitrary: fc.constantFrom(0, 1_000, 5_000, 29_000, 30_000, 31_000, 60_000), weight: 4 },
  { arbitrary: fc.integer({ min: 0, max: 60_000 }), weight: 2 },
  { arbitrary: fc.constantFrom(300_000, 3_600_000), weight: 1 },
);

/** A schedule: model inputs in time order, ending with a run past every timeout. */
export const schedule: fc.Arbitrary<ModelInput[]> = fc
  .array(fc.tuple(gap, op), { minLength: 1, maxLength: 20 })
  .map((ops) => {
    const inputs: ModelInput[] = [];
    let at = 0;
    let posted = 0;
    for (const [wait, o] of ops) {
      at += wait;
      if (o.kind === 'post') {
        inputs.push({
          type: 'POST',
          at,
          task: `t${posted++}`,
          name: o.name,
          timeout: o.timeout,
          ...(o.quorum === undefined ? {} : { quorum: o.quorum }),
        });
      } else if (o.kind === 'delete') {
        if (posted > 0) inputs.push({ type: 'DELETE', at, task: `t${o.task % posted}` });
      } else {
        const type = o.kind === 'tap' ? 'TAP' : o.kind === 'drop' ? 'DROP' : 'RETURN';
        inputs.push({ type, at, device: o.device });
      }
    }
    inputs.push({ type: 'ADVANCE', to: at + SETTLE_MS });
    return inputs;
  });

/** An analytic event as the properties see it: its task's key, ms from the start. */
export interface SeenEvent {
  type: string;
  task: string;
  at: number;
  device?: string;
  status?: string;
}

export interface SeenTask {
  key: string;
  createdAt: number;
  timeoutMs: number;
  quorum: number;
  /** Devices the service sent a play of this task. */
  reached: number;
}

/**
 * The invariants of issue 18 on one history; returns what broke, in words (empty: none).
 * `events` is the order the service recorded them in.
 */
export function brokenInvariants(
  events: readonly SeenEvent[],
  tasks: readonly SeenTask[],
): string[] {
  const broken: string[] = [];
  const known = new Set(tasks.map((t) => t.key));
  for (const e of events)
    if (!known.has(e.task)) broken.push(`an event of no task: ${JSON.stringify(e)}`);
  for (const task of tasks) {
    const mine = events.filter((e) => e.task === task.key);
    const count = (type: string) => mine.filter((e) => e.type === type).length;
    const where = `task ${task.key}`;
    if (count('start') !== 1) broken.push(`${where}: ${count('start')} start events`);
    if (count('end') !== 1)
      broken.push(`${where}: ${count('end')} end events (the schedule runs past every timeout)`);
    if (mine[0]?.type !== 'start') broken.push(`${where}: its first event is not start`);
    mine.forEach((e, i) => {
      if (i > 0 && e.at < mine[i - 1]!.at)
        broken.push(
          `${where}: ${e.type} at ${e.at} ms comes after ${mine[i - 1]!.type} at ${mine[i - 1]!.at} ms`,
        );
    });
    const acks = mine.filter((e) => e.type === 'acknowledged');
    if (acks.length > task.reached)
      broken.push(`${where}: ${acks.length} acknowledgements from ${task.reached} devices reached`);
    if (new Set(acks.map((a) => a.device)).size !== acks.length)
      broken.push(`${where}: a device acknowledged twice`);
    const endIndex = mine.findIndex((e) => e.type === 'end');
    if (endIndex >= 0 && endIndex !== mine.length - 1)
      broken.push(`${where}: ${mine[endIndex + 1]!.type} after its end`);
    const timedOut = mine.findIndex((e) => e.type === 'timed_out');
    if (timedOut >= 0) {
      const e = mine[timedOut]!;
      if (e.at !== task.createdAt + task.timeoutMs)
        broken.push(
          `${where}: timed_out at ${e.at} ms, not at its timeout ${task.createdAt + task.timeoutMs} ms`,
        );
      if (mine[timedOut + 1]?.type !== 'end' || mine[timedOut + 1]!.at !== e.at)
        broken.push(`${where}: timed_out is not right before its end`);
    }
    if (acks.length >= task.quorum) {
      const quorumAt = acks[task.quorum - 1]!.at;
      const end = mine[endIndex];
      if (!end || end.at !== quorumAt || end.status !== 'normal' || timedOut >= 0)
        broken.push(
          `${where}: quorum ${task.quorum} met at ${quorumAt} ms but the end is ${JSON.stringify(end)}`,
        );
    }
  }
  return broken;
}

/** A failing schedule as a scenario file that reproduces it (the model's prediction expected). */
export function reproScenario(inputs: readonly ModelInput[], why: string): string {
  const end = inputs.at(-1)!;
  const scenario = scheduleScenario(
    inputs.filter((i) => i.type !== 'ADVANCE'),
    {
      devices: DEVICES,
      endAt: end.type === 'ADVANCE' ? end.to : end.at,
      name: 'A random schedule that broke a property',
      lead: `Found by the property tests (${why.slice(0, 200)}); ${DEVICES} badges`,
      tags: ['generated', 'property'],
    },
  );
  return stringify(scenario, { lineWidth: 0 });
}
