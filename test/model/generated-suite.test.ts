/**
 * `badge-sim generate` (issue 18, point 2): the model's paths for 3 badges, with every
 * feature, written as scenario files by the command as a user runs it, then run against the
 * embedded stub and against a stub in another process: every one must pass. The model and the
 * stub were written apart, so a failure here is a disagreement to look into.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { loadScenarioFile } from '../../scenarios/format/load-scenario.ts';
import { runScenario } from '../../scenarios/runner/run-scenario.ts';
import { findScenarioFiles, runSuite } from '../../scenarios/runner/run-suite.ts';
import { runCli, startStubProcess } from '../support/cli.ts';
import { GENERATE_3_BADGES as ALL } from '../support/generated-suite.ts';

const scratch = () => mkdtempSync(join(tmpdir(), 'badge-sim-generate-'));

/** The suite for 3 badges, generated once for the whole file by the CLI. */
function generateSuite(): { dir: string; files: string[]; printed: string } {
  const dir = scratch();
  const result = runCli(['generate', ...ALL, '--out', dir]);
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return { dir, files: findScenarioFiles([dir]), printed: result.stdout };
}

describe('badge-sim generate', () => {
  const suite = generateSuite();

  test('writes one scenario a path and prints the count and the time taken', () => {
    const count = Number(/(\d+) paths/.exec(suite.printed)?.[1]);
    expect(count).toBeGreaterThan(100);
    expect(suite.files).toHaveLength(count);
    expect(suite.printed).toMatch(/written to .* in \d+ ms/);
    const families = new Set(
      readdirSync(suite.dir).map((f) => f.split('-').slice(1, -1).join('-')),
    );
    expect([...families].sort()).toEqual([
      'cancel',
      'default-timeout',
      'offline',
      'order',
      'repeat',
      'same-instant',
      'same-name',
      'timeout',
    ]);
    // Every order of acknowledgement under the default quorum: 1 + 3 + 6 + 6 paths.
    expect(readdirSync(suite.dir).filter((f) => f.includes('-order-qdefault'))).toHaveLength(16);
    const one = loadScenarioFile(suite.files[0]!).scenario;
    expect(one.proves).toMatch(/^3 badges, the default quorum: .*; the model predicts /);
    expect(one.expect.events).toMatchObject({ only: true });
  });

  test('every generated scenario passes against the embedded stub', async () => {
    const started = performance.now();
    const summary = await runSuite(suite.files, { reporters: [] });
    const failed = summary.reports.filter((r) => !r.passed);
    expect(failed.map((r) => `${r.source}: ${JSON.stringify(r.failures[0])}`)).toEqual([]);
    expect(summary.passed).toBe(suite.files.length);
    console.log(
      `badge-sim generate: ${suite.files.length} generated scenarios passed embedded in ${Math.round(performance.now() - started)} ms`,
    );
  }, 120_000);

  test('every generated scenario passes against a stub in another process', async () => {
    await using stub = await startStubProcess(['--clock', 'virtual']);
    const summary = await runSuite(suite.files, {
      reporters: [],
      mode: 'external',
      stubUrl: stub.url,
    });
    const failed = summary.reports.filter((r) => !r.passed);
    expect(failed.map((r) => `${r.source}: ${JSON.stringify(r.failures[0])}`)).toEqual([]);
  }, 300_000);

  test('the expectations are sharp: a generated scenario one second off fails', async () => {
    const file = suite.files.find((f) => f.includes('-repeat-'))!;
    const text = readFileSync(file, 'utf8');
    const wrong = join(scratch(), 'wrong.scenario.yaml');
    // The repeat the model predicts at 30 s, expected at 31 s instead.
    writeFileSync(wrong, text.replace(/at: 30s \}/, 'at: 31s }'));
    expect(readFileSync(wrong, 'utf8')).not.toBe(text);
    const report = await runScenario(loadScenarioFile(wrong));
    expect(report.passed).toBe(false);
  });
});

describe('badge-sim generate refuses', () => {
  const refuses = (args: string[], message: RegExp) => {
    const out = scratch();
    const result = runCli(['generate', ...args, '--out', out]);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(readdirSync(out)).toEqual([]);
  };

  test.each([
    [['--devices', '0'], /--devices must be a whole number from 1 to 6/],
    [['--devices', '7'], /--devices must be a whole number from 1 to 6/],
    [
      ['--devices', '3', '--quorum', 'default,x'],
      /--quorum takes default or whole numbers .*not 'x'/,
    ],
    [['--devices', '2', '--quorum', '3'], /--quorum 3 is more than --devices 2/],
    [
      ['--devices', '3', '--with', 'fire'],
      /--with takes cancel, timeout, offline, same-name.*not 'fire'/,
    ],
  ])('bad flags %j: exit 2 with what to fix', (args, message) => refuses(args, message));

  test('past the cap of 5000 paths: exit 2, nothing written', () => {
    refuses(
      [
        '--devices',
        '6',
        '--quorum',
        'default,1,2,3,4,5,6',
        '--with',
        'cancel,timeout,offline,same-name',
      ],
      /more than 5000 paths \(the cap\): ask for fewer devices/,
    );
  });

  test('a folder that already holds scenarios, without --force', () => {
    const out = scratch();
    writeFileSync(join(out, 'mine.scenario.yaml'), 'name: mine\n');
    const result = runCli(['generate', '--devices', '2', '--out', out]);
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/already holds scenario files: .* --force/);
    expect(readdirSync(out)).toEqual(['mine.scenario.yaml']);
  });
});
