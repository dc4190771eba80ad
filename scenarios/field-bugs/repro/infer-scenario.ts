/**
 * Inferring a scenario from the field's events: each alert (by `task.id`) at its start with its
 * name and outcome, a tap at each acknowledgement, the devices and groups as far as the events
 * show them. What the events cannot tell is taken from the alert bodies sent, when given, or
 * guessed, and every guess is said (`guesses`, written as YAML comments). Pure: the scenario
 * is data, so a search can vary it and run it again.
 */
import { Document, isMap, type Node } from 'yaml';
import type { FixtureAccount, FixtureDevice, Fixtures } from '../../../fixtures/fixtures.schema.ts';
import { ownValue } from '../../../input/own.ts';
import type { CancelEvents } from '../../../protocol/control-api.schema.ts';
import { TIMEOUT_MAX_S } from '../../../protocol/service-api.schema.ts';
import { formatMicros } from '../../../protocol/timestamp.ts';
import { checkScenario } from '../../format/load-scenario.ts';
import type {
  EventMatcher,
  Scenario,
  ScenarioSettings,
  Step,
} from '../../format/scenario.schema.ts';
import { ExportError, type FieldEvent, type SentAlert } from './read-export.ts';

/** One alert of the field, as its events tell it. */
interface FieldAlert {
  /** The `as` of its step: its name, numbered from the second alert of that name. */
  alias: string;
  taskId: string;
  name: string;
  startMs: number;
  /** Its `start` is in the export; else it began before the export (posted at its first event). */
  startSeen: boolean;
  /** How it ended: by quorum, its timeout, a cancel, or not in the export. */
  outcome: 'quorum' | 'timed_out' | 'cancelled' | 'open';
  endMs?: number;
  /** The `end` event's status (none from a table). */
  endStatus?: string;
  /** Who acknowledged and when; `order` is the event's place in the export. */
  acks: { user: string; atMs: number; order: number }[];
  sent?: SentAlert;
}

/** What `inferScenario` made: the scenario, its guesses (path → why) and the alerts read. */
export interface Inferred {
  scenario: Scenario;
  /** YAML comments: the path of a node in the scenario, and what was guessed there. */
  guesses: { path: (string | number)[]; comment: string }[];
  alerts: FieldAlert[];
  /** The field's events as expectations: what the comparison holds the run against. */
  expected: EventMatcher[];
}

export interface InferOptions {
  /** Where the events came from, for `proves:`. */
  sources: string[];
  sent?: SentAlert[];
  fixtures?: Fixtures;
  /**
   * How the field's service reported a cancel (the stub's `cancelEvents`): with `end-normal`
   * the scenario sets it, and says so. Default: the stub's default, `end-cancelled`.
   */
  cancelEvents?: CancelEvents;
  /** How far apart a quorum's last acknowledgement and its `end` may be (default 0). */
  toleranceMs?: number;
}

/** The account of generated fixtures (placeholders; decision FB4). */
const PLACEHOLDER_ACCOUNT = 'repro';
const PLACEHOLDER_KEY = 'repro-placeholder-api-key';

