/**
 * A report written to a file is said (issue 31 point 3): `run --reporter html -o report.html`
 * used to print nothing at all, even when a scenario failed. Now stderr names the file with the
 * run's summary line; `--quiet` silences it. The scenarios are two small files on the embedded
 * stub's virtual clock, one passing and one failing on purpose.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { runCli } from '../support/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'badge-sim-report-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PASSING = `name: Quorum of one
proves: The first tap ends the alert.
badges: { group: Nurses }
behaviours:
  Ben Okafor: { ack: { after: 5s } }
timeline:
  - at: 0s
    alert: { notification: One runner, groups: [Nurses], quorum: 1 }
    as: runner
duration: 1m
expect:
  tasks:
    runner: { outcome: quorum, acknowledgements: 1 }
`;
const good = join(dir, 'good.scenario.yaml');
const bad = join(dir, 'bad.scenario.yaml');
writeFileSync(good, PASSING);
writeFileSync(
  bad,
  PASSING.replace('Quorum of one', 'Wrong on purpose').replace(
    'acknowledgements: 1',
    'acknowledgements: 2',
  ),
);

describe('run with a file report says which file, with the summary line, on stderr', () => {
  test('html: a failing run says so and where the report is; nothing on stdout', () => {
    const report = join(dir, 'report.html');
    const run = runCli(['run', good, bad, '--reporter', 'html', '-o', report]);
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      `badge-sim run: html report written to ${report}: 1 of 2 scenarios failed\n`,
    );
    expect(readFileSync(report, 'utf8')).toContain('Wrong on purpose');
  });

  test('junit and json, passing; --quiet says nothing and still writes the file', () => {
    const junit = join(dir, 'junit.xml');
    const passed = runCli(['run', good, '--reporter', 'junit', '--output', junit]);
    expect(passed.status).toBe(0);
    expect(passed.stderr).toBe(
      `badge-sim run: junit report written to ${junit}: all scenarios passed\n`,
    );
    const json = join(dir, 'quiet.json');
    const quiet = runCli(['run', good, bad, '--reporter', 'json', '-o', json, '--quiet']);
    expect(quiet.status).toBe(1);
    expect(quiet.stderr).toBe('');
    expect(JSON.parse(readFileSync(json, 'utf8'))).toMatchObject({ passed: 1, failed: 1 });
  });

  test('a report on standard output is not announced; the console beside a file report still is', () => {
    const json = runCli(['run', good, '--reporter', 'json']);
    expect(json.status).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ passed: 1, failed: 0 });
    expect(json.stderr).not.toContain('written');
    const html = join(dir, 'both.html');
    const both = runCli(['run', good, '-r', 'console', '-r', 'html', '-o', html]);
    expect(both.stdout).toContain('✓ Quorum of one');
    expect(both.stderr).toBe(
      `badge-sim run: html report written to ${html}: all scenarios passed\n`,
    );
  });

  test('a file that cannot be written is one error naming it, with the summary, exit 2', () => {
    const nowhere = join(dir, 'no-such-folder', 'report.html');
    const run = runCli(['run', good, '--reporter', 'html', '-o', nowhere]);
    expect(run.stderr).toBe(
      `badge-sim: cannot write the html report to ${nowhere} (ENOENT: no such file or directory): does its folder exist? The run: all scenarios passed.\n`,
    );
    expect(run.status).toBe(2);
    expect(existsSync(nowhere)).toBe(false);
  });
});
