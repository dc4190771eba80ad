/**
 * Scenario files for loader tests: written to a temporary folder, and the error the loader
 * gives for one it refuses (which must name the file, the line and the field).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { loadScenarioFile, ScenarioError } from '../../scenarios/format/load-scenario.ts';

/**
 * A scenario that loads and passes: loader tests break it one way each (line numbers of their
 * expected errors count from its first line).
 */
export const QUORUM_OF_ONE = `name: Quorum of one
proves: The first tap ends the alert and the others hear on_quorum.
badges: { group: Nurses }
behaviours:
  Ben Okafor: { ack: { after: 5s } }
timeline:
  - at: 0s
    alert: { notification: One runner, groups: [Nurses], quorum: 1, on_quorum: Covered }
    as: runner
duration: 1m
expect:
  events:
    only: true
    items:
      - { type: start, task: runner, at: 0s }
      - { type: acknowledged, device: Ben Okafor, at: 5s }
      - { type: end, status: normal, at: 5s }
  heard:
    Ada Mensah: { texts: [One runner, Covered] }
  tasks:
    runner: { outcome: quorum, acknowledgements: 1 }
`;

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
