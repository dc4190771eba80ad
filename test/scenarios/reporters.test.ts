/**
 * The reports of `badge-sim run` as a user sees them: colour on a terminal only, and JUnit
 * XML that any CI system can parse whatever the scenario names hold.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { BIN } from '../support/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'badge-sim-reporters-'));
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** An SGR sequence (colour, bold, dim); erasing the progress line is not one. */
const COLOUR_CODE = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`);

/** A scenario that fails on purpose: the tap comes at 5 s, not 9 s. */
const FAILING = `name: Late on purpose
proves: The failure report marks the first difference.
badges: { group: Nurses }
behaviours:
  Ben Okafor: { ack: { after: 5s } }
timeline:
  - at: 0s
    alert: { notification: One runner, groups: [Nurses], quorum: 1 }
    as: runner
duration: 1m
expect:
  events:
    items:
      - { type: acknowledged, device: Ben Okafor, at: 9s }
`;

// util-linux `script` gives the CLI a pseudo-terminal, as a developer's shell does.
const hasScript = process.platform === 'linux' && spawnSync('script', ['--version']).status === 0;
if (!hasScript) {
  console.warn('badge-sim tests: skipping the terminal-colour test: util-linux script missing');
}

describe.skipIf(!hasScript)('colour', () => {
  /** Runs `badge-sim run` on a terminal; the output as the terminal received it. */
  function onTerminal(args: string[], env: Record<string, string | undefined>): string {
    const command = [process.execPath, BIN, ...args].map((a) => `'${a}'`).join(' ');
    const run = spawnSync('script', ['-qec', command, '/dev/null'], {
      encoding: 'utf8',
      timeout: 45_000,
      env: { ...process.env, ...env },
    });
    return run.stdout;
  }

  test('on a terminal the marks are coloured; with NO_COLOR they are plain', () => {
    const failing = file('late.scenario.yaml', FAILING);
    const coloured = onTerminal(['run', failing], { NO_COLOR: undefined, FORCE_COLOR: undefined });
    expect(coloured).toContain('\x1b[31m✗');
    expect(coloured).toContain('\x1b[1mevents');
    expect(coloured).toContain('1 of 1 scenarios failed');
    const plain = onTerminal(['run', failing], { NO_COLOR: '1' });
    expect(plain).toContain('✗ Late on purpose');
    expect(plain).toContain('  events');
    expect(plain).not.toMatch(COLOUR_CODE);
  });
});
