/**
 * A scenario's `fixtures: { file }` (decision Y7): the fixtures file beside the scenario, read
 * each time the scenario is loaded; a wrong one is the scenario's error at the `file:` line,
 * with the fixtures file's own line.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { initFiles } from '../../cli/init-templates.ts';
import { defineScenario, loadScenarioFile } from '../../scenarios/format/load-scenario.ts';

const [scenario, fixtures] = initFiles('.');

function folder(fixturesText: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'badge-sim-fixtures-file-'));
  writeFileSync(join(dir, 'first.scenario.yaml'), scenario!.text);
  writeFileSync(join(dir, 'fixtures.yaml'), fixturesText);
  return dir;
}

describe('Y7: fixtures from a file beside the scenario', () => {
  test('read when the scenario is loaded, and again, as it is then, at the next load', () => {
    const dir = folder(fixtures!.text);
    const file = join(dir, 'first.scenario.yaml');
    const first = loadScenarioFile(file);
    expect(first.fixturesFile).toBe(join(dir, 'fixtures.yaml'));
    expect(first.scenario.fixtures).toMatchObject({ accounts: [{ name: 'My site' }] });
    writeFileSync(join(dir, 'fixtures.yaml'), fixtures!.text.replace('My site', 'North Wing'));
    expect(loadScenarioFile(file).scenario.fixtures).toMatchObject({
      accounts: [{ name: 'North Wing' }],
    });
  });

  test('a missing fixtures file: the scenario line naming it, and why', () => {
    const dir = folder('');
    const file = join(dir, 'first.scenario.yaml');
    writeFileSync(file, scenario!.text.replace('file: fixtures.yaml', 'file: fixture.yaml'));
    expect(() => loadScenarioFile(file)).toThrow(
      `badge-sim: ${file}:6:13: fixtures.file: cannot read fixtures file ${join(dir, 'fixture.yaml')}: ENOENT`,
    );
  });

  test("a wrong fixtures file: the scenario's line, then the fixtures file's", () => {
    const dir = folder(fixtures!.text.replace('api_keys:', 'api_kyes:'));
    const file = join(dir, 'first.scenario.yaml');
    expect(() => loadScenarioFile(file)).toThrow(
      `badge-sim: ${file}:6:13: fixtures.file: ${join(dir, 'fixtures.yaml')}:7: accounts[0].api_kyes is not a field here: did you mean api_keys? (fields here: subscriber_id, name, api_keys, refresh_tokens, workflows, groups, devices)`,
    );
  });

  test('a scenario given in code: the file relative to the working folder', () => {
    const dir = folder(fixtures!.text);
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      const loaded = defineScenario({
        name: 'In code',
        proves: 'fixtures read from a file',
        fixtures: { file: 'fixtures.yaml' },
        timeline: [],
        duration: '1s',
        expect: {},
      });
      expect(loaded.scenario.fixtures).toMatchObject({ accounts: [{ subscriber_id: '100001' }] });
    } finally {
      process.chdir(cwd);
    }
  });
});
