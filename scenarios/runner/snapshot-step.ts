/**
 * The `snapshot:` step: the world now — the stub's snapshot, with the scenario's badges as its
 * `badges` member (a fleet snapshot) — written to a file relative to the scenario file, for a
 * later scenario's `from:` (decision WS20). Taken after the step's instant has settled, so the
 * stub and the badges are at one instant.
 */
import { writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { StubControlClient } from '../../client/control-client.ts';
import type { FleetHandle } from '../../simulator/fleet-options.ts';
import { ScenarioError } from '../format/load-scenario.ts';

/** Writes the world and the badges to `given` (beside `source`, or the working folder). */
export async function writeWorldSnapshot(
  given: string,
  where: { source: string; path: string },
  control: StubControlClient,
  fleet: FleetHandle | undefined,
): Promise<void> {
  const folder = where.source === '<code>' ? process.cwd() : dirname(where.source);
  const file = resolve(folder, given);
  const world = await control.snapshot();
  const document = fleet ? { ...world, badges: fleet.snapshot() } : world;
  try {
    await writeFile(file, JSON.stringify(document));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ScenarioError(
      `badge-sim: ${where.source}: ${where.path}.snapshot: cannot write ${file} (${code}): does its folder exist, may it be written?`,
    );
  }
}
