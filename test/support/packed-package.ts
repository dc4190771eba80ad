/**
 * badge-sim packed as `npm pack` would publish it, built from a copy of this checkout so a
 * test run never rewrites the repository's own dist/ (decision Q6). The tests of
 * test/package/ start from here.
 */
import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, symlinkSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

export const REPO = fileURLToPath(new URL('../..', import.meta.url));
export const REPO_MODULES = join(REPO, 'node_modules');
/** Not part of what is packed: left out of the copy the package is built from. */
const NOT_COPIED = new Set(['node_modules', 'dist', '.git', 'test', 'bench', 'examples']);

/** Runs a command in the consumer's own environment: no test-runner or CI variables of ours. */
export function run(
  command: string,
  args: string[],
  cwd: string,
  timeout = 60_000,
): SpawnSyncReturns<string> {
  const result = spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    timeout,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1' },
  });
  if (result.error) throw result.error;
  return result;
}

export function expectSuccess(result: SpawnSyncReturns<string>): string {
  expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
  return result.stdout;
}

export interface PackedPackage {
  /** The .tgz file. */
  tarball: string;
  /** The paths inside it, as npm lists them. */
  files: string[];
  /** The tarball unpacked as npm installs it (the folder of its package.json). */
  unpacked: string;
}

/** Packs a copy of the checkout into `work` and unpacks the tarball to `work/unpacked`. */
export function packCheckout(work: string): PackedPackage {
  const source = join(work, 'source');
  cpSync(REPO, source, {
    recursive: true,
    filter: (path) => !NOT_COPIED.has(relative(REPO, path).split('/')[0]!),
  });
  symlinkSync(REPO_MODULES, join(source, 'node_modules'), 'dir');
  const packed = run(
    'npm',
    ['pack', '--json', '--pack-destination', work, '--loglevel=error'],
    source,
    180_000,
  );
  expectSuccess(packed);
  // prepack's own output comes first; npm's JSON report is the last thing printed.
  const report = JSON.parse(packed.stdout.slice(packed.stdout.lastIndexOf('\n[\n') + 1))[0];
  const tarball = join(work, report.filename);
  const unpacked = join(work, 'unpacked');
  mkdirSync(unpacked);
  expectSuccess(run('tar', ['-xzf', tarball, '-C', unpacked, '--strip-components=1'], work));
  return { tarball, files: report.files.map((file: { path: string }) => file.path), unpacked };
}
