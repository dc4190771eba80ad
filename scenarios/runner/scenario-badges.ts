/** A scenario's badges: the ones it selects, with their behaviours, started and connected. */

import type { FixtureAccount } from '../../fixtures/fixtures.schema.ts';
import { startFleet } from '../../simulator/fleet.ts';
import { FleetError } from '../../simulator/fleet-connect.ts';
import type { FleetHandle } from '../../simulator/fleet-options.ts';
import type { FleetSnapshot } from '../../simulator/snapshot/fleet-snapshot.ts';
import type { StubConnection } from '../../stub-connection/stub-connection.ts';
import { ScenarioError } from '../format/load-scenario.ts';
import { noGroup } from '../format/missing-reference.ts';
import type { Scenario } from '../format/scenario.schema.ts';
import type { TracedRun } from './run-trace.ts';
import type { ScenarioAccount } from './scenario-account.ts';

/** The badges: a group, a list, or every device of the account; connected. */
export async function startBadges(
  scenario: Scenario,
  place: (path: string) => string,
  account: ScenarioAccount,
  connection: StubConnection,
  seed: number,
  inspect: TracedRun['inspect'],
  snapshot?: unknown,
): Promise<FleetHandle | undefined> {
  const selection = scenario.badges;
  const badgeIds =
    selection === 'none'
      ? []
      : selection?.devices
        ? selection.devices.map((ref, i) => account.resolve(ref, `badges.devices[${i}]`).id)
        : selection?.group
          ? (account.fixture.groups.find((g) => g.name === selection.group)?.members ??
            missingGroup(place, account.fixture, selection.group))
          : account.fixture.devices.map((d) => d.id);
  const behaviours: Record<string, NonNullable<Scenario['behaviours']>[string]> = {};
  for (const [ref, behaviour] of Object.entries(scenario.behaviours ?? {})) {
    if (ref === '*') continue;
    behaviours[account.resolve(ref, `behaviours.${ref}`).id] = behaviour;
  }
  if (badgeIds.length === 0) return undefined;
  let fleet: FleetHandle;
  try {
    fleet = await startFleet({
      stub: connection,
      devices: badgeIds,
      behaviours,
      behaviour: scenario.behaviours?.['*'],
      // A restored fleet goes on with its snapshot's draws (FS7).
      ...(snapshot === undefined ? { seed } : { snapshot: snapshot as FleetSnapshot }),
      ...(inspect ? { inspect } : {}),
    });
  } catch (error) {
    if (!(error instanceof FleetError && error.message.startsWith('badge-sim: snapshot')))
      throw error;
    const why = error.message.replace(/^badge-sim: /, '');
    throw new ScenarioError(`badge-sim: ${place('from')}: from: its badges: ${why}`);
  }
  await fleet.waitUntilConnected();
  return fleet;
}

function missingGroup(
  place: (path: string) => string,
  account: FixtureAccount,
  group: string,
): never {
  throw new ScenarioError(
    `badge-sim: ${place('badges.group')}: badges.group: ${noGroup(account, group)}`,
  );
}
