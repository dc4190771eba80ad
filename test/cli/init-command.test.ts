/**
 * `badge-sim init` (issue 31 point 5, decision Y8): what it writes into an empty or an existing
 * project, that the scenario it writes passes on the fixtures it writes, and that it never
 * writes over a file without --force. The packed package's own run of it, with `npx badge-sim
 * run` and vitest in a fresh project, is in test/package/consumer.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { existingFiles, writeInitFiles } from '../../cli/init.command.ts';
import { initFiles } from '../../cli/init-templates.ts';
import { loadScenarioFile } from '../../scenarios/format/load-scenario.ts';
import { runScenario } from '../../scenarios/runner/run-scenario.ts';
import { BIN } from '../support/cli.ts';

const WRITTEN = [
  'scenarios/first-alert.scenario.yaml',
  'scenarios/fixtures.yaml',
  'scenarios/scenarios.test.mjs',
  '.github/workflows/badge-sim.yml',
];

function project(): string {
  return mkdtempSync(join(tmpdir(), 'badge-sim-init-'));
}

function init(cwd: string, ...args: string[]) {
  return spawnSync(process.execPath, [BIN, 'init', ...args], {
    cwd,
    encoding: 'utf8',
    timeout: 45_000,
  });
}

describe('the files init writes', () => {
  test('Y8: a scenario that passes on the fixtures file written beside it, its $schema line pointing at the installed schema', async () => {
    const dir = project();
    const files = initFiles('scenarios');
    expect(files.map((file) => file.path)).toEqual(WRITTEN);
    writeInitFiles(dir, files);
    const scenarioFile = join(dir, WRITTEN[0]!);
    expect(readFileSync(scenarioFile, 'utf8').split('\n')[0]).toBe(
      '# yaml-language-server: $schema=../node_modules/badge-sim/dist/scenarios/scenario.schema.json',
    );
    const loaded = loadScenarioFile(scenarioFile);
    expect(loaded.fixturesFile).toBe(join(dir, 'scenarios/fixtures.yaml'));
    const report = await runScenario(loaded);
    expect(report.failures).toEqual([]);
    expect(report.passed).toBe(true);
  });

  test('in a deeper folder the $schema line still reaches node_modules, and CI runs that folder', () => {
    const files = initFiles('test/e2e');
    expect(files[0]!.text).toContain(
      '$schema=../../node_modules/badge-sim/dist/scenarios/scenario.schema.json',
    );
    const workflow = parse(files[3]!.text);
    const commands = workflow.jobs.scenarios.steps.map((step: { run?: string }) => step.run);
    expect(commands).toContain(
      'npx badge-sim run test/e2e/ --reporter console --reporter html -o badge-sim-report.html',
    );
  });

  test('the vitest test runs the scenarios of its own folder with badge-sim/vitest', () => {
    const text = initFiles('scenarios')[2]!.text;
    expect(text).toContain("import { scenarioTests } from 'badge-sim/vitest';");
    expect(text).toContain("scenarioTests(fileURLToPath(new URL('.', import.meta.url)));");
  });

  test('existingFiles names the files a project has already', () => {
    const dir = project();
    mkdirSync(join(dir, 'scenarios'));
    writeFileSync(join(dir, 'scenarios/fixtures.yaml'), 'mine');
    expect(existingFiles(dir, initFiles('scenarios'))).toEqual(['scenarios/fixtures.yaml']);
  });
});

describe('badge-sim init', () => {
  test('in an empty folder: writes the four files, lists them and says what to do next', () => {
    const dir = project();
    const result = init(dir);
    expect(result.status).toBe(0);
    for (const file of WRITTEN) expect(existsSync(join(dir, file))).toBe(true);
    expect(result.stdout).toContain(
      'badge-sim init: wrote\n  scenarios/first-alert.scenario.yaml   a scenario that passes',
    );
    expect(result.stdout).toContain(
      '\nNext:\n  npm install -D badge-sim vitest       so npx, the test and the $schema line find it\n  npx badge-sim run scenarios/          run the scenarios (exit 1 if one fails)\n',
    );
  });

  test('in an existing project: a file that exists is refused, exit 2, named with --force; nothing is written', () => {
    const dir = project();
    writeFileSync(join(dir, 'package.json'), '{"name":"mine"}');
    mkdirSync(join(dir, 'scenarios'));
    writeFileSync(join(dir, 'scenarios/fixtures.yaml'), 'my own fixtures');
    const refused = init(dir);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toBe(
      'badge-sim: init: scenarios/fixtures.yaml exists: nothing was written. Give --force to overwrite, or --dir another folder.\n',
    );
    expect(refused.stdout).toBe('');
    expect(readFileSync(join(dir, 'scenarios/fixtures.yaml'), 'utf8')).toBe('my own fixtures');
    expect(existsSync(join(dir, WRITTEN[0]!))).toBe(false);
    // Into another folder it goes; with --force over the file.
    expect(init(dir, '--dir', 'e2e').status).toBe(0);
    expect(existsSync(join(dir, 'e2e/first-alert.scenario.yaml'))).toBe(true);
    expect(init(dir, '--dir', 'e2e').stderr).toContain(
      'badge-sim: init: e2e/first-alert.scenario.yaml, e2e/fixtures.yaml, e2e/scenarios.test.mjs, .github/workflows/badge-sim.yml exist: nothing was written.',
    );
    expect(init(dir, '--force').status).toBe(0);
    expect(readFileSync(join(dir, 'scenarios/fixtures.yaml'), 'utf8')).toContain('accounts:');
    expect(readFileSync(join(dir, 'package.json'), 'utf8')).toBe('{"name":"mine"}');
  });

  test('--dir outside the project is a usage error, exit 2', () => {
    const result = init(project(), '--dir', '../elsewhere');
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(
      '--dir must be a folder inside this project, such as scenarios or test/e2e.',
    );
  });

  test('--help says what it writes and has the exit status block', () => {
    const help = init(project(), '--help');
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('Usage: badge-sim init [options]');
    expect(help.stdout).toContain('  .github/workflows/badge-sim.yml       CI:');
    expect(help.stdout).toContain('Exit status:\n  0  done\n  2  a usage error');
  });
});