export function inferScenario(events: FieldEvent[], options: InferOptions): Inferred {
  if (events.length === 0) throw new ExportError('no events to infer a scenario from');
  const origin = events[0]!.micros;
  const msOf = (e: FieldEvent) => Math.round((e.micros - origin) / 1000);
  const alerts = fieldAlerts(events, msOf, options.toleranceMs ?? 0);
  matchSentAlerts(alerts, options.sent ?? [], origin);
  const guesses: Inferred['guesses'] = [];
  const { fixtures, account, groupsOf, badgeUsers } = options.fixtures
    ? givenFixtures(options.fixtures, alerts, guesses)
    : generatedFixtures(alerts, guesses);

  const timeline: Step[] = [];
  const stepOf = (step: Step, comment?: string) => {
    if (comment) guesses.push({ path: ['timeline', timeline.length], comment });
    timeline.push(step);
  };
  for (const alert of alerts) {
    const { body, comments } = alertBody(alert, groupsOf(alert));
    if (!alert.startSeen)
      comments.unshift('guessed: it began before the export; posted here, at its first event');
    // Checked: a body the stub refuses is said as such, not as a history that parts (FB13).
    stepOf(
      { at: at(alert.startMs), alert: body, as: alert.alias, expect: { status: 200 } },
      comments.join('\n') || undefined,
    );
    if (alert.outcome === 'cancelled')
      stepOf(
        { at: at(alert.endMs!), cancel: alert.alias },
        alert.endStatus === 'normal'
          ? options.cancelEvents === 'end-normal'
            ? 'inferred: cancelled; it ended normal with no acknowledgement then, as a cancel does under cancel_events end-normal'
            : 'guessed: cancelled; it ended normal with no acknowledgement then, which no default explains (try repro --search: cancel_events end-normal)'
          : undefined,
      );
  }
  // In the field's order: taps of one instant then come as the service logged them.
  const taps = alerts
    .flatMap((alert) => alert.acks.map((ack) => ({ alert, ack })))
    .sort((a, b) => a.ack.order - b.ack.order);
  for (const { alert, ack } of taps)
    stepOf({ at: at(ack.atMs), tap: ack.user, note: `acknowledges ${alert.alias} in the field` });
  sortSteps(timeline, guesses);

  const aliasOf = new Map(alerts.map((a) => [a.taskId, a.alias]));
  const expected = events.map((e) => matcherOf(e, msOf(e), aliasOf));
  const last = expected.at(-1)!;
  const first = formatMicros(origin);
  const span = at(msOf(events.at(-1)!));
  const scenario: Scenario = {
    name: `Reproduce ${options.sources.join(', ')}`,
    proves: `The field's history of ${options.sources.join(', ')} (${events.length} events from ${first}, over ${span}) happens again on the stub.`,
    ...scenarioSettings(options.cancelEvents, urnWordOf(alerts)),
    fixtures,
    account: account.subscriber_id,
    badges: badgeUsers.length > 0 ? { devices: badgeUsers } : 'none',
    timeline,
    duration: last.at,
    // An alert that began before the export starts again here: its start is not the field's.
    expect: { events: { only: alerts.every((a) => a.startSeen), items: expected } },
  };
  return { scenario: checkScenario(scenario), guesses, alerts, expected };
}

/** The field's alerts, by `task.id`, in order of their first event. */
function fieldAlerts(
  events: FieldEvent[],
  msOf: (e: FieldEvent) => number,
  toleranceMs: number,
): FieldAlert[] {
  const byId = new Map<string, FieldAlert>();
  const perName = new Map<string, number>();
  for (const [order, e] of events.entries()) {
    const { task, content } = e.event;
    let alert = byId.get(task.id);
    if (!alert) {
      const n = (perName.get(task.name) ?? 0) + 1;
      perName.set(task.name, n);
      alert = {
        alias: `${task.name || '(no name)'}${n === 1 ? '' : ` #${n}`}`,
        taskId: task.id,
        name: task.name,
        startMs: msOf(e),
        startSeen: false,
        outcome: 'open',
        acks: [],
      };
      byId.set(task.id, alert);
    }
    if (content.type === 'start') {
      alert.startMs = msOf(e);
      alert.startSeen = true;
    }
    if (content.type === 'acknowledged' && content.device)
      alert.acks.push({ user: content.device, atMs: msOf(e), order });
    if (content.type === 'timed_out') alert.outcome = 'timed_out';
    if (content.type === 'end') {
      alert.endMs = msOf(e);
      alert.endStatus = content.status;
      if (alert.outcome !== 'timed_out')
        alert.outcome = endOutcome(alert, content.status, toleranceMs);
    }
  }
  return [...byId.values()];
}

