/**
 * `npm run bench:scenarios`: the wall time of the whole built-in catalogue and of one
 * default-timeout (300 s) scenario with 3 badges, both in process on the virtual clock, against
 * the goals of issue 28 (catalogue < 1 s median, the timeout scenario < 10 ms). Scenarios that
 * say they wait real time (`real_time:`, decision SP3) are timed apart; every other one is
 * held to the rule that it waits none (median wall time under 250 ms + 4 × its CPU time: a
 * loaded machine stretches wall time a few times, a real-time wait adds the 2 s bound).
 * CPU time is printed beside wall time: on a shared machine it is the steadier figure.
 * Markdown on stdout.
 */
import {
  defineScenario,
  type LoadedScenario,
  loadScenarioFile,
} from '../scenarios/format/load-scenario.ts';
import { runScenario } from '../scenarios/runner/run-scenario.ts';
import { findScenarioFiles } from '../scenarios/runner/run-suite.ts';
import { closeScenarioStubs } from '../scenarios/runner/scenario-stubs.ts';
import { GOALS, verdict } from './goals.ts';

/** The goals of issue 28, point 2. */
const CATALOGUE_GOAL_MS = GOALS.catalogueMs;
const TIMEOUT_GOAL_MS = GOALS.timeoutScenarioMs;
/** A scenario's wall time past this plus 4 × its CPU time is a real-time wait (the bound is 2 s). */
const REAL_TIME_WAIT_MS = 250;
const LOAD_STRETCH = 4;

const CATALOGUE_ROUNDS = 5;
const TIMEOUT_RUNS = 30;
const COLD_RUNS = 10;
const WARM_RUNS = 30;

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const cpuMs = (since: NodeJS.CpuUsage) => {
  const { user, system } = process.cpuUsage(since);
  return (user + system) / 1000;
};

/** Runs a scenario; its wall and CPU ms. Throws when it fails: a failing run times nothing. */
async function timed(loaded: LoadedScenario): Promise<{ wall: number; cpu: number }> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const report = await runScenario(loaded);
  const times = { wall: performance.now() - started, cpu: cpuMs(cpu) };
  if (!report.passed)
    throw new Error(`${loaded.source} failed: ${JSON.stringify(report.failures, null, 2)}`);
  return times;
}

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

const loaded = findScenarioFiles([]).map((file) => loadScenarioFile(file));
const marked = loaded.filter((l) => l.scenario.real_time !== undefined);
const unmarked = loaded.filter((l) => l.scenario.real_time === undefined);

// Warm up module loading and the JIT as a suite would have: the catalogue once, then the
// scenario itself (its times settle after some 30 runs).
for (const scenario of loaded) await timed(scenario);
for (let i = 0; i < WARM_RUNS; i++) await timed(timeout);
const one: { wall: number; cpu: number }[] = [];
for (let i = 0; i < TIMEOUT_RUNS; i++) one.push(await timed(timeout));
// Side by side: the same scenario when each run starts its own stub (decision SP1).
const cold: { wall: number; cpu: number }[] = [];
for (let i = 0; i < COLD_RUNS; i++) {
  await closeScenarioStubs();
  cold.push(await timed(timeout));
}

const whole: { wall: number; cpu: number }[] = [];
const each = new Map<string, { wall: number[]; cpu: number[] }>(
  loaded.map((l) => [l.source, { wall: [], cpu: [] }]),
);
for (let round = 0; round < CATALOGUE_ROUNDS; round++) {
  const started = performance.now();
  const cpu = process.cpuUsage();
  for (const scenario of unmarked) {
    const times = await timed(scenario);
    each.get(scenario.source)!.wall.push(times.wall);
    each.get(scenario.source)!.cpu.push(times.cpu);
  }
  whole.push({ wall: performance.now() - started, cpu: cpuMs(cpu) });
  for (const scenario of marked) {
    const times = await timed(scenario);
    each.get(scenario.source)!.wall.push(times.wall);
    each.get(scenario.source)!.cpu.push(times.cpu);
  }
}
await closeScenarioStubs();

const perScenario = [...each]
  .filter(([, t]) => t.wall.length > 0)
  .map(([source, t]) => ({
    source: source.replace(/^.*catalogue\//, '').replace(/\.scenario\.yaml$/, ''),
    realTime: marked.some((m) => m.source === source),
    wall: median(t.wall),
    cpu: median(t.cpu),
  }));
const waiting = perScenario.filter(
  (s) => !s.realTime && s.wall > REAL_TIME_WAIT_MS + LOAD_STRETCH * s.cpu,
);
const slowest = perScenario
  .filter((s) => !s.realTime)
  .sort((a, b) => b.wall - a.wall)
  .slice(0, 5);

const ms = (value: number, digits = 0) => `${value.toFixed(digits)} ms`;
const wallOf = (runs: { wall: number }[]) => median(runs.map((r) => r.wall));
const cpuOf = (runs: { cpu: number }[]) => median(runs.map((r) => r.cpu));
const maxOf = (runs: { wall: number }[]) => Math.max(...runs.map((r) => r.wall));

console.log(`## bench:scenarios

- node ${process.version}; in process (stub and badges in this process, virtual clock), after a warm-up (the catalogue once, the scenario ${WARM_RUNS} times); goals of issue 28

| what | median wall | max wall | median CPU | goal |
|---|---:|---:|---:|---|
| one default-timeout (300 s) scenario, 3 badges, ${TIMEOUT_RUNS} runs | ${ms(wallOf(one), 1)} | ${ms(maxOf(one), 1)} | ${ms(cpuOf(one), 1)} | < ${TIMEOUT_GOAL_MS} ms ${verdict(wallOf(one) < TIMEOUT_GOAL_MS)} |
| the same, each run starting its own stub, ${COLD_RUNS} runs | ${ms(wallOf(cold), 1)} | ${ms(maxOf(cold), 1)} | ${ms(cpuOf(cold), 1)} | (side by side: ${(wallOf(cold) / wallOf(one)).toFixed(1)}× the kept stub) |
| the whole catalogue (${unmarked.length} scenarios), ${CATALOGUE_ROUNDS} runs | ${ms(wallOf(whole))} | ${ms(maxOf(whole))} | ${ms(cpuOf(whole))} | < ${CATALOGUE_GOAL_MS} ms ${verdict(wallOf(whole) < CATALOGUE_GOAL_MS)} |
| catalogue scenarios that wait real time without \`real_time:\` (wall > ${REAL_TIME_WAIT_MS} ms + ${LOAD_STRETCH} × CPU) | ${waiting.length} | | | none ${verdict(waiting.length === 0)}${waiting.map((s) => `; ${s.source} ${ms(s.wall)} (${ms(s.cpu)} CPU)`).join('')} |

Scenarios that say they wait real time (\`real_time:\`), timed apart: ${
  marked.length === 0
    ? 'none in the catalogue.'
    : `\n\n| scenario | median wall | median CPU |\n|---|---:|---:|\n${perScenario
        .filter((s) => s.realTime)
        .map((s) => `| ${s.source} | ${ms(s.wall)} | ${ms(s.cpu)} |`)
        .join('\n')}`
}

Slowest catalogue scenarios (median wall, CPU): ${slowest.map((s) => `${s.source} ${ms(s.wall, 1)} (${ms(s.cpu, 1)})`).join('; ')}.

Every catalogue scenario passed in every run.`);
