/**
 * Which scenario files `badge-sim run`, `scenarioTests` and the container tests pick up from
 * the paths a user gives: files, folders and glob patterns.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { ScenarioError } from '../../scenarios/format/load-scenario.ts';
import { findScenarioFiles } from '../../scenarios/runner/run-suite.ts';

const root = mkdtempSync(join(tmpdir(), 'badge-sim-find-'));
const cwd = join(root, 'project');
for (const path of [
  'suite/quorum-one.scenario.yaml',
  'suite/quorum-two.scenario.yaml',
  'suite/timeout.scenario.yaml',
  'suite/notes.yaml',
  'suite/ward/b/night.scenario.yaml',
  'suite/ward/a/day.scenario.yaml',
  'suite/node_modules/dep/dep.scenario.yaml',
  'suite/.cache/old.scenario.yaml',
  'suite/.hidden.scenario.yaml',
  'odd/run[1].scenario.yaml',
  '../outside/far.scenario.yaml',
]) {
  const file = join(cwd, path);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, 'name: x\n');
}

const SUITE = [
  'suite/quorum-one.scenario.yaml',
  'suite/quorum-two.scenario.yaml',
  'suite/timeout.scenario.yaml',
  'suite/ward/a/day.scenario.yaml',
  'suite/ward/b/night.scenario.yaml',
];

describe('findScenarioFiles', () => {
  test('a folder: every *.scenario.yaml below it, sorted; node_modules and dot names skipped', () => {
    expect(findScenarioFiles(['suite'], cwd)).toEqual(SUITE);
    expect(findScenarioFiles([join(cwd, 'suite/')], cwd)).toEqual(SUITE);
  });

  test('* matches within one name, ** any folders (none too); each file once', () => {
    expect(findScenarioFiles(['suite/quorum-*.scenario.yaml'], cwd)).toEqual([
      'suite/quorum-one.scenario.yaml',
      'suite/quorum-two.scenario.yaml',
    ]);
    expect(findScenarioFiles(['suite/*/*/*.scenario.yaml'], cwd)).toEqual(SUITE.slice(3));
    expect(findScenarioFiles(['**/*.scenario.yaml', 'suite/timeout.scenario.yaml'], cwd)).toEqual([
      'odd/run[1].scenario.yaml',
      ...SUITE,
    ]);
  });

  test('a file is taken as given, one outside the working folder as an absolute path', () => {
    expect(findScenarioFiles(['suite/notes.yaml'], cwd)).toEqual(['suite/notes.yaml']);
    expect(findScenarioFiles(['../outside/far.scenario.yaml'], cwd)).toEqual([
      join(root, 'outside/far.scenario.yaml'),
    ]);
    expect(findScenarioFiles(['../outside/*.scenario.yaml'], cwd)).toEqual([
      join(root, 'outside/far.scenario.yaml'),
    ]);
  });

  test('an existing path with glob characters is that file; ? and [] are glob patterns', () => {
    expect(findScenarioFiles(['odd/run[1].scenario.yaml'], cwd)).toEqual([
      'odd/run[1].scenario.yaml',
    ]);
    expect(findScenarioFiles(['suite/quorum-tw?.scenario.yaml'], cwd)).toEqual([
      'suite/quorum-two.scenario.yaml',
    ]);
    expect(findScenarioFiles(['suite/quorum-[o]ne.scenario.yaml'], cwd)).toEqual([
      'suite/quorum-one.scenario.yaml',
    ]);
  });

  test('a missing path is an error naming it; a pattern matching nothing finds nothing', () => {
    expect(() => findScenarioFiles(['suite/nope.scenario.yaml'], cwd)).toThrow(
      new ScenarioError('badge-sim: no file or folder suite/nope.scenario.yaml'),
    );
    expect(() => findScenarioFiles(['suite/notes.yaml/x'], cwd)).toThrow(ScenarioError);
    expect(findScenarioFiles(['suite/*.nothing'], cwd)).toEqual([]);
    expect(findScenarioFiles(['missing/**/*.scenario.yaml'], cwd)).toEqual([]);
  });
});
