/**
 * Checking what happened against what a scenario expects. Pure: the runner gathers the
 * actual events, transcripts, states and answers; these functions compare and, on a
 * mismatch, lay expected and actual side by side as timelines with the first difference
 * marked.
 */

import { ownValue } from '../../input/own.ts';
import type { DeviceFacts } from '../../protocol/control-api.schema.ts';
import { parseDuration } from '../../protocol/duration.ts';
import type { JournalEntry, RequestMatcher } from '../../protocol/journal.schema.ts';
import { compilePathPattern, pathPatternProblem } from '../../protocol/path-pattern.ts';
import type {
  DeviceExpectation,
  EventMatcher,
  Expectations,
  HeardExpectation,
  HeardMatcher,
  ResponseExpectation,
} from '../format/scenario.schema.ts';

/** An analytic event as a scenario sees it: times in ms from the start of the scenario. */
export interface ActualEvent {
  type: string;
  device?: string;
  status?: string;
  /** The `as` of the alert step, when it has one. */
  task?: string;
  taskId: string;
  name: string;
  at: number;
}

/** A clip a badge heard, times from the start. */
export interface ActualHeard {
  kind: string;
  text: string;
  cause?: string;
  task?: string;
  at: number;
  cut?: boolean;
}

export interface Failure {
  /** What was checked: `events`, `heard Ada Mensah (350000000000001)`, `timeline[3] answer`, … */
  what: string;
  message: string;
  expected: string[];
  actual: string[];
  /** Index in `expected` of the first difference, when there is one. */
  firstDifference?: number;
}

interface Actual {
  events: ActualEvent[];
  heard: Map<string, ActualHeard[]>;
  states: Map<string, string>;
  tasks: Map<string, { state: string; outcome: string | null; acknowledgements: number }>;
}

/** `+12.5s` */
function offset(ms: number): string {
  const s = ms / 1000;
  return `+${Number.isInteger(s) ? s : s.toFixed(3).replace(/0+$/, '')}s`;
}

function describeEvent(event: ActualEvent): string {
  const parts = [offset(event.at).padEnd(9), event.type];
  if (event.device) parts.push(`device=${event.device}`);
  if (event.status) parts.push(`status=${event.status}`);
  parts.push(`task=${event.task ?? event.taskId}`);
  if (event.name !== 'alerts') parts.push(`name=${event.name}`);
  return parts.join(' ');
}

function describeEventMatcher(m: EventMatcher): string {
  const parts = [
    m.at ? `at ${m.at}${m.within ? `±${m.within}` : ''}`.padEnd(9) : 'any time'.padEnd(9),
    m.type ?? 'any event',
  ];
  if (m.device) parts.push(`device=${m.device}`);
  if (m.status) parts.push(`status=${m.status}`);
  if (m.task) parts.push(`task=${m.task}`);
  if (m.name) parts.push(`name=${m.name}`);
  return parts.join(' ');
}

function within(
  at: string | undefined,
  tolerance: string | undefined,
  actual: number,
  defaultToleranceMs: number,
): boolean {
  if (at === undefined) return true;
  const expected = durationMs(at);
  const slack = tolerance === undefined ? defaultToleranceMs : durationMs(tolerance);
  return Math.abs(actual - expected) <= slack;
}

/**
 * A matcher's `at` or `within` in ms, parsed once: each matcher is tried against each event
 * or clip, and parsing them was most of checking the catalogue's expectations (1.5 % of its
 * CPU). The loader checked every one.
 */
function durationMs(text: string): number {
  let ms = parsedDurations.get(text);
  if (ms === undefined) {
    ms = parseDuration(text)!;
    if (parsedDurations.size >= PARSED_DURATIONS_KEPT) parsedDurations.clear();
    parsedDurations.set(text, ms);
  }
  return ms;
}
const parsedDurations = new Map<string, number>();
const PARSED_DURATIONS_KEPT = 4_096;

