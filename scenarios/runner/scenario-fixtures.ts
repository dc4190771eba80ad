/**
 * The fixtures a scenario runs on: the default ones, inline ones, or generated from a seed. The
 * default and generated ones are made once a process and shared by the scenarios that ask for
 * them (the stub copies what it is given), so a suite does not read or generate them again
 * for each scenario, and a kept stub (scenario-stubs.ts) sees the same document again.
 */
import type { Fixtures } from '../../fixtures/fixtures.schema.ts';
import { generateFixtures } from '../../fixtures/generate-fixtures.ts';
import { DEFAULT_FIXTURES_FILE, loadFixturesFile } from '../../fixtures/load-fixtures.ts';
import { hasOwn } from '../../input/own.ts';
import type { Scenario } from '../format/scenario.schema.ts';

let defaultFixtures: Fixtures | undefined;
/** Fixtures generated for the last few `generate:` requests: the same request, the same ones. */
const generated = new Map<string, Fixtures>();
const GENERATED_KEPT = 8;

export function resolveFixtures(scenario: Scenario): Fixtures {
  const given = scenario.fixtures ?? 'default';
  if (given === 'default') {
    defaultFixtures ??= loadFixturesFile(DEFAULT_FIXTURES_FILE);
    return defaultFixtures;
  }
  if (hasOwn(given, 'generate')) {
    // Generated from its seed, so made once: faker takes milliseconds, a scenario not many more.
    const key = JSON.stringify(given.generate);
    let fixtures = generated.get(key);
    if (!fixtures) {
      fixtures = generateFixtures(given.generate);
      generated.set(key, fixtures);
      if (generated.size > GENERATED_KEPT) generated.delete(generated.keys().next().value!);
    }
    return fixtures;
  }
  // A scenario's loader reads its fixtures file into it (fixtures-file.ts): this one was not.
  if (hasOwn(given, 'file')) return loadFixturesFile(given.file);
  return given;
}
