/**
 * `npm run bench:scenarios`: the wall time of the whole built-in catalogue, and of one
 * default-timeout (300 s) scenario, both embedded on the virtual clock. Markdown on stdout.
 */
import { defineScenario, loadScenarioFile } from '../scenarios/load-scenario.ts';
import { runScenario } from '../scenarios/run-scenario.ts';
import { findScenarioFiles } from '../scenarios/run-suite.ts';

const ROUNDS = 5;
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const timeout = defineScenario({
  name: 'Default timeout',
  proves: 'A 300 s alert that nobody acknowledges runs to its end.',
  badges: { group: 'Nurses' },
  timeline: [
    {
      at: '0s',
      alert: { notification: 'Nobody comes', groups: ['Nurses'], on_timeout: 'Timed out' },
      as: 'alert',
    },
  ],
  duration: '5m',
  expect: {
    tasks: { alert: { outcome: 'timed_out' } },
    heard: { 'Ada Mensah': { count: { alert: 10, speech: 1 } } },
  },
});

// Warm up module loading and JIT once, as a test runner would have.
await runScenario(timeout);
const one: number[] = [];
for (let i = 0; i < ROUNDS; i++) {
  const started = performance.now();
  const report = await runScenario(timeout);
  one.push(performance.now() - started);
  if (!report.passed)
    throw new Error(`the timeout scenario failed: ${JSON.stringify(report.failures)}`);
}

const files = findScenarioFiles([]);
const loaded = files.map((file) => loadScenarioFile(file));
const whole: number[] = [];
let failed = 0;
for (let i = 0; i < 3; i++) {
  const started = performance.now();
  failed = 0;
  for (const scenario of loaded) if (!(await runScenario(scenario)).passed) failed++;
  whole.push(performance.now() - started);
}

const verdict = (ok: boolean) => (ok ? '**PASS**' : '**FAIL**');
console.log(`## bench:scenarios

- node ${process.version}; embedded mode (stub and badges in this process, virtual clock)

| what | median | max | goal |
|---|---:|---:|---|
| one default-timeout (300 s) scenario, 3 badges, ${ROUNDS} runs | ${median(one).toFixed(1)} ms | ${Math.max(...one).toFixed(1)} ms | < 100 ms ${verdict(median(one) < 100)} |
| the whole catalogue (${loaded.length} scenarios), 3 runs | ${median(whole).toFixed(0)} ms | ${Math.max(...whole).toFixed(0)} ms | < 5 s ${verdict(median(whole) < 5_000)} |

${failed === 0 ? 'Every catalogue scenario passed.' : `${failed} catalogue scenarios FAILED.`}`);