function eventMatches(m: EventMatcher, e: ActualEvent, toleranceMs: number): boolean {
  return (
    (m.type === undefined || m.type === e.type) &&
    (m.device === undefined || m.device === e.device) &&
    (m.status === undefined || m.status === e.status) &&
    (m.task === undefined || m.task === e.task) &&
    (m.name === undefined || m.name === e.name) &&
    within(m.at, m.within, e.at, toleranceMs)
  );
}

/** Events in order (or as a set), matched partially, optionally with no others. */
export function checkEvents(
  expectation: NonNullable<Expectations['events']>,
  events: ActualEvent[],
  toleranceMs: number,
): Failure | undefined {
  const { items, order, only } = Array.isArray(expectation)
    ? { items: expectation, order: 'strict' as const, only: false }
    : {
        items: expectation.items,
        order: expectation.order ?? 'strict',
        only: expectation.only ?? false,
      };
  const expected = items.map(describeEventMatcher);
  const actual = events.map(describeEvent);
  const what = `events (${order === 'strict' ? 'in this order' : 'in any order'}${only ? ', and no others' : ''})`;
  const fail = (message: string, firstDifference?: number): Failure => ({
    what,
    message,
    expected,
    actual,
    firstDifference,
  });

  if (order === 'strict' && only) {
    for (let i = 0; i < Math.max(items.length, events.length); i++) {
      const m = items[i];
      const e = events[i];
      if (!m) return fail(`event ${i + 1} was not expected: ${describeEvent(e!).trim()}`, i);
      if (!e) return fail(`expected event ${i + 1} (${describeEventMatcher(m)}) did not happen`, i);
      if (!eventMatches(m, e, toleranceMs)) return fail(`event ${i + 1} differs`, i);
    }
    return undefined;
  }
  if (order === 'strict') {
    let from = 0;
    for (let i = 0; i < items.length; i++) {
      const found = events.findIndex(
        (e, j) => j >= from && eventMatches(items[i]!, e, toleranceMs),
      );
      if (found < 0)
        return fail(
          `expected event ${i + 1} (${describeEventMatcher(items[i]!)}) was not found after the ones before it`,
          i,
        );
      from = found + 1;
    }
    return undefined;
  }
  const used = new Set<number>();
  for (let i = 0; i < items.length; i++) {
    const found = events.findIndex(
      (e, j) => !used.has(j) && eventMatches(items[i]!, e, toleranceMs),
    );
    if (found < 0)
      return fail(`expected event ${i + 1} (${describeEventMatcher(items[i]!)}) did not happen`, i);
    used.add(found);
  }
  if (only && used.size !== events.length) {
    const extra = events.findIndex((_, j) => !used.has(j));
    return fail(`event ${describeEvent(events[extra]!).trim()} was not expected`, items.length);
  }
  return undefined;
}

function describeHeard(h: ActualHeard): string {
  const parts = [offset(h.at).padEnd(9), h.kind.padEnd(9)];
  if (h.cause) parts.push(`(${h.cause})`);
  parts.push(JSON.stringify(h.text));
  if (h.cut) parts.push('[cut]');
  return parts.join(' ');
}

function describeHeardMatcher(m: HeardMatcher): string {
  const parts = [
    m.at ? `at ${m.at}`.padEnd(9) : 'any time'.padEnd(9),
    (m.kind ?? 'anything').padEnd(9),
  ];
  if (m.cause) parts.push(`(${m.cause})`);
  if (m.text !== undefined) parts.push(JSON.stringify(m.text));
  if (m.task) parts.push(`task=${m.task}`);
  return parts.join(' ');
}

function heardMatches(m: HeardMatcher, h: ActualHeard, toleranceMs: number): boolean {
  return (
    (m.kind === undefined || m.kind === h.kind) &&
    (m.text === undefined || m.text === h.text) &&
    (m.cause === undefined || m.cause === h.cause) &&
    (m.task === undefined || m.task === h.task) &&
    within(m.at, m.within, h.at, toleranceMs)
  );
}