/**
 * An `end` without `timed_out` before it (FB2, FB10): `cancelled` says so; otherwise (`normal`,
 * or a table row without status) a quorum when its last acknowledgement is at that instant
 * (within the tolerance), else a cancel: no quorum ends an alert between two acknowledgements.
 */
function endOutcome(
  alert: FieldAlert,
  status: string | undefined,
  toleranceMs: number,
): FieldAlert['outcome'] {
  if (status === 'cancelled') return 'cancelled';
  const last = alert.acks.at(-1);
  return last && alert.endMs! - last.atMs <= toleranceMs ? 'quorum' : 'cancelled';
}

/**
 * Each alert's body: the one the journal answered with its task id, else the first unused one
 * sent with its name closest in time to its start (decision FB3).
 */
function matchSentAlerts(alerts: FieldAlert[], sent: SentAlert[], origin: number): void {
  const unused = new Set(sent);
  const gap = (s: SentAlert, alert: FieldAlert) =>
    Math.abs((s.micros - origin) / 1000 - alert.startMs);
  for (const alert of alerts) {
    let best = sent.find((s) => s.taskId === alert.taskId);
    if (!best) {
      for (const s of unused) {
        const name = typeof s.body.name === 'string' ? s.body.name : 'alerts';
        if (name !== alert.name || s.taskId !== undefined) continue;
        if (!best || gap(s, alert) < gap(best, alert)) best = s;
      }
    }
    if (best) {
      alert.sent = best;
      unused.delete(best);
    }
  }
}

/** The body of an alert's step: as sent when known, else inferred, with what was guessed. */
function alertBody(
  alert: FieldAlert,
  groups: string[],
): { body: Record<string, unknown>; comments: string[] } {
  const comments: string[] = [];
  const body: Record<string, unknown> = alert.sent
    ? { ...alert.sent.body }
    : { notification: `${alert.name} (the text sent is not in the export)`, groups };
  if (!alert.sent)
    comments.push(
      'guessed: notification and groups (pass --alerts or --journal for the bodies sent)',
    );
  body.name = alert.name;
  const acks = alert.acks.length;
  if (ownValue(body, 'quorum') === undefined) {
    if (alert.outcome === 'quorum') {
      body.quorum = acks;
      comments.push(
        `inferred: quorum ${acks}, the alert ended at its ${ordinal(acks)} acknowledgement`,
      );
    } else {
      body.quorum = acks + 1;
      comments.push(
        `guessed: quorum ${acks + 1}, one more than the acknowledgements, as the alert did not end by quorum`,
      );
    }
  }
  if (ownValue(body, 'timeout') === undefined) {
    const lasted = (alert.endMs ?? alert.acks.at(-1)?.atMs ?? alert.startMs) - alert.startMs;
    if (alert.outcome === 'timed_out') {
      body.timeout = Math.max(1, Math.round(lasted / 1000));
      comments.push(`inferred: timeout ${body.timeout}s, from its start to timed_out`);
    } else if (lasted >= 300_000) {
      // At most the longest timeout the service takes: a longer guess would be refused (FB13).
      body.timeout = Math.min(TIMEOUT_MAX_S, Math.floor(lasted / 1000) + 1);
      comments.push(
        body.timeout === TIMEOUT_MAX_S
          ? `guessed: timeout ${body.timeout}s, the longest the service takes; it ran ${Math.round(lasted / 1000)}s without timing out, longer than any timeout can be`
          : `guessed: timeout ${body.timeout}s, as it did not time out in ${Math.round(lasted / 1000)}s`,
      );
    }
  }
  return { body, comments };
}

function ordinal(n: number): string {
  return n === 1 ? '1st' : n === 2 ? '2nd' : n === 3 ? '3rd' : `${n}th`;
}

