/**
 * Inferring a scenario from the field's events: each alert (by `task.id`) at its start with its
 * name and outcome, a tap at each acknowledgement, the devices and groups as far as the events
 * show them. What the events cannot tell is taken from the alert bodies sent, when given, or
 * guessed, and every guess is said (`guesses`, written as YAML comments). Pure: the scenario
 * is data, so a search can vary it and run it again.
 */
import { Document, isMap, type Node } from 'yaml';
import type { Fixtures } from '../../../fixtures/fixtures.schema.ts';
import { ownValue } from '../../../input/own.ts';
import type { CancelEvents } from '../../../protocol/control-api.schema.ts';
import { TIMEOUT_MAX_S } from '../../../protocol/service-api.schema.ts';
import { formatMicros } from '../../../protocol/timestamp.ts';
import type { EventMatcher } from '../../format/expectations.schema.ts';
import { checkScenario } from '../../format/load-scenario.ts';
import type { Scenario, ScenarioSettings } from '../../format/scenario.schema.ts';
import type { Step } from '../../format/step.schema.ts';
import {
  type FieldAlert,
  fieldAlerts,
  type Guess,
  matchSentAlerts,
  sentGroupsOf,
} from './field-alerts.ts';
import { generatedFixtures, givenFixtures } from './infer-fixtures.ts';
import { ExportError, type FieldEvent, type SentAlert } from './read-export.ts';

/** What `inferScenario` made: the scenario, its guesses (path → why) and the alerts read. */
export interface Inferred {
  scenario: Scenario;
  /** YAML comments: the path of a node in the scenario, and what was guessed there. */
  guesses: Guess[];
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

export function inferScenario(events: FieldEvent[], options: InferOptions): Inferred {
  if (events.length === 0) throw new ExportError('no events to infer a scenario from');
  const origin = events[0]!.micros;
  const msOf = (e: FieldEvent) => Math.round((e.micros - origin) / 1000);
  const alerts = fieldAlerts(events, msOf, options.toleranceMs ?? 0);
  matchSentAlerts(alerts, options.sent ?? [], origin);
  const guesses: Guess[] = [];
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
export function sortSteps(timeline: Step[], guesses: Guess[]): void {
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
