/**
 * The fixtures a scenario made from a recording keeps (decision RS16): of the account it
 * replays, the devices that ran badges, the groups its alerts and broadcasts named with all
 * their members (a replay reaches every member, as the session did), and the devices its
 * events name; another account only when a step needs its key (`auth: other-account`), with
 * nothing but its credentials. `record --all-fixtures` keeps them all.
 */
import type { FixtureAccount, FixtureGroup, Fixtures } from '../../../fixtures/fixtures.schema.ts';
import { ownValue } from '../../../input/own.ts';

/** What the scenario's steps and expectations use of the fixtures. */
export interface FixturesUsed {
  /** Devices that ran badges, or that an event or a record names (ids). */
  devices: Iterable<string>;
  /** User names the expected events name. */
  users: Iterable<string>;
  /** The steps, for the groups their alerts and broadcasts name and their `auth`. */
  steps: readonly Record<string, unknown>[];
}

/** The fixtures trimmed to what the scenario uses, and what was left out (said in its header). */
export function trimmedFixtures(
  fixtures: Fixtures,
  subscriberId: string,
  used: FixturesUsed,
): { fixtures: Fixtures; left: string | undefined } {
  const account = fixtures.accounts.find((a) => a.subscriber_id === subscriberId);
  if (!account) return { fixtures, left: undefined };
  const refs = used.steps.flatMap(groupRefs);
  const groups = account.groups.filter((group) => refs.some((ref) => names(ref, group)));
  const devices = new Set(used.devices);
  const users = new Set(used.users);
  for (const group of groups) for (const member of group.members) devices.add(member);
  const kept: FixtureAccount = {
    ...account,
    groups,
    devices: account.devices.filter((d) => devices.has(d.id) || users.has(d.user)),
  };
  delete kept.workflows;
  const accounts = [kept];
  // `auth: other-account` sends the key of the fixtures' first other account.
  const other = fixtures.accounts.find((a) => a !== account);
  if (other && used.steps.some((step) => step.auth === 'other-account'))
    accounts.push(credentialsOnly(other));
  const left = [
    ...dropped('account', fixtures.accounts.length - accounts.length),
    ...dropped('group', account.groups.length - kept.groups.length),
    ...dropped('device', account.devices.length - kept.devices.length),
    ...dropped('workflow', account.workflows?.length ?? 0),
  ];
  return {
    fixtures: { ...fixtures, accounts },
    left: left.length > 0 ? left.join(', ') : undefined,
  };
}

function dropped(what: string, n: number): string[] {
  return n > 0 ? [`${n} ${what}${n === 1 ? '' : 's'}`] : [];
}

function credentialsOnly(account: FixtureAccount): FixtureAccount {
  const { workflows: _, ...rest } = account;
  return { ...rest, groups: [], devices: [] };
}

/** The group references of an alert or broadcast step (its body's `groups`, as sent). */
function groupRefs(step: Record<string, unknown>): string[] {
  const groups = ownValue(step.alert ?? step.broadcast, 'groups');
  return Array.isArray(groups) ? groups.filter((g): g is string => typeof g === 'string') : [];
}

/** Whether a reference names the group: by name, or by a URN of its name or id (any URN word). */
function names(ref: string, group: FixtureGroup): boolean {
  if (ref === group.name) return true;
  const urnName = /:name:group:(.*)$/.exec(ref)?.[1];
  if (urnName !== undefined) return urnName === group.name || decoded(urnName) === group.name;
  return ref.endsWith(`:id:group:${group.id}`);
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