/** What one badge heard: counts, the exact texts, a subsequence, or the exact sequence. */
function checkHeard(
  who: string,
  expectation: HeardExpectation,
  heard: ActualHeard[],
  toleranceMs: number,
): Failure[] {
  const failures: Failure[] = [];
  const actual = heard.map(describeHeard);
  const what = `heard by ${who}`;
  if (expectation.count) {
    const counts = new Map<string, number>([
      ['alert', 0],
      ['broadcast', 0],
      ['speech', 0],
      ['total', heard.length],
    ]);
    for (const h of heard) counts.set(h.kind, (counts.get(h.kind) ?? 0) + 1);
    const wrong = Object.entries(expectation.count).filter(([kind, n]) => counts.get(kind) !== n);
    if (wrong.length > 0) {
      failures.push({
        what,
        message: wrong
          .map(([kind, n]) => `${kind}: expected ${n}, heard ${counts.get(kind)}`)
          .join('; '),
        expected: Object.entries(expectation.count).map(([kind, n]) => `${kind} × ${n}`),
        actual,
      });
    }
  }
  if (expectation.texts) {
    const texts = heard.map((h) => h.text);
    const first = firstMismatch(expectation.texts, texts, (a, b) => a === b);
    if (first !== undefined) {
      failures.push({
        what: `${what} (texts)`,
        message: `text ${first + 1} differs`,
        expected: expectation.texts.map((t) => JSON.stringify(t)),
        actual,
        firstDifference: first,
      });
    }
  }
  if (expectation.exactly) {
    const first = firstMismatch(expectation.exactly, heard, (m, h) =>
      heardMatches(m, h, toleranceMs),
    );
    if (first !== undefined) {
      failures.push({
        what: `${what} (exactly)`,
        message: `clip ${first + 1} differs`,
        expected: expectation.exactly.map(describeHeardMatcher),
        actual,
        firstDifference: first,
      });
    }
  }
  if (expectation.includes) {
    let from = 0;
    for (let i = 0; i < expectation.includes.length; i++) {
      const m = expectation.includes[i]!;
      const found = heard.findIndex((h, j) => j >= from && heardMatches(m, h, toleranceMs));
      if (found < 0) {
        failures.push({
          what: `${what} (includes, in order)`,
          message: `expected clip ${i + 1} (${describeHeardMatcher(m).trim()}) was not heard after the ones before it`,
          expected: expectation.includes.map(describeHeardMatcher),
          actual,
          firstDifference: i,
        });
        break;
      }
      from = found + 1;
    }
  }
  return failures;
}

/** An API answer against `expect:` of its step. */
export function checkResponse(
  what: string,
  expectation: ResponseExpectation,
  status: number,
  body: unknown,
): Failure | undefined {
  const problems: string[] = [];
  if (expectation.status !== undefined && expectation.status !== status)
    problems.push(`status ${status}, expected ${expectation.status}`);
  if (expectation.count !== undefined) {
    const count = Array.isArray(body) ? body.length : undefined;
    if (count !== expectation.count)
      problems.push(
        `${count === undefined ? 'not an array' : `${count} items`}, expected ${expectation.count}`,
      );
  }
  if (expectation.body !== undefined) {
    const difference = partialDifference(expectation.body, body, 'body');
    if (difference) problems.push(difference);
  }
  if (problems.length === 0) return undefined;
  return {
    what,
    message: problems.join('; '),
    expected: [
      `status ${expectation.status ?? 'any'}`,
      ...(expectation.body === undefined ? [] : [`body ⊇ ${JSON.stringify(expectation.body)}`]),
      ...(expectation.count === undefined ? [] : [`${expectation.count} items`]),
    ],
    actual: [`status ${status}`, `body ${truncate(JSON.stringify(body))}`],
  };
}

