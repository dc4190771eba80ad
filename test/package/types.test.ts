/**
 * The types are the package's public contract: what its declarations show a user, checked on
 * the packed tarball. Every type an entry point's declarations reach is exported by an entry
 * point (nothing internal leaks); each entry point's public-types file lists every type that
 * entry exports; arethetypeswrong and publint find no problem; and the README's TypeScript
 * examples that import badge-sim type-check as written against the packed package. Beside the
 * types, the other machine-readable contract it ships: the device protocol's AsyncAPI document.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { deviceProtocolAsyncApi } from '../../protocol/device-protocol.asyncapi.ts';
import { walkDeclarations } from '../support/declarations.ts';
import {
  expectSuccess,
  type PackedPackage,
  packCheckout,
  REPO,
  REPO_MODULES,
  run,
} from '../support/packed-package.ts';

/** Each entry point and the file of its public types (decision Q8). */
const PUBLIC_TYPES: Record<string, string> = {
  '.': 'dist/public-types.d.ts',
  './vitest': 'dist/scenarios/vitest-public-types.d.ts',
  './testcontainers': 'dist/container/public-types.d.ts',
  './contract': 'dist/contract/public-types.d.ts',
};

let work: string;
let packed: PackedPackage;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'badge-sim-types-'));
  packed = packCheckout(work);
  // The package's dependencies and peers, found one folder up as in an installed project.
  symlinkSync(REPO_MODULES, join(work, 'node_modules'), 'dir');
}, 240_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the declarations', () => {
  test('every type that an entry point reaches is exported by an entry point: nothing internal leaks', () => {
    const report = walkDeclarations(packed.unpacked);
    expect([...report.entries.keys()].sort()).toEqual(Object.keys(PUBLIC_TYPES).sort());
    // The walk did read the package: the handles, their options and what those mention.
    expect(report.reached.size).toBeGreaterThan(80);
    expect([...report.reached.values()]).toContain('. exports StubHandle');
    expect(report.leaked).toEqual([]);
  });

  test("each entry point's public-types file lists every type the entry point exports", () => {
    const report = walkDeclarations(packed.unpacked);
    for (const [subpath, entryTypes] of report.entries) {
      const listed = report.exportsOf(PUBLIC_TYPES[subpath]!);
      const missing = [...report.exportsOf(entryTypes)]
        .filter(([name, { declaresType }]) => declaresType && !listed.has(name))
        .map(([name]) => `${subpath}: ${name}`);
      expect(missing).toEqual([]);
    }
  });

  test('arethetypeswrong finds no problem in the tarball (profile esm-only: require() of the ES modules is left to Node)', () => {
    const attw = join(REPO_MODULES, '@arethetypeswrong', 'cli', 'dist', 'index.js');
    const checked = run(
      'node',
      [attw, packed.tarball, '--profile', 'esm-only', '--format', 'ascii', '--no-color'],
      work,
    );
    expectSuccess(checked);
    for (const entry of Object.keys(PUBLIC_TYPES))
      expect(checked.stdout).toContain(`"badge-sim${entry.slice(1)}"`);
  });

  test('publint finds nothing to report in the tarball, suggestions included', () => {
    const publint = join(REPO_MODULES, 'publint', 'src', 'cli.js');
    const checked = run('node', [publint, 'run', packed.tarball, '--strict'], work);
    expectSuccess(checked);
    expect(checked.stdout).toContain('All good!');
  });
});

describe('the README', () => {
  test('its TypeScript examples that import badge-sim type-check as written against the packed package', () => {
    const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
    const examples = [...readme.matchAll(/^```ts\n([\s\S]*?)^```/gm)]
      .map((match) => match[1]!)
      .filter((code) => /from 'badge-sim(\/[a-z]+)?'/.test(code));
    // The library examples: vitest, the worked example, your own tests, testcontainers, contract.
    expect(examples.length).toBeGreaterThanOrEqual(5);

    const project = join(work, 'readme-examples');
    mkdirSync(join(project, 'node_modules'), { recursive: true });
    symlinkSync(packed.unpacked, join(project, 'node_modules', 'badge-sim'), 'dir');
    writeFileSync(join(project, 'package.json'), JSON.stringify({ type: 'module' }));
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { module: 'nodenext', target: 'es2022', strict: true, noEmit: true },
      }),
    );
    examples.forEach((code, index) => {
      writeFileSync(join(project, `readme-example-${index + 1}.ts`), code);
    });
    const tsc = join(REPO_MODULES, 'typescript', 'bin', 'tsc');
    expectSuccess(run('node', [tsc, '-p', project], project, 120_000));
  }, 150_000);
});

describe('the AsyncAPI document of the device protocol (D17)', () => {
  test('is shipped: `badge-sim/asyncapi.json` resolves in an installed project to the document the frame schemas make', () => {
    const project = join(work, 'asyncapi-consumer');
    mkdirSync(join(project, 'node_modules'), { recursive: true });
    symlinkSync(packed.unpacked, join(project, 'node_modules', 'badge-sim'), 'dir');
    writeFileSync(join(project, 'package.json'), JSON.stringify({ type: 'module' }));
    const script = `import { createRequire } from 'node:module';
console.log(JSON.stringify(createRequire(import.meta.url)('badge-sim/asyncapi.json')));`;
    writeFileSync(join(project, 'read.mjs'), script);
    const read = expectSuccess(run('node', ['read.mjs'], project));
    expect(JSON.parse(read)).toEqual(deviceProtocolAsyncApi());
  });
});
