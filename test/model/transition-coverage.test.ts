/**
 * The alert model's named transitions (model/transitions.ts, decision CV2): every one can be
 * taken, and reading them back from a history (model/observe.ts, what `run --coverage` does
 * with a run's stub) finds exactly the ones the model took, over random schedules.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { transitionsTaken } from '../../model/alert.model.ts';
import { serviceConfig } from '../../model/configs.ts';
import type { ModelInput } from '../../model/lifecycle-state.ts';
import { historyOfModel, type ServiceHistory, transitionsIn } from '../../model/observe.ts';
import { lifecycleTransitions } from '../../model/transitions.ts';
import { GENERATED_TEXTS, GENERATED_USERS } from '../../scenarios/format/from-model.ts';
import { type EngineRun, runOnEngine } from './engine-run.ts';
import { DEVICES, schedule } from './schedules.ts';

const users = GENERATED_USERS.slice(0, DEVICES);
const config = serviceConfig(users, GENERATED_TEXTS);
const RUNS = Number(process.env.BADGE_SIM_PROPERTY_RUNS ?? 2_000);

/** Some taps name a task posted before them, as a badge's late or repeated button frame does. */
const withNamedTaps = fc
  .tuple(schedule, fc.array(fc.nat(7), { maxLength: 20 }))
  .map(([inputs, picks]): ModelInput[] => {
    const posted: string[] = [];
    let tap = 0;
    return inputs.map((input) => {
      if (input.type === 'POST') posted.push(input.task);
      if (input.type !== 'TAP' || posted.length === 0) return input;
      const pick = picks[tap++];
      return pick === undefined || pick % 2 === 0
        ? input
        : { ...input, task: posted[pick % posted.length]! };
    });
  });

const s = (seconds: number) => seconds * 1000;

/**
 * What the history shows, and what the model took. A history orders a drop after whatever was
 * sent that device at the same instant (decision CV2), so where a drop shares its instant with
 * a line sent that device, whether it came mid-alert is not compared.
 */
function readAndTaken(
  inputs: ModelInput[],
  engine?: EngineRun,
): { read: string[]; taken: string[] } {
  const { taken, final } = transitionsTaken(config, inputs);
  const history = engine ? historyOfEngine(inputs, engine) : historyOfModel(final, users);
  const tie = history.links.some(
    (l) => !l.online && history.sent.get(l.device)!.some((line) => line.at === l.at),
  );
  const compared = (ids: Iterable<string>) =>
    [...ids].filter((id) => !(tie && id === 'dropped-mid-alert')).sort();
  return { read: compared(transitionsIn(history)), taken: compared(taken) };
}

/** Schedules a tester would write for the rarer transitions. */
const HAND_WRITTEN: ModelInput[][] = [
  // L1a: two alerts of one name at 0 s, default timeout: the second never plays.
  [
    { type: 'POST', at: 0, task: 'a', name: 'x' },
    { type: 'POST', at: 0, task: 'b', name: 'x' },
    { type: 'ADVANCE', to: s(400) },
  ],
  // L8, L5, L6 by named taps; a drop and a return mid-alert; a 409 DELETE.
  [
    { type: 'POST', at: 0, task: 'a', name: 'x', quorum: 2, timeout: 120 },
    { type: 'POST', at: s(1), task: 'b', name: 'x', timeout: 60 },
    { type: 'TAP', at: s(2), device: 0, task: 'b' },
    { type: 'TAP', at: s(3), device: 0, task: 'a' },
    { type: 'TAP', at: s(4), device: 0, task: 'a' },
    { type: 'DROP', at: s(5), device: 1 },
    { type: 'RETURN', at: s(6), device: 1 },
    { type: 'TAP', at: s(7), device: 1 },
    { type: 'TAP', at: s(8), device: 1, task: 'a' },
    { type: 'DELETE', at: s(9), task: 'a' },
    { type: 'ADVANCE', to: s(400) },
  ],
];

/** What an engine recorded, as `run --coverage` reads a stub's (devices named by their users). */
function historyOfEngine(inputs: ModelInput[], run: EngineRun): ServiceHistory {
  const posts = inputs.filter((i) => i.type === 'POST');
  const deletes = inputs.filter((i) => i.type === 'DELETE');
  return {
    tasks: run.tasks.map((t) => ({
      key: t.key,
      name: posts.find((p) => p.task === t.key)?.name ?? 'alerts',
      createdAt: t.createdAt,
      devices: [...users],
    })),
    users: new Map(users.map((u) => [u, u])),
    events: run.events,
    sent: new Map(users.map((u, d) => [u, run.sent[d]!])),
    deletes: run.deletes.map((status, i) => ({
      task: deletes[i]!.task,
      at: deletes[i]!.at,
      status,
    })),
    taps: run.taps.map((t) => ({ ...t, device: users[t.device]! })),
    links: run.links.map((l) => ({ ...l, device: users[l.device]! })),
  };
}

describe('the alert model’s named transitions', () => {
  test('every one is taken by some schedule, and each is read back from the history', () => {
    const all = new Set<string>();
    const runs = [...HAND_WRITTEN, ...fc.sample(withNamedTaps, { numRuns: 500, seed: 18 })];
    for (const inputs of runs) {
      for (const id of transitionsTaken(config, inputs).taken) all.add(id);
      const { read, taken } = readAndTaken(inputs);
      expect(read, JSON.stringify(inputs)).toEqual(taken);
    }
    expect(lifecycleTransitions().filter((id) => !all.has(id))).toEqual([]);
  });

  test(`${RUNS} random schedules: what a history shows is exactly what the model took`, () => {
    fc.assert(
      fc.property(withNamedTaps, (inputs) => {
        const { read, taken } = readAndTaken(inputs);
        expect(read, JSON.stringify(inputs)).toEqual(taken);
      }),
      { numRuns: RUNS, seed: Number(process.env.BADGE_SIM_PROPERTY_SEED ?? Date.now() % 2 ** 31) },
    );
  });

  test(`${RUNS / 4} random schedules on the engine: what its history shows is exactly what the model took`, async () => {
    await fc.assert(
      fc.asyncProperty(withNamedTaps, async (inputs) => {
        const { read, taken } = readAndTaken(inputs, await runOnEngine(inputs));
        expect(read, JSON.stringify(inputs)).toEqual(taken);
      }),
      {
        numRuns: RUNS / 4,
        seed: Number(process.env.BADGE_SIM_PROPERTY_SEED ?? Date.now() % 2 ** 31),
      },
    );
  }, 60_000);
});
