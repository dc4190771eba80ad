/**
 * The reports of `badge-sim run` as a user sees them: colour on a terminal only, and JUnit
 * XML that any CI system can parse whatever the scenario names hold.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, test } from 'vitest';
import { createJunitReporter } from '../../scenarios/reports/junit.reporter.ts';
import type { ScenarioReport } from '../../scenarios/runner/run-scenario.ts';
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

describe('JUnit', () => {
  const ESC = String.fromCharCode(27);
  /** Markup characters, C0 controls, a colour code and a noncharacter, as a name may hold. */
  const HOSTILE = `Tap <&"'> \u0000\u0001\u0007\u000b\u000c${ESC}[31mred${ESC}[0m\ufffe end\ttab`;
  const report = (name: string, passed: boolean): ScenarioReport => ({
    name,
    source: `suite/a&b "${name}".scenario.yaml`,
    proves: 'that reports survive any name',
    passed,
    seed: 7,
    mode: 'embedded',
    failures: passed
      ? []
      : [
          {
            what: 'events',
            message: `event 1 <differs> & ${name}`,
            expected: ['a'],
            actual: ['b'],
          },
        ],
    actual: { events: [], heard: {}, states: {}, tasks: {}, invocations: [], token_requests: 0 },
    rerun: `npx badge-sim run '${name}'`,
  });

  test('a name with <&"\' and control characters yields well-formed XML that parses back', () => {
    const reporter = createJunitReporter();
    reporter.onScenarioEnd!(report(HOSTILE, false), 1234);
    const out = reporter.onEnd!({
      passed: 1,
      failed: 2,
      reports: [report('Quorum of one', true), report(HOSTILE, false)],
      loadErrors: [
        { source: `bad <${ESC}[1m&\u0002>.scenario.yaml`, message: 'cannot read "it" \u0003here' },
      ],
    })!;

    expect(XMLValidator.validate(out)).toBe(true);
    const allowed = (c: string) => {
      const code = c.codePointAt(0)!;
      return code === 0x09 || code === 0x0a || code === 0x0d || (code >= 0x20 && code < 0xfffe);
    };
    expect([...out].filter((c) => !allowed(c))).toEqual([]);
    expect(out.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n')).toBe(true);
    expect(out.endsWith('</testsuites>\n')).toBe(true);

    const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@' }).parse(out);
    const suite = parsed.testsuites.testsuite;
    expect(parsed.testsuites).toMatchObject({
      '@name': 'badge-sim scenarios',
      '@tests': '3',
      '@failures': '1',
      '@errors': '1',
    });
    expect(suite).toMatchObject({ '@tests': '3', '@failures': '1', '@errors': '1' });
    const readable = 'Tap <&"\'> red end\ttab';
    expect(suite.testcase[0]).toEqual({
      '@classname': 'suite/a&b "Quorum of one".scenario.yaml',
      '@name': 'Quorum of one',
      '@time': '0.000',
    });
    expect(suite.testcase[1]).toMatchObject({
      '@classname': `suite/a&b "${readable}".scenario.yaml`,
      '@name': readable,
      '@time': '1.234',
      failure: { '@message': `event 1 <differs> & ${readable}` },
    });
    expect(suite.testcase[1].failure['#text']).toContain(
      `run it again: npx badge-sim run '${readable}'`,
    );
    expect(suite.testcase[2]).toEqual({
      '@classname': 'bad <&>.scenario.yaml',
      '@name': 'bad <&>.scenario.yaml',
      '@time': '0',
      error: { '@message': 'cannot read "it" here' },
    });
  });
});
