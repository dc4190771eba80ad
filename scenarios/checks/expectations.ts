/**
 * Checking what happened against what a scenario expects. Pure: the runner gathers the
 * actual events, transcripts, states and answers; these functions compare and, on a
 * mismatch, lay expected and actual side by side as timelines with the first difference
 * marked.
 */

import type { DeviceFacts } from '../../protocol/control-api.schema.ts';
import type { JournalEntry } from '../../protocol/journal.schema.ts';
import type {
  DeviceExpectation,
  Expectations,
  ResponseExpectation,
} from '../format/expectations.schema.ts';
import { checkRequestMatcher, partialDifference, requestMatcherProblem } from './request-checks.ts';
import {
  type ActualEvent,
  type ActualHeard,
  checkEvents,
  checkHeard,
  type Failure,
} from './timeline-checks.ts';

export type { ActualEvent, ActualHeard, Failure };

interface Actual {
  events: ActualEvent[];
  heard: Map<string, ActualHeard[]>;
  states: Map<string, string>;
  tasks: Map<string, { state: string; outcome: string | null; acknowledgements: number }>;
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
