/**
 * How the installed `run` and `stub` load their bundle (decision Q18): its text is read as
 * Latin-1 when it is ASCII, which is what the build writes (issue 28: start-up), and as UTF-8
 * otherwise. Either way the code runs with its strings as written.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, expect, test } from 'vitest';
import { loadCommandBundle } from '../../cli/command-bundle.ts';

const work = mkdtempSync(join(tmpdir(), 'badge-sim-command-bundle-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function bundleOf(name: string, text: string): URL {
  const file = join(work, name);
  writeFileSync(file, text);
  return pathToFileURL(file);
}

test('a bundle in ASCII runs with its escaped text as written', () => {
  const bundle = bundleOf('ascii.cjs', "module.exports.words = 'at 5s\\u00B1100ms';\n");
  expect(loadCommandBundle(bundle, 'none').words).toBe('at 5s±100ms');
});

test('a bundle that is not ASCII is read as UTF-8: its characters arrive whole', () => {
  const bundle = bundleOf('utf8.cjs', "module.exports.words = 'at 5s±100ms → naïve';\n");
  expect(loadCommandBundle(bundle, 'none').words).toBe('at 5s±100ms → naïve');
});
