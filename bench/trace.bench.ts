/**
 * `npm run bench:trace`: what traces cost (issue 33, TR8). The whole built-in catalogue in
 * process on the virtual clock, rounds alternating with traces off and on (`keep: 'on'`, every
 * trace written), medians of wall and CPU time and the overhead against the goal (< 25 %);
 * then the sizes of the traces one run writes. Markdown on stdout.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { type LoadedScenario, loadScenarioFile } from '../scenarios/format/load-scenario.ts';
import { runScenario } from '../scenarios/runner/run-scenario.ts';
import { findScenarioFiles } from '../scenarios/runner/run-suite.ts';
import type { RunTraceOptions } from '../scenarios/runner/run-trace.ts';
import { closeScenarioStubs } from '../scenarios/runner/scenario-stubs.ts';

const ROUNDS = 5;
const OVERHEAD_GOAL = 0.25;

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** One run of every scenario; its wall and CPU ms. */
async function round(
  scenarios: LoadedScenario[],
  trace: RunTraceOptions | undefined,
): Promise<{ wall: number; cpu: number }> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  for (const loaded of scenarios) await runScenario(loaded, trace ? { trace } : {});
  const used = process.cpuUsage(cpu);
  return { wall: performance.now() - started, cpu: (used.user + used.system) / 1000 };
}

const scenarios = findScenarioFiles([]).map(loadScenarioFile);
const dir = mkdtempSync(join(tmpdir(), 'badge-sim-bench-trace-'));
const trace: RunTraceOptions = { keep: 'on', dir };
await round(scenarios, undefined);
await round(scenarios, trace);
const off: { wall: number; cpu: number }[] = [];
const on: { wall: number; cpu: number }[] = [];
for (let i = 0; i < ROUNDS; i++) {
  off.push(await round(scenarios, undefined));
  on.push(await round(scenarios, trace));
}
await closeScenarioStubs();
const [offWall, onWall] = [median(off.map((r) => r.wall)), median(on.map((r) => r.wall))];
const [offCpu, onCpu] = [median(off.map((r) => r.cpu)), median(on.map((r) => r.cpu))];
const overhead = onWall / offWall - 1;
const files = readdirSync(dir).map((name) => join(dir, name));
const sizes = files.map((file) => statSync(file).size).sort((a, b) => a - b);
const raw = files.map((file) => gunzipSync(readFileSync(file)).length);
const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
console.log(`## Traces: the catalogue (${scenarios.length} scenarios) with traces off and on

| | wall (median of ${ROUNDS}) | CPU |
|---|---|---|
| traces off | ${offWall.toFixed(0)} ms | ${offCpu.toFixed(0)} ms |
| traces on | ${onWall.toFixed(0)} ms | ${onCpu.toFixed(0)} ms |
| overhead | ${(overhead * 100).toFixed(1)} % (goal < ${OVERHEAD_GOAL * 100} %: ${overhead < OVERHEAD_GOAL ? 'met' : 'NOT met'}) | ${((onCpu / offCpu - 1) * 100).toFixed(1)} % |

Trace files of one run: ${files.length}, ${kib(sum(sizes))} in all (${kib(sum(raw))} of JSON lines decompressed); each ${kib(sizes[0]!)} to ${kib(sizes.at(-1)!)}, median ${kib(median(sizes))}.`);
rmSync(dir, { recursive: true, force: true });
