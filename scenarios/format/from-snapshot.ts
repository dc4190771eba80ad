/**
 * A scenario's `from: world.snapshot.json`: the world snapshot it starts from (a `snapshot:`
 * step's file, or GET /_stub/snapshot's), read when the scenario is loaded, relative to the
 * scenario file, and checked enough to name the field: a file there, JSON, a world snapshot of
 * this format, and its `badges` (if any) a fleet snapshot. The stub checks the rest when it
 * restores it, and a refusal changes nothing (decisions WS21–WS23).
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Fixtures } from '../../fixtures/fixtures.schema.ts';
import { SNAPSHOT_FORMAT, type WorldSnapshot } from '../../protocol/snapshot.schema.ts';
import { FLEET_SNAPSHOT_FORMAT } from '../../simulator/snapshot/fleet-snapshot.schema.ts';
import type { Scenario } from './scenario.schema.ts';
import { ScenarioError } from './scenario-error.ts';

/** The snapshot a scenario starts from: the stub's world, and its badges apart. */
export interface FromSnapshot {
  /** The file, absolute. */
  file: string;
  /** The stub's world, without `badges` (what PUT /_stub/snapshot restores). */
  world: WorldSnapshot;
  /** The badges' fleet snapshot, when the file holds one. */
  badges?: unknown;
}

const TAKE_ONE = 'give a file a `snapshot:` step or GET /_stub/snapshot wrote';

/** Where a scenario's `from:` file is, absolute: beside `scenarioFile`, or the working folder. */
export function snapshotFileOf(scenario: Scenario, scenarioFile?: string): string | undefined {
  if (scenario.from === undefined) return undefined;
  return resolve(scenarioFile ? dirname(scenarioFile) : process.cwd(), scenario.from);
}

/** Reads and checks the `from:` file; a ScenarioError at `from` (or `fixtures`) says what to fix. */
export function readFromSnapshot(scenario: Scenario, file: string): FromSnapshot {
  if (scenario.fixtures !== undefined)
    throw new ScenarioError(
      'fixtures: a scenario with from: runs on the fixtures its snapshot holds: leave fixtures out',
      'fixtures',
    );
  const refuse = (why: string): never => {
    throw new ScenarioError(`from: ${scenario.from} ${why}`, 'from');
  };
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    refuse(
      `(${file}): ${code === 'ENOENT' ? 'there is no such file' : `cannot be read (${code})`}; ${TAKE_ONE}`,
    );
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    refuse(`is not JSON (${(error as Error).message}): cut short or edited? write it again`);
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document))
    refuse(`is not a world snapshot (a JSON object): ${TAKE_ONE}`);
  const { badges, ...world } = document as WorldSnapshot & { format?: unknown };
  if (world.format !== SNAPSHOT_FORMAT)
    refuse(
      `is not a world snapshot of this badge-sim: its format is ${JSON.stringify(world.format)}, not '${SNAPSHOT_FORMAT}'; write it again with this version`,
    );
  const fleetFormat = (badges as { format?: unknown } | null | undefined)?.format;
  if (badges !== undefined && fleetFormat !== FLEET_SNAPSHOT_FORMAT)
    refuse(
      `holds badges whose format is ${JSON.stringify(fleetFormat)}, not '${FLEET_SNAPSHOT_FORMAT}'; write it again with this version`,
    );
  if (typeof world.fixtures !== 'object' || world.fixtures === null)
    refuse(`has no fixtures: ${TAKE_ONE}`);
  return { file, world, ...(badges === undefined ? {} : { badges }) };
}

/** The scenario on its snapshot's fixtures, so its names are checked against them. */
export function withSnapshotFixtures(scenario: Scenario, from: FromSnapshot): Scenario {
  return { ...scenario, fixtures: structuredClone(from.world.fixtures) as Fixtures };
}