interface FixturesChoice {
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
function generatedFixtures(alerts: FieldAlert[], guesses: Inferred['guesses']): FixturesChoice {
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
 * The settings the scenario needs: cancels that end otherwise than `cancelled`, and the URN
 * word of the groups the bodies sent when it is not the stub's default (decision FB12).
 */
function scenarioSettings(
  cancelEvents: CancelEvents | undefined,
  urnWord: string | undefined,
): { settings?: ScenarioSettings } {
  const settings: ScenarioSettings = {
    ...(cancelEvents && cancelEvents !== 'end-cancelled' ? { cancel_events: cancelEvents } : {}),
    ...(urnWord && urnWord !== DEFAULT_URN_WORD ? { urn_word: urnWord } : {}),
  };
  return Object.keys(settings).length > 0 ? { settings } : {};
}

const DEFAULT_URN_WORD = 'service';

/** The word of the first group URN a body sent (`urn:<word>-resource:…`), if any. */
function urnWordOf(alerts: FieldAlert[]): string | undefined {
  for (const alert of alerts)
    for (const ref of sentGroupsOf(alert) ?? []) {
      const word = /^urn:([A-Za-z0-9_-]+)-resource:(?:id|name):group:/.exec(ref)?.[1];
      if (word) return word;
    }
  return undefined;
}

/** The groups a body sent names, when it names them as a list of strings. */
function sentGroupsOf(alert: FieldAlert): string[] | undefined {
  const groups = ownValue(alert.sent?.body, 'groups');
  return Array.isArray(groups) && groups.length > 0 && groups.every((g) => typeof g === 'string')
    ? groups
    : undefined;
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
function givenFixtures(
  fixtures: Fixtures,
  alerts: FieldAlert[],
  guesses: Inferred['guesses'],
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

/** A field event as an expectation: ids abstracted (the task by its alias), time from the first. */
function matcherOf(e: FieldEvent, ms: number, aliasOf: Map<string, string>): EventMatcher {
  const { content, task } = e.event;
  return {
    type: content.type,
    task: aliasOf.get(task.id)!,
    ...(content.device !== undefined ? { device: content.device } : {}),
    ...(content.status !== undefined ? { status: content.status } : {}),
    at: at(ms),
  };
}

/** Steps in time order, ties as made; the guesses' paths follow their steps. */
export function sortSteps(timeline: Step[], guesses: Inferred['guesses']): void {
  const order = timeline.map((step, i) => ({ step, i, ms: parseAt(step.at) }));
  order.sort((a, b) => a.ms - b.ms || a.i - b.i);
  const moved = new Map(order.map(({ i }, to) => [i, to]));
  order.forEach(({ step }, to) => {
    timeline[to] = step;
  });
  for (const g of guesses)
    if (g.path[0] === 'timeline') g.path[1] = moved.get(g.path[1] as number)!;
}

/** A time from the first event as a scenario duration: whole seconds short, else ms. */
export function at(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

function parseAt(text: string): number {
  return text.endsWith('ms') ? Number(text.slice(0, -2)) : Number(text.slice(0, -1)) * 1000;
}

/** The scenario as YAML, with a comment on each guess; what the project's loader reads. */
export function scenarioYaml(inferred: Inferred): string {
  const doc = new Document(inferred.scenario);
  doc.commentBefore =
    ' Inferred by badge-sim repro from a field export. Lines marked "guessed" are placeholders:\n edit them to what your software sends, then run: badge-sim run <this file>';
  for (const { path, comment } of inferred.guesses) {
    const node = doc.getIn(path, true) as Node | undefined;
    if (node)
      node.commentBefore = comment
        .split('\n')
        .map((l) => ` ${l}`)
        .join('\n');
  }
  // Short flow maps for taps and expected events, as the catalogue writes them.
  const flow = (path: (string | number)[]) => {
    const node = doc.getIn(path, true);
    if (isMap(node)) node.flow = true;
  };
  inferred.scenario.timeline.forEach((step, i) => {
    if (!('alert' in step)) flow(['timeline', i]);
  });
  inferred.expected.forEach((_, i) => {
    flow(['expect', 'events', 'items', i]);
  });
  return doc.toString({ lineWidth: 100 });
}
