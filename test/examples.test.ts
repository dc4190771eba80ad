/**
 * The README's worked examples are files in examples/, shown in the README as they are:
 * each runs here as a user runs it, and the README must hold its current text.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';

const readme = readFileSync('README.md', 'utf8');

function runExample(file: string): string {
  const run = spawnSync(process.execPath, ['--import', 'tsx', file], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return run.stdout;
}

describe('examples/workflow-on-a-badge.ts', () => {
  const file = 'examples/workflow-on-a-badge.ts';

  test('is in the README as it is', () => {
    expect(readme).toContain(readFileSync(file, 'utf8').trim());
  });

  test('triggers the workflow on the badge, refreshes the token once after two hours, reads device info', () => {
    const lines = runExample(file).trim().split('\n');
    expect(lines[0]).toMatch(
      /^inv_[A-Za-z0-9]{22} invoked; Rosa heard "Security to the front desk please"$/,
    );
    expect(lines[1]).toBe('after two hours: invoked again with 2 token requests in all');
    expect(lines[2]).toMatch(/^device info: Rosa Lindqvist is online, battery \d+%$/);
  });
});

describe('examples/retry-after-503.test.ts', () => {
  // It runs as one of the suite's own tests (vitest finds it); here: the README shows it as it is.
  test('is in the README as it is', () => {
    expect(readme).toContain(readFileSync('examples/retry-after-503.test.ts', 'utf8').trim());
  });
});
