/** `badge-sim run --trace` as a user runs it (TR8): the traces written, said on stderr; a wrong mode refused. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { readTrace } from '../../input/read-trace.ts';
import { runCli } from '../support/cli.ts';

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

  test('a mode that is none of on, off, retain-on-failure: exit 2 naming them', () => {
    const result = runCli(['run', SCENARIO, '--trace', 'always']);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('--trace');
    expect(result.stderr).toContain('retain-on-failure');
  });
});
