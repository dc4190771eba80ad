/**
 * The fixtures a reproduction runs on: placeholders made from who acknowledged what (decision
 * FB4), or the account of `--fixtures` that holds them, with each alert's groups.
 */
import type { FixtureAccount, FixtureDevice, Fixtures } from '../../../fixtures/fixtures.schema.ts';
import { type FieldAlert, type Guess, sentGroupsOf } from './field-alerts.ts';
import { ExportError } from './read-export.ts';

/** The account of generated fixtures (placeholders; decision FB4). */
const PLACEHOLDER_ACCOUNT = 'repro';
const PLACEHOLDER_KEY = 'repro-placeholder-api-key';

export interface FixturesChoice {
  fixtures: Fixtures;
  account: FixtureAccount;
  groupsOf(alert: FieldAlert): string[];
  badgeUsers: string[];
}

/** The users who acknowledged, in order of their first acknowledgement. */
function ackers(alerts: FieldAlert[]): string[] {
  const users = new Set<string>();
  for (const ack of alerts.flatMap((a) => a.acks).sort((a, b) => a.atMs - b.atMs))
    users.add(ack.user);
  return [...users];
}

/**
 * Minimal fixtures (decision FB4): one account, a device per user seen, a group per alert
 * name (or per group a body names) whose members are those who acknowledged its alerts; a
 * group nobody acknowledged gets a silent placeholder member that runs no badge.
 */
export function generatedFixtures(alerts: FieldAlert[], guesses: Guess[]): FixturesChoice {
  const users = ackers(alerts);
  const devices: FixtureDevice[] = users.map((user, i) => ({
    id: `VIRTREPRO${String(i + 1).padStart(4, '0')}`,
    user,
  }));
  const groupsByAlert = new Map(
    alerts.map((a) => [a, sentGroupsOf(a) ?? [`${a.name} (guessed group)`]]),
  );
  const groups = groupsOfAlerts(groupsByAlert, new Map(devices.map((d) => [d.user, d.id])));
  // A group nobody acknowledged still needs a member for its alert to go out: a silent one.
  let silent = 0;
  for (const group of groups.filter((g) => g.members.length === 0)) {
    silent += 1;
    const id = `VIRTSILENT${String(silent).padStart(4, '0')}`;
    devices.push({ id, user: `Silent member ${silent}` });
    group.members.push(id);
  }
  guesses.push({
    path: ['fixtures'],
    comment:
      'guessed: placeholders. One account, a device per user who acknowledged, each group the\nusers who acknowledged its alerts; silent members are unknown (edit, or pass --fixtures)',
  });
  const account: FixtureAccount = {
    subscriber_id: PLACEHOLDER_ACCOUNT,
    api_keys: [PLACEHOLDER_KEY],
    groups,
    devices,
  };
  return {
    fixtures: { accounts: [account] },
    account,
    groupsOf: (alert) => groupsByAlert.get(alert)!,
    badgeUsers: users,
  };
}

/**
 * One fixture group per group the alerts name, its members the devices of those who
 * acknowledged its alerts; of an alert with several groups, the first (the events do not say).
 */
function groupsOfAlerts(
  groupsByAlert: Map<FieldAlert, string[]>,
  idOf: Map<string, string>,
): FixtureAccount['groups'] {
  const byKey = new Map<string, GroupRef & { ids: Set<string> }>();
  for (const [alert, refs] of groupsByAlert) {
    for (const ref of refs) {
      const group = groupNamed(ref);
      if (!byKey.has(group.key)) byKey.set(group.key, { ...group, ids: new Set() });
    }
    const first = byKey.get(groupNamed(refs[0]!).key)!;
    for (const ack of alert.acks) first.ids.add(idOf.get(ack.user)!);
  }
  return [...byKey.values()].map(({ id, name, ids }, i) => ({
    id: id ?? `repro${i + 1}`,
    name,
    members: [...ids],
  }));
}

interface GroupRef {
  /** One group however a body names it: by name, by name URN, by id URN. */
  key: string;
  id?: string;
  name: string;
}

/** A group as a body names it: `Nurses`, `urn:…:name:group:Nurses`, `urn:…:id:group:5001`. */
function groupNamed(ref: string): GroupRef {
  const urn = /^urn:[^:]+:(id|name):group:(.+)$/.exec(ref);
  if (urn?.[1] === 'name') return { key: `name:${urn[2]}`, name: urn[2]! };
  if (urn?.[1] === 'id' && /^[A-Za-z0-9_-]+$/.test(urn[2]!))
    return { key: `id:${urn[2]}`, id: urn[2]!, name: `Group ${urn[2]}` };
  return { key: `name:${ref}`, name: ref };
}

/**
 * `--fixtures` given: the account holding the most users who acknowledged; each alert's
 * groups as sent, else the smallest group holding everyone who acknowledged it (a guess).
 */
export function givenFixtures(
  fixtures: Fixtures,
  alerts: FieldAlert[],
  guesses: Guess[],
): FixturesChoice {
  const users = ackers(alerts);
  const holds = (a: FixtureAccount) =>
    users.filter((u) => a.devices.some((d) => d.user === u)).length;
  const account = [...fixtures.accounts].sort((a, b) => holds(b) - holds(a))[0];
  if (!account) throw new ExportError('the fixtures have no account');
  const unknown = users.find((u) => !account.devices.some((d) => d.user === u));
  if (unknown)
    throw new ExportError(
      `the fixtures' account ${account.subscriber_id} has no device of '${unknown}', who acknowledged in the export; add it to the fixtures`,
    );
  const idOf = new Map(account.devices.map((d) => [d.user, d.id]));
  const groupsOf = (alert: FieldAlert): string[] => {
    const sent = sentGroupsOf(alert);
    if (sent) return sent;
    const needed = alert.acks.map((a) => idOf.get(a.user)!);
    const fits = account.groups
      .filter((g) => needed.every((id) => g.members.includes(id)))
      .sort((a, b) => a.members.length - b.members.length);
    return [(fits[0] ?? account.groups[0])?.name ?? 'no group'];
  };
  guesses.push({
    path: ['fixtures'],
    comment:
      'from --fixtures; groups of alerts without a body sent: the smallest holding who acknowledged (guessed)',
  });
  return { fixtures, account, groupsOf, badgeUsers: users };
}
