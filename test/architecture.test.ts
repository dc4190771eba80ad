/**
 * The layers of docs/architecture.md are checked by `npm run layers` (dependency-cruiser, part
 * of `npm run lint`): the tree passes with only its listed known violations, and an import
 * that climbs up a layer, a cycle, or the dashboard reaching past protocol/ is refused, rule
 * by rule (planted in a scratch tree with this repository's rules).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, test } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const DEPCRUISE = join(ROOT, 'node_modules', '.bin', 'depcruise');

/** Runs the repository's rules over a scratch tree of `files` (path → source). */
function cruise(files: Record<string, string>): { status: number | null; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'badge-sim-layers-'));
  for (const config of ['.dependency-cruiser.cjs', '.dependency-cruiser.babel.cjs'])
    cpSync(join(ROOT, config), join(dir, config));
  // Babel's preset, as the repository resolves it.
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), source);
  }
  const ran = spawnSync(
    DEPCRUISE,
    ['--config', '.dependency-cruiser.cjs', '-T', 'err', ...Object.keys(files)],
    { cwd: dir, encoding: 'utf8', timeout: 60_000 },
  );
  return { status: ran.status, output: `${ran.stdout}${ran.stderr}` };
}

const leaf = 'export const x = 1;\n';

describe('the layers are checked', () => {
  test('the tree passes `npm run layers` (known violations aside, each listed to be removed)', () => {
    const script = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.layers;
    const ran = spawnSync('sh', ['-c', script.replace(/^depcruise/, DEPCRUISE)], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 170_000,
    });
    expect(ran.stdout + ran.stderr).toContain('no dependency violations found');
    expect(ran.status).toBe(0);
    // dependency-cruiser reads the whole tree (340 modules): over a minute on a loaded 2-core machine.
  }, 180_000);

  test.each([
    ['protocol-is-the-bottom', 'protocol/a.ts', 'server-stub/b.ts'],
    ['clock-on-protocol-only', 'clock/a.ts', 'fixtures/b.ts'],
    ['input-on-protocol-only', 'input/a.ts', 'fixtures/b.ts'],
    ['fixtures-on-protocol-only', 'fixtures/a.ts', 'simulator/b.ts'],
    ['client-knows-no-stub', 'client/a.ts', 'server-stub/b.ts'],
    ['stub-knows-no-badges', 'server-stub/a.ts', 'simulator/b.ts'],
    ['stub-knows-no-badges', 'server-stub/a.ts', 'stub-connection/b.ts'],
    ['connection-below-badges', 'stub-connection/a.ts', 'simulator/b.ts'],
    ['badges-know-no-stub-internals', 'simulator/a.ts', 'server-stub/b.ts'],
    ['model-below-scenarios', 'model/a.ts', 'scenarios/b.ts'],
    ['scenarios-below-commands', 'scenarios/a.ts', 'cli/b.ts'],
    ['scenario-format-is-the-base', 'scenarios/format/a.ts', 'scenarios/runner/b.ts'],
    ['scenario-format-is-the-base', 'scenarios/format/a.ts', 'scenarios/vitest.ts'],
    ['checks-know-only-the-format', 'scenarios/checks/a.ts', 'scenarios/runner/b.ts'],
    ['runner-knows-no-reports', 'scenarios/runner/a.ts', 'scenarios/reports/b.ts'],
    ['reports-and-field-bugs-apart', 'scenarios/field-bugs/a.ts', 'scenarios/reports/b.ts'],
    ['container-and-contract-below-commands', 'container/a.ts', 'scenarios/b.ts'],
    ['dashboard-reads-protocol-only', 'dashboard/a.ts', 'fixtures/b.ts'],
    ['product-imports-no-tests', 'scenarios/a.ts', 'test/support/b.ts'],
  ])('%s: %s importing %s is refused', (rule, from, to) => {
    const up = `${'../'.repeat(from.split('/').length - 1)}${to}`;
    const { status, output } = cruise({ [from]: `import { x } from '${up}';\nx;\n`, [to]: leaf });
    expect(output).toContain(`error ${rule}: ${from} → ${to}`);
    expect(status).not.toBe(0);
  });

  test('an import made when first needed (`await import`) is held to the same rules', () => {
    const { status, output } = cruise({
      // Behind a return type with a method in it, which TypeScript-less parsing got wrong.
      'server-stub/a.ts':
        "export async function f(): Promise<{ close(): void }> {\n  const { x } = await import('../simulator/b.ts');\n  return x;\n}\n",
      'simulator/b.ts': leaf,
    });
    expect(output).toContain('error stub-knows-no-badges: server-stub/a.ts → simulator/b.ts');
    expect(status).not.toBe(0);
  });

  test('a type-only import is held to the same rules (a layer naming another’s types depends on it)', () => {
    const { output } = cruise({
      'simulator/a.ts':
        "import type { X } from '../server-stub/b.ts';\nexport let a: X | undefined;\n",
      'server-stub/b.ts': 'export interface X {\n  close(): Promise<void>;\n}\n',
    });
    expect(output).toContain(
      'error badges-know-no-stub-internals: simulator/a.ts → server-stub/b.ts',
    );
  });

  test('a cycle is refused; the same imports one way are fine', () => {
    const cycle = cruise({
      'simulator/a.ts': "import { y } from './b.ts';\nexport const x = y;\n",
      'simulator/b.ts': "import { x } from './a.ts';\nexport const y = () => x;\n",
    });
    expect(cycle.output).toContain('error no-cycles');
    const oneWay = cruise({
      'simulator/a.ts': "import { y } from './b.ts';\nexport const x = y;\n",
      'simulator/b.ts': 'export const y = 1;\n',
      'scenarios/c.ts': "import { x } from '../simulator/a.ts';\nx;\n",
    });
    expect(oneWay.output).toContain('no dependency violations found');
    expect(oneWay.status).toBe(0);
  });
});
