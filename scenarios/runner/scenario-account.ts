/** The account a scenario runs as, and its devices found by id or user name. */

import type { FixtureAccount, FixtureDevice, Fixtures } from '../../fixtures/fixtures.schema.ts';
import { ScenarioError } from '../format/load-scenario.ts';
import { noAccount, noDevice } from '../format/missing-reference.ts';
import type { Scenario } from '../format/scenario.schema.ts';

/** The scenario's account, and its devices by id or user name. */
export interface ScenarioAccount {
  readonly fixture: FixtureAccount;
  /** Another account of the fixtures, for `auth: other-account`. */
  readonly other: FixtureAccount | undefined;
  readonly devices: Map<string, FixtureDevice>;
  resolve(ref: string, path: string): FixtureDevice;
  resolveAny(ref: string, path: string): FixtureDevice;
}

export function accountOf(
  scenario: Scenario,
  fixtures: Fixtures,
  place: (path: string) => string,
): ScenarioAccount {
  const account = scenario.account
    ? fixtures.accounts.find((a) => a.subscriber_id === scenario.account)
    : fixtures.accounts[0];
  if (!account)
    throw new ScenarioError(
      `badge-sim: ${place('account')}: ${noAccount(fixtures, scenario.account!)}`,
    );
  const devices = new Map(account.devices.map((d) => [d.id, d]));
  const resolve = (ref: string, path: string) => {
    const device = devices.get(ref) ?? account.devices.find((d) => d.user === ref);
    if (!device)
      throw new ScenarioError(`badge-sim: ${place(path)}: ${path}: ${noDevice(account, ref)}`);
    return device;
  };
  return {
    fixture: account,
    other: fixtures.accounts.find((a) => a !== account),
    devices,
    resolve,
    // Trigger steps may name another account's device, to see it refused.
    resolveAny: (ref, path) =>
      devices.get(ref) ??
      account.devices.find((d) => d.user === ref) ??
      fixtures.accounts.flatMap((a) => a.devices).find((d) => d.id === ref || d.user === ref) ??
      resolve(ref, path),
  };
}