/** Where `actual` fails to contain `expected` (objects: listed keys only; arrays: same length). */
export function partialDifference(
  expected: unknown,
  actual: unknown,
  path: string,
): string | undefined {
  if (expected !== null && typeof expected === 'object') {
    if (Array.isArray(expected)) {
      if (!Array.isArray(actual)) return `${path} is not an array`;
      if (actual.length !== expected.length)
        return `${path} has ${actual.length} items, expected ${expected.length}`;
      for (let i = 0; i < expected.length; i++) {
        const d = partialDifference(expected[i], actual[i], `${path}[${i}]`);
        if (d) return d;
      }
      return undefined;
    }
    if (actual === null || typeof actual !== 'object')
      return `${path} is ${JSON.stringify(actual)}, expected an object`;
    for (const [key, value] of Object.entries(expected)) {
      const d = partialDifference(value, ownValue(actual, key), `${path}.${key}`);
      if (d) return d;
    }
    return undefined;
  }
  return Object.is(expected, actual)
    ? undefined
    : `${path} is ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`;
}

function firstMismatch<E, A>(
  expected: E[],
  actual: A[],
  same: (e: E, a: A) => boolean,
): number | undefined {
  for (let i = 0; i < Math.max(expected.length, actual.length); i++) {
    if (i >= expected.length || i >= actual.length || !same(expected[i]!, actual[i]!)) return i;
  }
  return undefined;
}

