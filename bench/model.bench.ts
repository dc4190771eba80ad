/**
 * `npm run bench:model`: the model-based testing figures of issue 18. The number of paths
 * `badge-sim generate` finds for 2, 3 and 4 badges (quorum default,1,2, every --with feature)
 * and the time to enumerate them; the wall time of the generated 3-badge suite on the
 * embedded stub; and of 1,000 random schedules on the engine, checked against the invariants
 * and the model. Markdown on stdout.
 */
import fc from 'fast-check';
import { enumeratePaths, FEATURES } from '../model/paths.ts';
import { generatedConfig, scenarioOf } from '../scenarios/format/from-model.ts';
import { defineScenario } from '../scenarios/format/load-scenario.ts';
import { runSuite } from '../scenarios/runner/run-suite.ts';
import { problems, runOnEngine } from '../test/model/engine-run.ts';
import { schedule } from '../test/model/schedules.ts';

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const spec = (devices: number) => ({
  devices,
  quorums: ['default', 1, 2] as const,
  features: FEATURES,
});

console.log('| badges | paths | enumerated in |\n|---|---|---|');
for (const devices of [2, 3, 4]) {
  const started = performance.now();
  const paths = enumeratePaths(spec(devices), generatedConfig(devices));
  console.log(`| ${devices} | ${paths.length} | ${seconds(performance.now() - started)} |`);
}

const paths = enumeratePaths(spec(3), generatedConfig(3));
const suiteStarted = performance.now();
const summary = await runSuite(
  paths.map((path, i) => defineScenario(scenarioOf(path, 3, i))),
  { reporters: [] },
);
const suiteMs = performance.now() - suiteStarted;
if (summary.failed > 0) throw new Error(`${summary.failed} generated scenarios failed`);

const RUNS = 1_000;
const propertyStarted = performance.now();
const result = await fc.check(
  fc.asyncProperty(schedule, async (inputs) => {
    const found = problems(inputs, await runOnEngine(inputs));
    if (found.length > 0) throw new Error(found.join('\n'));
  }),
  { numRuns: RUNS, seed: 18 },
);
const propertyMs = performance.now() - propertyStarted;
if (result.failed)
  throw new Error(`a schedule broke a property: ${JSON.stringify(result.counterexample)}`);

console.log(`
| run | count | wall time |
|---|---|---|
| generated suite, 3 badges, embedded | ${paths.length} scenarios | ${seconds(suiteMs)} |
| random schedules on the engine (seed 18) | ${RUNS} | ${seconds(propertyMs)} |`);
