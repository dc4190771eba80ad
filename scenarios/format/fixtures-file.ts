/**
 * A scenario's `fixtures: { file: fixtures.yaml }`: the fixtures file a project edits (the one
 * `badge-sim init` writes), read when the scenario is loaded, relative to the scenario file
 * (decision Y7). The scenario then carries the fixtures inline, so a run never reads the file
 * again, and a rerun (`run --watch`) that loads the scenario again sees the file as it is now.
 */
import { dirname, resolve } from 'node:path';
import { FixtureError, loadFixturesFile } from '../../fixtures/load-fixtures.ts';
import { hasOwn } from '../../input/own.ts';
import type { Scenario } from './scenario.schema.ts';

/** Where a scenario's fixtures file is, absolute: beside `scenarioFile`, or the working folder. */
export function fixturesFileOf(scenario: Scenario, scenarioFile?: string): string | undefined {
  const given = scenario.fixtures;
  if (typeof given !== 'object' || !hasOwn(given, 'file')) return undefined;
  return resolve(scenarioFile ? dirname(scenarioFile) : process.cwd(), given.file);
}

/**
 * The scenario with its fixtures file read into it, or a `FixtureError` whose path is
 * `fixtures.file` (so the scenario's error points at the line naming the file) and whose
 * message says what is wrong in the fixtures file, with its own line.
 */
export function withFixturesFile(scenario: Scenario, file: string): Scenario {
  try {
    return { ...scenario, fixtures: loadFixturesFile(file) };
  } catch (error) {
    if (!(error instanceof FixtureError)) throw error;
    throw new FixtureError(
      `fixtures.file: ${error.message.replace(/^badge-sim: /, '')}`,
      'fixtures.file',
    );
  }
}