function truncate(text: string | undefined, max = 200): string {
  if (text === undefined) return '(no body)';
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** An invocation as the stub records it: the fields a scenario can expect. */
export interface ActualInvocation {
  workflow_id: string;
  user_id: string;
  environment: string;
  at: string;
}

/** Exactly these invocations, in order; each lists only the fields it cares about. */
function checkInvocations(
  expected: { workflow?: string; user?: string; environment?: string }[],
  actual: ActualInvocation[],
  userName: (deviceId: string) => string,
): Failure | undefined {
  const describe = (i: ActualInvocation) =>
    `${i.workflow_id} user=${userName(i.user_id)} environment=${i.environment}`;
  const describeExpected = (m: (typeof expected)[number]) =>
    [
      m.workflow ?? 'any workflow',
      ...(m.user ? [`user=${userName(m.user)}`] : []),
      ...(m.environment ? [`environment=${m.environment}`] : []),
    ].join(' ');
  const matches = (m: (typeof expected)[number], i: ActualInvocation) =>
    (m.workflow === undefined || m.workflow === i.workflow_id) &&
    (m.user === undefined || m.user === i.user_id) &&
    (m.environment === undefined || m.environment === i.environment);
  const length = Math.max(expected.length, actual.length);
  for (let n = 0; n < length; n++) {
    const m = expected[n];
    const i = actual[n];
    if (!m || !i || !matches(m, i)) {
      return {
        what: 'workflow invocations',
        message:
          expected.length !== actual.length
            ? `${actual.length} invocations, expected ${expected.length}`
            : `invocation ${n + 1} differs`,
        expected: expected.map(describeExpected),
        actual: actual.map(describe),
        firstDifference: n,
      };
    }
  }
  return undefined;
}

/** What a whole scenario run produced, as `checkExpectations` compares it. */
export interface ScenarioActual extends Actual {
  /** What the stub knows of the devices `expect.devices` names, by device id. */
  devices: Map<string, DeviceFacts>;
  invocations: ActualInvocation[];
  /** Requests to oauth2/token during the run. */
  tokenRequests: number;
  /** The stub's request journal over the run; collected only when `requests:` is expected. */
  requests: JournalEntry[];
}

/** How `checkExpectations` reads the scenario's references. */
export interface ExpectationContext {
  /** The tolerance of `at` (ms) where the scenario gives none. */
  toleranceMs: number;
  /** A device of the scenario's account by id or user name; throws naming `path` if none. */
  resolve(ref: string, path: string): { id: string; user: string };
  /** The user of a device id, for messages (the id itself when unknown). */
  userName(deviceId: string): string;
  /** The error for an expectation that cannot be checked (it names `path`). */
  problem(path: string, message: string): Error;
}

/**
 * Every expectation of a scenario against what happened, in the order of the report:
 * events, heard, states, devices, tasks, invocations, token requests, requests.
 */
export function checkExpectations(
  expect: Expectations,
  actual: ScenarioActual,
  context: ExpectationContext,
): Failure[] {
  const failures: Failure[] = [];
  if (expect.events) {
    const failure = checkEvents(expect.events, actual.events, context.toleranceMs);
    if (failure) failures.push(failure);
  }
  for (const [ref, expectation] of Object.entries(expect.heard ?? {})) {
    const device = context.resolve(ref, `expect.heard.${ref}`);
    const clips = actual.heard.get(device.id);
    if (!clips) throw context.problem(`expect.heard.${ref}`, 'device runs no badge (see badges:)');
    failures.push(
      ...checkHeard(`${device.user} (${device.id})`, expectation, clips, context.toleranceMs),
    );
  }
  for (const [ref, state] of Object.entries(expect.states ?? {})) {
    const device = context.resolve(ref, `expect.states.${ref}`);
    const failure = checkState(
      `${device.user} (${device.id})`,
      state,
      actual.states.get(device.id),
    );
    if (failure) failures.push(failure);
  }
  for (const [ref, expected] of Object.entries(expect.devices ?? {})) {
    const device = context.resolve(ref, `expect.devices.${ref}`);
    const failure = checkDevice(
      `${device.user} (${device.id})`,
      expected,
      actual.devices.get(device.id),
    );
    if (failure) failures.push(failure);
  }
  for (const [name, expected] of Object.entries(expect.tasks ?? {})) {
    const failure = checkTask(name, expected, actual.tasks.get(name));
    if (failure) failures.push(failure);
  }
  if (expect.invocations) {
    const failure = checkInvocations(
      expect.invocations.map((m, i) => ({
        ...m,
        user: m.user && context.resolve(m.user, `expect.invocations[${i}].user`).id,
      })),
      actual.invocations,
      context.userName,
    );
    if (failure) failures.push(failure);
  }
  if (expect.token_requests !== undefined) {
    const failure = checkTokenRequests(expect.token_requests, actual.tokenRequests);
    if (failure) failures.push(failure);
  }
  for (const [i, matcher] of (expect.requests ?? []).entries()) {
    const problem = requestMatcherProblem(matcher);
    if (problem) throw context.problem(`expect.requests[${i}]`, problem);
    const mismatch = checkRequestMatcher(matcher, actual.requests);
    if (mismatch)
      failures.push({
        what: `requests[${i}]`,
        message: mismatch.message,
        expected: [mismatch.expected],
        actual: mismatch.actual,
      });
  }
  return failures;
}

/** A badge's state at the end; `undefined`: the device runs no badge. */
function checkState(
  who: string,
  expected: string,
  actual: string | undefined,
): Failure | undefined {
  const state = actual ?? 'no badge';
  if (state === expected) return undefined;
  return {
    what: `state of ${who}`,
    message: `is ${state}, expected ${expected}`,
    expected: [expected],
    actual: [state],
  };
}

/** What the stub knows of a device (GET /_stub/devices) that a scenario can expect. */
export type { DeviceFacts };

/** The fields of `expected` that `actual` does not have; all of them when there is no actual. */
function deviceDifferences(expected: DeviceExpectation, actual: DeviceFacts | undefined) {
  return Object.entries(expected).filter(
    ([key, value]) => actual?.[key as keyof DeviceFacts] !== value,
  );
}

/** What the stub knows of a device at the end, listed fields only. */
function checkDevice(
  who: string,
  expected: DeviceExpectation,
  actual: DeviceFacts | undefined,
): Failure | undefined {
  const wrong = deviceDifferences(expected, actual);
  if (actual && wrong.length === 0) return undefined;
  const show = ([key, value]: [string, unknown]) => `${key} ${JSON.stringify(value)}`;
  return {
    what: `device ${who}`,
    message: actual
      ? wrong
          .map(
            ([key, value]) =>
              `${key} is ${JSON.stringify(actual[key as keyof DeviceFacts])}, expected ${JSON.stringify(value)}`,
          )
          .join('; ')
      : 'the stub does not know it',
    expected: Object.entries(expected).map(show),
    actual: actual ? Object.entries(actual).map(show) : ['(none)'],
  };
}

type TaskActual = Actual['tasks'] extends Map<string, infer T> ? T : never;

/** A named task's fields; `undefined`: never created, or forgotten. */
function checkTask(
  name: string,
  expected: Partial<TaskActual>,
  task: TaskActual | undefined,
): Failure | undefined {
  const wrong = Object.entries(expected).filter(
    ([key, value]) => task?.[key as keyof TaskActual] !== value,
  );
  if (task && wrong.length === 0) return undefined;
  return {
    what: `task ${name}`,
    message: task
      ? wrong
          .map(
            ([key, value]) =>
              `${key} is ${JSON.stringify(task[key as keyof TaskActual])}, expected ${JSON.stringify(value)}`,
          )
          .join('; ')
      : 'was never created, or ended more than 7 days ago and was forgotten',
    expected: Object.entries(expected).map(([k, v]) => `${k} ${JSON.stringify(v)}`),
    actual: task
      ? [
          `state ${task.state}`,
          `outcome ${task.outcome}`,
          `acknowledgements ${task.acknowledgements}`,
        ]
      : ['(none)'],
  };
}

/** How many times the scenario went to oauth2/token. */
function checkTokenRequests(expected: number, actual: number): Failure | undefined {
  if (actual === expected) return undefined;
  return {
    what: 'token requests',
    message: `the scenario went to oauth2/token ${actual} times, expected ${expected}`,
    expected: [String(expected)],
    actual: [String(actual)],
  };
}

// Requests the emulated APIs received (`requests:`, and `toHaveReceived` in vitest), checked
// against the stub's request journal as WireMock verifies: how many entries match method,
// path pattern, body fields, status and fault, against the count wanted (at least one by
// default). A mismatch shows the entries that came closest and where each differs.

/** Entries shown when a matcher fails: the closest ones, or those that matched too often. */
const SHOWN_ENTRIES = 5;

export interface RequestMismatch {
  message: string;
  /** The matcher, one line. */
  expected: string;
  /** What `actual` lists: the closest entries (too few matched) or the matching ones (too many). */
  shown: 'closest' | 'matching';
  /** Those entries, one line each; the closest with where they differ. */
  actual: string[];
}

/** Why a matcher cannot be checked (its path pattern is refused), or undefined. */
function requestMatcherProblem(matcher: RequestMatcher): string | undefined {
  if (matcher.path === undefined) return undefined;
  const problem = pathPatternProblem(matcher.path);
  return problem && `path '${matcher.path.slice(0, 80)}' ${problem}`;
}

/**
 * Where an entry differs from a matcher, one phrase a criterion (empty when it matches); the
 * matcher's path pattern is compiled once. Throws a TypeError for a pattern that is refused.
 */
function differencesFrom(matcher: RequestMatcher): (entry: JournalEntry) => string[] {
  const problem = requestMatcherProblem(matcher);
  if (problem) throw new TypeError(`badge-sim: request matcher: ${problem}`);
  const onPath = matcher.path === undefined ? undefined : compilePathPattern(matcher.path);
  return (entry) => differences(matcher, onPath, entry);
}

function differences(
  matcher: RequestMatcher,
  onPath: ((path: string) => boolean) | undefined,
  entry: JournalEntry,
): string[] {
  const found: string[] = [];
  if (matcher.method !== undefined && matcher.method.toUpperCase() !== entry.method)
    found.push(`method ${entry.method}, expected ${matcher.method.toUpperCase()}`);
  if (onPath && !onPath(entry.path)) found.push(`path does not match ${matcher.path}`);
  if (matcher.status !== undefined && matcher.status !== entry.status)
    found.push(`status ${entry.status ?? 'none (connection closed)'}, expected ${matcher.status}`);
  if (matcher.fault !== undefined && matcher.fault !== (entry.fault !== null))
    found.push(matcher.fault ? 'no fault applied' : `fault ${entry.fault!.id} applied`);
  if (matcher.body !== undefined) {
    const difference = partialDifference(matcher.body, entry.body, 'body');
    if (difference) found.push(difference);
  }
  return found;
}

/** The entries that are requests the matcher describes (its count aside). */
export function matchingRequests(
  matcher: RequestMatcher,
  entries: readonly JournalEntry[],
): JournalEntry[] {
  const differ = differencesFrom(matcher);
  return entries.filter((entry) => differ(entry).length === 0);
}

/** The count a matcher wants, as bounds: a number is exact; default at least one. */
function countBounds(count: RequestMatcher['count']): { min: number; max: number } {
  if (typeof count === 'number') return { min: count, max: count };
  return { min: count?.min ?? (count?.max === undefined ? 1 : 0), max: count?.max ?? Infinity };
}

function describeCount(count: RequestMatcher['count']): string {
  const { min, max } = countBounds(count);
  if (min === max) return `exactly ${min}`;
  if (max === Infinity) return `at least ${min}`;
  return min === 0 ? `at most ${max}` : `${min} to ${max}`;
}

export function describeMatcher(matcher: RequestMatcher): string {
  const parts = [matcher.method?.toUpperCase() ?? 'any method', matcher.path ?? 'any path'];
  if (matcher.status !== undefined) parts.push(`status ${matcher.status}`);
  if (matcher.fault !== undefined) parts.push(matcher.fault ? 'faulted' : 'not faulted');
  if (matcher.body !== undefined) parts.push(`body ⊇ ${clip(JSON.stringify(matcher.body), 80)}`);
  parts.push(`× ${describeCount(matcher.count)}`);
  return parts.join(' ');
}

/** `#3 POST /subscribers/100001/api/v1/alerts → 400 {"notification":"x"}` */
export function describeEntry(entry: JournalEntry): string {
  const parts = [`#${entry.id}`, entry.method, entry.path, `→ ${entry.status ?? 'reset'}`];
  if (entry.fault) parts.push(`(fault ${entry.fault.id}: ${entry.fault.kind})`);
  if (entry.body !== null) parts.push(clip(JSON.stringify(entry.body), 80));
  return parts.join(' ');
}

/** Whether the journal's entries satisfy the matcher; what went wrong when they do not. */
export function checkRequestMatcher(
  matcher: RequestMatcher,
  entries: readonly JournalEntry[],
): RequestMismatch | undefined {
  const differ = differencesFrom(matcher);
  const judged = entries.map((entry) => ({ entry, differences: differ(entry) }));
  const matching = judged.filter((j) => j.differences.length === 0);
  const { min, max } = countBounds(matcher.count);
  if (matching.length >= min && matching.length <= max) return undefined;
  const expected = describeMatcher(matcher);
  const message = `${matching.length} of ${entries.length} requests matched, expected ${describeCount(matcher.count)}`;
  if (matching.length > max)
    return {
      message,
      expected,
      shown: 'matching',
      actual: matching.slice(0, SHOWN_ENTRIES).map((j) => describeEntry(j.entry)),
    };
  // Fewest differences first; the journal's order among equals.
  const closest = judged
    .filter((j) => j.differences.length > 0)
    .sort((a, b) => a.differences.length - b.differences.length)
    .slice(0, SHOWN_ENTRIES);
  return {
    message,
    expected,
    shown: 'closest',
    actual:
      closest.length === 0
        ? ['(no requests)']
        : closest.map((j) => `${describeEntry(j.entry)} — ${j.differences.join('; ')}`),
  };
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
