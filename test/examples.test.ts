/**
 * The README's worked examples are files in examples/, shown in the README as they are:
 * each runs here as a user runs it, and the README must hold its current text.
 */
import { spawnSync } from 'node:child_process';
import {
  closeSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, onTestFinished, test } from 'vitest';
import { BIN } from './support/cli.ts';

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

describe('examples/world-snapshot-suite.test.ts', () => {
  // It runs as one of the suite's own tests (vitest finds it); here: the README shows it as it is.
  test('is in the README as it is', () => {
    expect(readme).toContain(readFileSync('examples/world-snapshot-suite.test.ts', 'utf8').trim());
  });
});

describe("the README's `await using` examples say where they run", () => {
  test('each is TypeScript, and the README says plain JavaScript gets `await using` from Node 24', () => {
    const blocks = [...readme.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)];
    const withUsing = blocks.filter((b) => b[2]!.includes('await using'));
    expect(withUsing.length).toBeGreaterThan(3);
    expect(withUsing.map((b) => b[1])).toEqual(withUsing.map(() => 'ts'));
    expect(readme).toContain('plain JavaScript has it only\nfrom Node 24');
  });

  test('on this Node, plain JavaScript reads `await using` as the README says', () => {
    const dir = mkdtempSync(join(tmpdir(), 'badge-sim-using-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'using.mjs');
    writeFileSync(file, 'await using handle = { [Symbol.asyncDispose]: async () => {} };\n');
    const run = spawnSync(process.execPath, [file], { encoding: 'utf8', timeout: 30_000 });
    if (Number(process.versions.node.split('.')[0]) < 24) {
      expect(run.stderr).toContain('SyntaxError');
    } else {
      expect(run.status).toBe(0);
    }
  });
});

describe('examples/field-bug: the worked example of "Reproducing a field bug"', () => {
  const dir = 'examples/field-bug';
  const section = readmeSection('### Worked example: a tap that acknowledged the wrong alert');
  const [reproCommand, reproOutput, edit, runCommand, runOutput] = fencedBlocks(section, [
    'sh',
    'text',
    'diff',
    'sh',
    'text',
  ]);

  test('the shipped export is what make-export.ts makes', () => {
    expect(runExample(`${dir}/make-export.ts`)).toBe(readFileSync(`${dir}/events.json`, 'utf8'));
  });

  test("repro prints the README's output, and the README's edit of its scenario is the shipped regression test", () => {
    // A fresh clone's layout, in a folder of its own: the scenario it writes lands there.
    const clone = mkdtempSync(join(tmpdir(), 'badge-sim-field-bug-'));
    onTestFinished(() => rmSync(clone, { recursive: true, force: true }));
    mkdirSync(join(clone, dir), { recursive: true });
    copyFileSync(`${dir}/events.json`, join(clone, dir, 'events.json'));
    const run = runAsTyped(reproCommand!, clone);
    expect(run.output).toBe(reproOutput);
    expect(run.status).toBe(1); // the histories differ
    const inferred = readFileSync(join(clone, 'field-bug.scenario.yaml'), 'utf8');
    expect(applyEdit(inferred, edit!)).toBe(readFileSync(`${dir}/field-bug.scenario.yaml`, 'utf8'));
  });

  test("the shipped regression test passes with the README's run command, as printed", () => {
    const run = runAsTyped(runCommand!, dir);
    const anyTime = (text: string) => text.replace(/ \d+ ms$/gm, ' … ms');
    expect(anyTime(run.output)).toBe(anyTime(runOutput!));
    expect(run.status).toBe(0);
  });
});

/** The README from a heading to the next heading of its level or above. */
function readmeSection(heading: string): string {
  const start = readme.indexOf(`\n${heading}\n`);
  expect(start, `README has no ${heading}`).toBeGreaterThan(-1);
  const level = heading.indexOf(' ');
  const next = readme.slice(start + heading.length + 2).search(new RegExp(`^#{1,${level}} `, 'm'));
  return readme.slice(start, next === -1 ? undefined : start + heading.length + 2 + next);
}

/** The fenced blocks of a text, which must be of these languages in this order. */
function fencedBlocks(text: string, languages: string[]): string[] {
  const blocks = [...text.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)];
  expect(blocks.map((b) => b[1])).toEqual(languages);
  return blocks.map((b) => b[2]!);
}

/**
 * A one-line `npx badge-sim …` command run as the user types it, in `cwd`, with its standard
 * output and error in one stream, as a terminal shows them.
 */
function runAsTyped(command: string, cwd: string): { output: string; status: number | null } {
  const args = command.trim().split(/ +/);
  expect(args.slice(0, 2)).toEqual(['npx', 'badge-sim']);
  const dir = mkdtempSync(join(tmpdir(), 'badge-sim-output-'));
  const file = join(dir, 'terminal');
  const terminal = openSync(file, 'w');
  try {
    const run = spawnSync(process.execPath, [BIN, ...args.slice(2)], {
      cwd,
      stdio: ['ignore', terminal, terminal],
      timeout: 60_000,
    });
    return { output: readFileSync(file, 'utf8'), status: run.status };
  } finally {
    closeSync(terminal);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A unified diff's one hunk (lines of ` `, `-`, `+`) applied where its old lines are, once. */
function applyEdit(text: string, diff: string): string {
  const lines = diff.trimEnd().split('\n');
  expect(lines.every((l) => /^[ +-]/.test(l))).toBe(true);
  const side = (keep: string) =>
    lines
      .filter((l) => l[0] === ' ' || l[0] === keep)
      .map((l) => `${l.slice(1)}\n`)
      .join('');
  const [before, after] = [side('-'), side('+')];
  expect(text.split(before)).toHaveLength(2); // the edit's old lines are in the text, once
  return text.replace(before, () => after);
}
