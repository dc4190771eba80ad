/**
 * `npm run lint` holds the parts small (issue 30, point 5): no source file past 400 lines
 * (scripts/check-file-lengths.mjs) and no non-test function past 80 (biome's
 * noExcessiveLinesPerFunction, biome.function-lengths.jsonc), each with an allowlist of what was
 * longer when the check came, which may only shrink. Planted in a scratch tree with this
 * repository's configuration.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, test } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const BIOME = join(ROOT, 'node_modules', '.bin', 'biome');
const FILE_CHECK = join(ROOT, 'scripts', 'check-file-lengths.mjs');

/** A scratch tree of `files` (path → source) with the repository's lint configuration. */
function scratch(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'badge-sim-sizes-'));
  for (const config of ['biome.json', 'biome.function-lengths.jsonc', '.gitignore'])
    cpSync(join(ROOT, config), join(dir, config));
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), source);
  }
  return dir;
}

function run(command: string, args: string[], cwd: string) {
  const ran = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: 60_000 });
  return { status: ran.status, output: `${ran.stdout}${ran.stderr}` };
}

const checkFiles = (files: Record<string, string>) =>
  run(process.execPath, [FILE_CHECK], scratch(files));

const checkFunctions = (files: Record<string, string>) =>
  run(
    BIOME,
    ['lint', '--only=complexity/noExcessiveLinesPerFunction', ...Object.keys(files)],
    scratch(files),
  );

/** A source of `lines` lines (as `wc -l` counts them). */
const linesOf = (lines: number) => 'export const x = 1;\n'.repeat(lines);

/** A function whose body biome counts as `lines` lines. */
function functionOf(lines: number): string {
  const body = Array.from({ length: lines - 2 }, (_, i) => `  total += ${i};\n`).join('');
  return `export function long(): number {\n  let total = 0;\n${body}  return total;\n}\n`;
}

describe('file lengths', () => {
  test('the tree passes `npm run file-lengths`', () => {
    const { status, output } = run(process.execPath, [FILE_CHECK], ROOT);
    expect(output).toContain('none past its limit');
    expect(status).toBe(0);
  });

  test('a source file of 401 lines fails, named; one of 400 passes', () => {
    const long = checkFiles({ 'server-stub/a.ts': linesOf(401), 'bench/b.ts': linesOf(400) });
    expect(long.output).toContain(
      'server-stub/a.ts: 401 lines, past 400: split it by what its parts are',
    );
    expect(long.output).not.toContain('bench/b.ts');
    expect(long.status).toBe(1);
    expect(checkFiles({ 'server-stub/a.ts': linesOf(400) }).status).toBe(0);
  });

  test('benches, scripts and CSS are held; tests and generated files are not', () => {
    for (const path of ['bench/a.bench.ts', 'scripts/a.mjs', 'dashboard/a.css'])
      expect(checkFiles({ [path]: linesOf(401) }).status, path).toBe(1);
    const free = checkFiles({
      'test/a.ts': linesOf(900),
      'server-stub/a.test.ts': linesOf(900),
      'scenarios/a.generated.ts': linesOf(900),
      'protocol/a.prebuilt.ts': linesOf(900),
    });
    expect(free.status).toBe(0);
  });

  test('a listed file passes at its allowance and fails past it', () => {
    // An entry planted in a copy of the check, as its entries are written, so the check
    // outlives the entries themselves (the list is empty since issue 30).
    const allowance = 450;
    const listed = (files: Record<string, string>) => {
      const dir = scratch(files);
      symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
      const check = readFileSync(FILE_CHECK, 'utf8');
      const planted = check.replace(
        /const ALLOWANCES = \{[^}]*\};/,
        `const ALLOWANCES = { 'simulator/listed.ts': ${allowance} };`,
      );
      expect(planted).not.toBe(check);
      writeFileSync(join(dir, 'check-file-lengths.mjs'), planted);
      return run(process.execPath, [join(dir, 'check-file-lengths.mjs')], dir);
    };
    expect(listed({ 'simulator/listed.ts': linesOf(allowance) }).status).toBe(0);
    const grown = listed({ 'simulator/listed.ts': linesOf(allowance + 1) });
    expect(grown.output).toContain(`past its allowance of ${allowance}`);
    expect(grown.status).toBe(1);
  });
});

describe('function lengths', () => {
  test('a function of 81 lines fails, named; one of 80 passes', () => {
    const long = checkFunctions({ 'server-stub/a.ts': functionOf(81) });
    expect(long.output).toContain('server-stub/a.ts');
    expect(long.output).toContain('This function has too many lines (81). Maximum allowed is 80.');
    expect(long.status).toBe(1);
    expect(checkFunctions({ 'server-stub/a.ts': functionOf(80) }).status).toBe(0);
  });

  test('tests are not held', () => {
    const free = checkFunctions({
      'server-stub/a.test.ts': functionOf(200),
      'test/support/a.ts': functionOf(200),
    });
    expect(free.status).toBe(0);
  });

  test('a listed file is held to its allowance', () => {
    // An entry planted in the repository's list as its entries are written, so the check
    // outlives the entries themselves (the list is to be emptied).
    const allowance = 120;
    const listed = (files: Record<string, string>) => {
      const dir = scratch(files);
      const config = readFileSync(join(dir, 'biome.function-lengths.jsonc'), 'utf8');
      const entry = `{ "includes": ["server-stub/listed.ts"], "linter": { "rules": { "complexity": { "noExcessiveLinesPerFunction": { "level": "error", "options": { "maxLines": ${allowance} } } } } } },`;
      writeFileSync(
        join(dir, 'biome.function-lengths.jsonc'),
        config.replace(/"overrides": \[/, `"overrides": [${entry}`),
      );
      return run(
        BIOME,
        ['lint', '--only=complexity/noExcessiveLinesPerFunction', ...Object.keys(files)],
        dir,
      );
    };
    expect(listed({ 'server-stub/listed.ts': functionOf(allowance) }).status).toBe(0);
    const grown = listed({ 'server-stub/listed.ts': functionOf(allowance + 1) });
    expect(grown.output).toContain(`Maximum allowed is ${allowance}.`);
    expect(grown.status).toBe(1);
  });
});
