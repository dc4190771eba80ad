/**
 * Invariants over random schedules (issue 18, point 3): fast-check drives the alert engine
 * (a `StubCore` in this process, on its virtual clock) through alerts of two names, taps,
 * cancels, drops, returns and clock jumps; after each schedule the invariants of
 * `schedules.ts` must hold and the model (model/) must predict exactly the events and every
 * command the engine sent each device. A failure is shrunk and printed as a scenario file.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { ModelInput } from '../../model/lifecycle-state.ts';
import { problems, runOnEngine } from './engine-run.ts';
import { reproScenario, schedule } from './schedules.ts';

/** 5,000 schedules each run (issue 18 asks for at least 1,000 in CI); BADGE_SIM_PROPERTY_RUNS asks for more. */
const RUNS = Number(process.env.BADGE_SIM_PROPERTY_RUNS ?? 5_000);
/** A schedule to try first (a JSON file of model inputs, as a failure prints it). */
const EXAMPLE = process.env.BADGE_SIM_PROPERTY_EXAMPLE;
/**
 * Schedules that once broke a property, always tried first. This one found MB2: a badge back
 * online had its alerts replayed lane by lane, and the tap went to an older alert.
 */
const REGRESSIONS: ModelInput[][] = [
  [
    { type: 'POST', at: 0, task: 't0', name: 'x', timeout: 90 },
    { type: 'POST', at: 1000, task: 't1', name: 'y', timeout: 90 },
    { type: 'POST', at: 2000, task: 't2', name: 'x', timeout: 90 },
    { type: 'TAP', at: 30500, device: 0 },
    { type: 'DROP', at: 40000, device: 0 },
    { type: 'RETURN', at: 41000, device: 0 },
    { type: 'TAP', at: 42000, device: 0 },
    { type: 'ADVANCE', to: 200000 },
  ],
];
describe('invariants over random schedules', () => {
  test(`${RUNS} schedules on the engine keep every invariant and agree with the model`, async () => {
    const started = performance.now();
    const result = await fc.check(
      fc.asyncProperty(schedule, async (inputs) => {
        const found = problems(inputs, await runOnEngine(inputs));
        if (found.length > 0) throw new Error(found.join('\n'));
      }),
      {
        numRuns: RUNS,
        examples: [
          ...(EXAMPLE ? [JSON.parse(readFileSync(EXAMPLE, 'utf8'))] : []),
          ...REGRESSIONS,
        ].map((e) => [e] as [ModelInput[]]),
        seed: Number(process.env.BADGE_SIM_PROPERTY_SEED ?? Date.now() % 2 ** 31),
      },
    );
    console.log(
      `badge-sim properties: ${result.numRuns} schedules on the engine in ${Math.round(performance.now() - started)} ms (seed ${result.seed})`,
    );
    if (result.failed) {
      const inputs = result.counterexample![0];
      const why = String(
        (result.errorInstance as Error | undefined)?.message ?? result.errorInstance,
      );
      console.error(
        `badge-sim properties: a schedule broke a property (seed ${result.seed}, path ${result.counterexamplePath}), shrunk to:\n${JSON.stringify(inputs)}\n${why}\n--- as a scenario file ---\n${reproScenario(inputs, why.split('\n')[0]!)}`,
      );
    }
    expect(result.failed, 'see the scenario printed above').toBe(false);
  }, 120_000);
});
