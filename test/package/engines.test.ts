/**
 * A clean install on the oldest Node the package names: no package of the tree (what a user's
 * `npm install badge-sim` brings, and what a contributor's `npm ci` brings) asks for a newer
 * Node than `engines` promises, so npm prints no EBADENGINE warning. fastify's inject helper
 * (light-my-request 6.8) took cookie 2, which wants Node 22; the package pins light-my-request
 * 6.6.0 (cookie 1) and fastify's `^6` dedupes to it (issue 31 point 8).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { describe, expect, test } from 'vitest';
import { REPO } from '../support/packed-package.ts';

interface InstalledPackage {
  name: string;
  version: string;
  location: string;
  dev: boolean;
  engines?: { node?: string };
}

// Every package of the installed tree, as npm placed it (one query: each takes seconds).
const tree = JSON.parse(
  execFileSync('npm', ['query', '*'], { cwd: REPO, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }),
) as InstalledPackage[];

function wantsNewerNode(packages: InstalledPackage[], oldest: string): string[] {
  return packages
    .filter((p) => p.engines?.node && !semver.satisfies(oldest, p.engines.node))
    .map((p) => `${p.name}@${p.version} wants node ${p.engines?.node} (${p.location})`);
}

const manifest = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
  engines: { node: string };
  dependencies: Record<string, string>;
};
const oldest = semver.minVersion(manifest.engines.node)?.version ?? '';

describe('engines', () => {
  test('the package promises Node 20.19 and later, the first Node 20 that loads ES modules with require()', () => {
    expect(oldest).toBe('20.19.0');
  });

  test('every package a user installs with badge-sim runs on that Node (no EBADENGINE)', () => {
    const production = tree.filter((p) => !p.dev);
    expect(production.length).toBeGreaterThan(30);
    expect(wantsNewerNode(production, oldest)).toEqual([]);
  });

  test("fastify's light-my-request dedupes to the pinned one, whose cookie runs on Node 20", () => {
    expect(manifest.dependencies['light-my-request']).toBe('6.6.0');
    const copies = tree.filter((p) => p.name === 'light-my-request');
    expect(copies.map((p) => `${p.version} ${p.location}`)).toEqual([
      '6.6.0 node_modules/light-my-request',
    ]);
    const cookies = tree.filter((p) => p.name === 'cookie' && !p.dev);
    expect(cookies.length).toBeGreaterThan(0);
    expect(wantsNewerNode(cookies, oldest)).toEqual([]);
  });

  test("every package of a contributor's npm ci runs on that Node", () => {
    expect(wantsNewerNode(tree, oldest)).toEqual([]);
  });
});
