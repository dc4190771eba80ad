/**
 * Scenario files for loader tests: written to a temporary folder, and the error the loader
 * gives for one it refuses (which must name the file, the line and the field).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { loadScenarioFile, ScenarioError } from '../../scenarios/load-scenario.ts';

const dir = mkdtempSync(join(tmpdir(), 'badge-sim-scenario-files-'));

/** Writes a scenario file; returns its path. */
export function scenarioFile(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** Loads a scenario text that must be refused; checks the error names the file and `message`. */
export function expectRefused(text: string, message: string): void {
  const path = scenarioFile(`bad-${Math.random().toString(36).slice(2)}.scenario.yaml`, text);
  let error: unknown;
  try {
    loadScenarioFile(path);
  } catch (caught) {
    error = caught;
  }
  expect(error).toBeInstanceOf(ScenarioError);
  expect((error as Error).message).toContain(path);
  expect((error as Error).message).toContain(message);
}
