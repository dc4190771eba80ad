/**
 * `npm run bench:guard`: the quick bench `.ci/run` runs after the tests, so that a speed
 * regression cannot land unseen (issue 28). Under a minute; it prints every figure beside the
 * floor it is judged against and exits 1 when one falls below it. The floors (goals.ts,
 * `GUARD`) sit well below the goals: they catch the tenfold kind of regression, with margin
 * for a noisy shared machine; `npm run bench:*` judge the goals themselves.
 *
 * - HTTP: POST alerts beside a bare fastify POST, GET events beside a bare route sending the
 *   same payload serialised once (http-measure.ts; 2 rounds of 2 s).
 * - Scenarios: the built-in catalogue in this process on the virtual clock (the better of 2,
 *   after a warm-up run).
 * - CLI start: `badge-sim --version` from the compiled package (`dist/`, as installed), beside
 *   `node -e 0` (the best of 5 each).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadScenarioFile } from '../scenarios/format/load-scenario.ts';
import { runScenario } from '../scenarios/runner/run-scenario.ts';
import { findScenarioFiles } from '../scenarios/runner/run-suite.ts';
import { environmentLines, loadavg } from './bench-support.ts';
import { GOALS, GUARD } from './goals.ts';
import { killChildren, measureTargets, ratioOf } from './http-measure.ts';
import { COMPARISONS, TARGETS } from './http-targets.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = fileURLToPath(new URL('../dist/cli/badge-sim.js', import.meta.url));

interface Check {
  what: string;
  figure: string;
  floor: string;
  goal: string;
  ok: boolean;
}

async function httpChecks(): Promise<Check[]> {
  const ids = ['bare-post', 'stub-post-alerts', 'bare-get-100-prebuilt', 'stub-get-events'];
  const { rows } = await measureTargets(
    TARGETS.filter((t) => ids.includes(t.id)),
    { seconds: 2, rounds: 2, warmupSeconds: 0.5 },
  );
  const floors: Record<string, number> = {
    'stub-post-alerts': GUARD.postAlertsVsBare,
    'stub-get-events': GUARD.getEventsVsPrebuilt,
  };
  return COMPARISONS.filter((c) => floors[c.stub] !== undefined).map((comparison) => {
    const { ratio, stub, bare } = ratioOf(rows, comparison);
    const floor = floors[comparison.stub]!;
    return {
      what: `${stub.target.label} ÷ ${bare.target.label}`,
      figure: `${ratio.toFixed(2)}× (${Math.round(stub.rps)} ÷ ${Math.round(bare.rps)} req/s)`,
      floor: `≥ ${floor}×`,
      goal: `≥ ${comparison.goal}×`,
      ok: ratio >= floor && stub.non2xx === 0 && stub.errors === 0,
    };
  });
}

async function catalogueCheck(): Promise<Check> {
  const scenarios = findScenarioFiles([]).map((file) => loadScenarioFile(file));
  const once = async () => {
    const started = performance.now();
    let failed = 0;
    for (const scenario of scenarios) if (!(await runScenario(scenario)).passed) failed++;
    return { ms: performance.now() - started, failed };
  };
  process.stderr.write(`catalogue: ${scenarios.length} scenarios, a warm-up run and 2 more…\n`);
  await once();
  const runs = [await once(), await once()];
  // The better run: a floor asks what the code can do, and a busy machine only slows it.
  const ms = Math.min(...runs.map((r) => r.ms));
  const failed = Math.max(...runs.map((r) => r.failed));
  return {
    what: `the catalogue (${scenarios.length} scenarios) in one process`,
    figure: `${Math.round(ms)} ms${failed ? `, ${failed} failed` : ''}`,
    floor: `≤ ${GUARD.catalogueMs} ms`,
    goal: `< ${GOALS.catalogueMs} ms`,
    ok: ms <= GUARD.catalogueMs && failed === 0,
  };
}

function versionCheck(): Check {
  if (!existsSync(CLI)) {
    process.stderr.write('building the package (dist/) for the CLI start…\n');
    const build = spawnSync(process.execPath, ['scripts/build-package.mjs'], {
      cwd: ROOT,
      stdio: 'inherit',
    });
    if (build.status !== 0) throw new Error('npm run build failed');
  }
  const wall = (args: string[]) => {
    const started = performance.now();
    const run = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`node ${args.join(' ')} failed: ${run.stderr}`);
    return performance.now() - started;
  };
  const floor: number[] = [];
  const version: number[] = [];
  for (let i = 0; i < 5; i++) {
    floor.push(wall(['-e', '0']));
    version.push(wall([CLI, '--version']));
  }
  // The best of five, each side: a busy machine only slows a start.
  const ms = Math.min(...version);
  const node = Math.min(...floor);
  return {
    what: '`badge-sim --version` (dist/, as installed)',
    figure: `${Math.round(ms)} ms (node -e 0: ${Math.round(node)} ms, ×${(ms / node).toFixed(1)})`,
    floor: `≤ ${GUARD.cliVersionMs} ms`,
    goal: `< ${GOALS.cliStartMs} ms`,
    ok: ms <= GUARD.cliVersionMs,
  };
}

async function main(): Promise<void> {
  const started = performance.now();
  const loadBefore = loadavg();
  const checks = [...(await httpChecks()), await catalogueCheck(), versionCheck()];
  const print = (line = '') => process.stdout.write(`${line}\n`);
  print('## bench:guard');
  print();
  print(environmentLines(['fastify']));
  print(`- load average (1 min) before/after: ${loadBefore} / ${loadavg()}`);
  print();
  print('| what | figure | guard floor | goal (npm run bench:*) | |');
  print('|---|---:|---:|---:|---|');
  for (const c of checks)
    print(
      `| ${c.what} | ${c.figure} | ${c.floor} | ${c.goal} | ${c.ok ? 'ok' : '**BELOW THE FLOOR**'} |`,
    );
  print();
  const below = checks.filter((c) => !c.ok);
  print(
    below.length === 0
      ? `bench guard: every figure above its floor (${Math.round((performance.now() - started) / 1000)} s)`
      : `bench guard FAILED: ${below.map((c) => c.what).join('; ')} fell below the floor`,
  );
  process.exitCode = below.length === 0 ? 0 : 1;
}

main().catch((error: unknown) => {
  killChildren();
  process.stderr.write(`bench:guard failed: ${error instanceof Error ? error.stack : error}\n`);
  process.exitCode = 1;
});
