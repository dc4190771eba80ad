/** `badge-sim run --trace` as a user runs it (TR8): the traces written, said on stderr; a wrong mode refused. */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { readTrace } from '../../input/read-trace.ts';
import { runCli, startStubProcess } from '../support/cli.ts';

const SCENARIO = 'scenarios/catalogue/single-acknowledgement.scenario.yaml';

describe('badge-sim run --trace', () => {
  test('on: one trace a scenario in --trace-dir, each named on stderr', () => {
    const dir = mkdtempSync(join(tmpdir(), 'badge-sim-run-trace-cli-'));
    const result = runCli(['run', SCENARIO, '--trace', 'on', '--trace-dir', dir]);
    expect(result.status).toBe(0);
    const file = join(dir, 'single-acknowledgement--single-acknowledgement.trace.gz');
    expect(result.stderr).toContain(`badge-sim run: 1 trace written (--trace on):\n  ${file}\n`);
    expect(readTrace(file).records.filter((r) => r.kind === 'verdict')).toEqual([
      expect.objectContaining({ passed: true }),
    ]);
  });

  test('retain-on-failure with a passing scenario writes nothing and says nothing of traces', () => {
    const dir = mkdtempSync(join(tmpdir(), 'badge-sim-run-trace-cli-'));
    const result = runCli(['run', SCENARIO, '--trace', 'retain-on-failure', '--trace-dir', dir]);
    expect(result.status).toBe(0);
    expect(result.stderr).not.toContain('trace');
  });

  test('without --trace: under CI a failed scenario’s trace is kept beside --output, and nothing is said of traces with --stub', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'badge-sim-run-trace-cli-'));
    const failing = join(dir, 'failing.scenario.yaml');
    writeFileSync(
      failing,
      readFileSync(SCENARIO, 'utf8').replace('acknowledgements: 1', 'acknowledgements: 2'),
    );
    const report = join(dir, 'report.json');
    const ci = runCli(['run', failing, '--reporter', 'json', '-o', report], { CI: 'true' });
    expect(ci.status).toBe(1);
    const kept = join(dir, 'failing--single-acknowledgement.trace.gz');
    expect(ci.stderr).toContain(`1 trace written (--trace retain-on-failure):\n  ${kept}\n`);
    expect(readTrace(kept).records.filter((r) => r.kind === 'verdict')).toEqual([
      expect.objectContaining({ passed: false }),
    ]);
    // Off the CI, the same run writes none.
    const local = runCli(['run', failing, '--reporter', 'json', '-o', report]);
    expect(local.status).toBe(1);
    expect(local.stderr).not.toMatch(/trace written|--trace/);
    // A stub in another process cannot be traced: under CI's default that goes unsaid.
    await using stub = await startStubProcess();
    const external = runCli(['run', SCENARIO, '--stub', stub.url], { CI: 'true' });
    expect(external.status).toBe(0);
    expect(external.stderr).not.toMatch(/trace written|--trace/);
  }, 120_000);

  test('a trace does not make the folder of an --output that cannot be written', () => {
    const dir = mkdtempSync(join(tmpdir(), 'badge-sim-run-trace-cli-'));
    const nowhere = join(dir, 'no-such-folder', 'report.html');
    const result = runCli(['run', SCENARIO, '--reporter', 'html', '-o', nowhere], { CI: 'true' });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(`cannot write the html report to ${nowhere}`);
    expect(existsSync(join(dir, 'no-such-folder'))).toBe(false);
  });

  test('a mode that is none of on, off, retain-on-failure: exit 2 naming them', () => {
    const result = runCli(['run', SCENARIO, '--trace', 'always']);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('--trace');
    expect(result.stderr).toContain('retain-on-failure');
  });
});
