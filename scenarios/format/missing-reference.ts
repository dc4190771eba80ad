/**
 * What a scenario says when a name it gives is not in its fixtures (an account, a group, a
 * device or user): the name, where to look, the nearest one there is, and the ones there are
 * when they are few. The runner finds these only when it knows the fixtures, after loading.
 */
import type { FixtureAccount, Fixtures } from '../../fixtures/fixtures.schema.ts';
import { FEW_WORDS, nearestWord, withSuggestion } from '../../input/nearest-word.ts';

export function noAccount(fixtures: Fixtures, account: string): string {
  return withSuggestion(
    `account ${account} is not in the fixtures`,
    account,
    fixtures.accounts.map((a) => a.subscriber_id),
    'accounts',
    true,
  );
}

export function noGroup(account: FixtureAccount, group: string): string {
  return withSuggestion(
    `no group '${group}' in account ${account.subscriber_id}`,
    group,
    account.groups.map((g) => g.name),
    'groups',
    true,
  );
}

/** A device is named by its id or its user's name: the nearest of both, the users listed. */
export function noDevice(account: FixtureAccount, ref: string): string {
  const message = `no device '${ref}' in account ${account.subscriber_id}`;
  const users = account.devices.map((d) => d.user);
  const nearest = nearestWord(ref, [...users, ...account.devices.map((d) => d.id)]);
  const parts = [message];
  if (nearest !== undefined) parts.push(`did you mean '${nearest}'?`);
  if (users.length > 0 && users.length <= FEW_WORDS) parts.push(`(users: ${users.join(', ')})`);
  return parts.length === 1 ? message : `${parts[0]}: ${parts.slice(1).join(' ')}`;
}
