/**
 * Every expectation kind proven both ways (issue 31 point 11): for events, heard, states,
 * requests and the counts (heard counts, tasks' acknowledgements, token requests, workflow
 * invocations), what it is given as written passes, and one more, one fewer and one
 * reordered item each fail with the message a user reads — or pass, where the form promises
 * that (a subsequence allows more, any order allows reordering). Pure: `checkExpectations`
 * on what a run would have collected.
 */
import { describe, expect, test } from 'vitest';
import type { JournalEntry } from '../../protocol/journal.schema.ts';
import {
  type ActualEvent,
  type ActualHeard,
  type ActualInvocation,
  checkExpectations,
  type Failure,
  type ScenarioActual,
} from '../../scenarios/checks/expectations.ts';
import type { Expectations } from '../../scenarios/format/scenario.schema.ts';

const DEVICES: Record<string, string> = { Ada: 'dev-ada', Ben: 'dev-ben' };
const USERS = new Map(Object.entries(DEVICES).map(([user, id]) => [id, user]));

/** The failures of `expectations` against `actual` (the rest of a run empty). */
function failures(expectations: Expectations, actual: Partial<ScenarioActual>): Failure[] {
  return checkExpectations(
    expectations,
    {
      events: [],
      heard: new Map(),
      states: new Map(),
      tasks: new Map(),
      devices: new Map(),
      invocations: [],
      tokenRequests: 0,
      requests: [],
      ...actual,
    },
    {
      toleranceMs: 0,
      resolve: (ref, path) => {
        const id = DEVICES[ref];
        if (!id) throw new Error(`${path}: no device '${ref}'`);
        return { id, user: ref };
      },
      userName: (id) => USERS.get(id) ?? id,
      problem: (path, message) => new Error(`${path}: ${message}`),
    },
  );
}

/** The one failure's what, message and first difference. */
function failure(expectations: Expectations, actual: Partial<ScenarioActual>) {
  const found = failures(expectations, actual);
  expect(found).toHaveLength(1);
  const { what, message, firstDifference } = found[0]!;
  return { what, message, firstDifference };
}

const event = (type: string, at: number, more: Partial<ActualEvent> = {}): ActualEvent => ({
  type,
  at,
  task: 'runner',
  taskId: 'task-1',
  name: 'alerts',
  ...more,
});
const START = event('start', 0);
const ACK = event('acknowledged', 5_000, { device: 'Ben' });
const END = event('end', 5_000, { status: 'normal' });
const EXTRA = event('acknowledged', 6_000, { device: 'Ada' });
const ITEMS = [
  { type: 'start', task: 'runner', at: '0s' },
  { type: 'acknowledged', device: 'Ben', at: '5s' },
  { type: 'end', status: 'normal', at: '5s' },
] as const;
const EVENTS = {
  asWritten: [START, ACK, END],
  oneMore: [START, ACK, END, EXTRA],
  oneFewer: [START, ACK],
  reordered: [ACK, START, END],
};

describe('events', () => {
  test('in this order, and no others: one more, one fewer, one reordered each fail', () => {
    const expectation: Expectations = { events: { only: true, items: [...ITEMS] } };
    const what = 'events (in this order, and no others)';
    expect(failures(expectation, { events: EVENTS.asWritten })).toEqual([]);
    expect(failure(expectation, { events: EVENTS.oneMore })).toEqual({
      what,
      message: 'event 4 was not expected: +6s       acknowledged device=Ada task=runner',
      firstDifference: 3,
    });
    expect(failure(expectation, { events: EVENTS.oneFewer })).toEqual({
      what,
      message: 'expected event 3 (at 5s     end status=normal) did not happen',
      firstDifference: 2,
    });
    expect(failure(expectation, { events: EVENTS.reordered })).toEqual({
      what,
      message: 'event 1 differs',
      firstDifference: 0,
    });
  });

  test('in this order (a list): one more passes, one fewer and one reordered fail', () => {
    const expectation: Expectations = { events: [...ITEMS] };
    const what = 'events (in this order)';
    expect(failures(expectation, { events: EVENTS.asWritten })).toEqual([]);
    expect(failures(expectation, { events: EVENTS.oneMore })).toEqual([]);
    expect(failure(expectation, { events: EVENTS.oneFewer })).toEqual({
      what,
      message:
        'expected event 3 (at 5s     end status=normal) was not found after the ones before it',
      firstDifference: 2,
    });
    expect(failure(expectation, { events: EVENTS.reordered })).toEqual({
      what,
      message:
        'expected event 2 (at 5s     acknowledged device=Ben) was not found after the ones before it',
      firstDifference: 1,
    });
  });

  test('in any order, and no others: one more and one fewer fail, one reordered passes', () => {
    const expectation: Expectations = {
      events: { order: 'any', only: true, items: [...ITEMS] },
    };
    const what = 'events (in any order, and no others)';
    expect(failures(expectation, { events: EVENTS.asWritten })).toEqual([]);
    expect(failures(expectation, { events: EVENTS.reordered })).toEqual([]);
    expect(failure(expectation, { events: EVENTS.oneMore })).toEqual({
      what,
      message: 'event +6s       acknowledged device=Ada task=runner was not expected',
      firstDifference: 3,
    });
    expect(failure(expectation, { events: EVENTS.oneFewer })).toEqual({
      what,
      message: 'expected event 3 (at 5s     end status=normal) did not happen',
      firstDifference: 2,
    });
  });

  test('in any order: one more and one reordered pass, one fewer fails', () => {
    const expectation: Expectations = { events: { order: 'any', items: [...ITEMS] } };
    expect(failures(expectation, { events: EVENTS.oneMore })).toEqual([]);
    expect(failures(expectation, { events: EVENTS.reordered })).toEqual([]);
    expect(failure(expectation, { events: EVENTS.oneFewer })).toEqual({
      what: 'events (in any order)',
      message: 'expected event 3 (at 5s     end status=normal) did not happen',
      firstDifference: 2,
    });
  });

  test('an event the same but for one field is no match', () => {
    const expectation: Expectations = { events: { only: true, items: [...ITEMS] } };
    const other = [START, { ...ACK, device: 'Ada' }, END];
    expect(failure(expectation, { events: other }).message).toBe('event 2 differs');
    const late = [START, ACK, { ...END, at: 5_001 }];
    expect(failure(expectation, { events: late }).message).toBe('event 3 differs');
  });
});

const clip = (kind: string, text: string, at: number, cause?: string): ActualHeard => ({
  kind,
  text,
  at,
  ...(cause ? { cause } : {}),
});
const ALERT = clip('alert', 'One runner', 0);
const SPEECH = clip('speech', 'Covered', 5_000, 'on_quorum');
const REPEAT = clip('alert', 'One runner', 30_000);
const HEARD = {
  asWritten: [ALERT, SPEECH],
  oneMore: [ALERT, SPEECH, REPEAT],
  oneFewer: [ALERT],
  reordered: [SPEECH, ALERT],
};
const heardBy = (clips: ActualHeard[]) => ({ heard: new Map([['dev-ada', clips]]) });

describe('heard', () => {
  const what = 'heard by Ada (dev-ada)';

  test('exactly: one more, one fewer, one reordered each fail', () => {
    const expectation: Expectations = {
      heard: {
        Ada: {
          exactly: [
            { kind: 'alert', text: 'One runner', at: '0s' },
            { kind: 'speech', cause: 'on_quorum', text: 'Covered', at: '5s' },
          ],
        },
      },
    };
    expect(failures(expectation, heardBy(HEARD.asWritten))).toEqual([]);
    const exactly = { what: `${what} (exactly)` };
    expect(failure(expectation, heardBy(HEARD.oneMore))).toEqual({
      ...exactly,
      message: 'clip 3 differs',
      firstDifference: 2,
    });
    expect(failure(expectation, heardBy(HEARD.oneFewer))).toEqual({
      ...exactly,
      message: 'clip 2 differs',
      firstDifference: 1,
    });
    expect(failure(expectation, heardBy(HEARD.reordered))).toEqual({
      ...exactly,
      message: 'clip 1 differs',
      firstDifference: 0,
    });
  });

  test('texts: one more, one fewer, one reordered each fail', () => {
    const expectation: Expectations = { heard: { Ada: { texts: ['One runner', 'Covered'] } } };
    expect(failures(expectation, heardBy(HEARD.asWritten))).toEqual([]);
    const texts = { what: `${what} (texts)` };
    expect(failure(expectation, heardBy(HEARD.oneMore))).toEqual({
      ...texts,
      message: 'text 3 differs',
      firstDifference: 2,
    });
    expect(failure(expectation, heardBy(HEARD.oneFewer))).toEqual({
      ...texts,
      message: 'text 2 differs',
      firstDifference: 1,
    });
    expect(failure(expectation, heardBy(HEARD.reordered))).toEqual({
      ...texts,
      message: 'text 1 differs',
      firstDifference: 0,
    });
  });

  test('includes (in order): one more passes, one fewer and one reordered fail', () => {
    const expectation: Expectations = {
      heard: { Ada: { includes: [{ kind: 'alert' }, { kind: 'speech', text: 'Covered' }] } },
    };
    expect(failures(expectation, heardBy(HEARD.asWritten))).toEqual([]);
    expect(failures(expectation, heardBy(HEARD.oneMore))).toEqual([]);
    const includes = { what: `${what} (includes, in order)` };
    const second =
      'expected clip 2 (any time  speech    "Covered") was not heard after the ones before it';
    expect(failure(expectation, heardBy(HEARD.oneFewer))).toEqual({
      ...includes,
      message: second,
      firstDifference: 1,
    });
    expect(failure(expectation, heardBy(HEARD.reordered))).toEqual({
      ...includes,
      message: second,
      firstDifference: 1,
    });
  });

  test('count: one more and one fewer fail, one reordered passes', () => {
    const expectation: Expectations = {
      heard: { Ada: { count: { alert: 1, speech: 1, total: 2 } } },
    };
    expect(failures(expectation, heardBy(HEARD.asWritten))).toEqual([]);
    expect(failures(expectation, heardBy(HEARD.reordered))).toEqual([]);
    expect(failure(expectation, heardBy(HEARD.oneMore))).toEqual({
      what,
      message: 'alert: expected 1, heard 2; total: expected 2, heard 3',
      firstDifference: undefined,
    });
    expect(failure(expectation, heardBy(HEARD.oneFewer))).toEqual({
      what,
      message: 'speech: expected 1, heard 0; total: expected 2, heard 1',
      firstDifference: undefined,
    });
  });
});

describe('states', () => {
  const expectation: Expectations = { states: { Ada: 'idle', Ben: 'playing' } };
  const states = (entries: [string, string][]) => ({ states: new Map(entries) });

  test('one fewer badge, or a badge in another state, fails naming it', () => {
    expect(
      failures(
        expectation,
        states([
          ['dev-ada', 'idle'],
          ['dev-ben', 'playing'],
        ]),
      ),
    ).toEqual([]);
    expect(failure(expectation, states([['dev-ada', 'idle']]))).toEqual({
      what: 'state of Ben (dev-ben)',
      message: 'is no badge, expected playing',
      firstDifference: undefined,
    });
    expect(
      failure(
        expectation,
        states([
          ['dev-ada', 'playing'],
          ['dev-ben', 'playing'],
        ]),
      ),
    ).toEqual({
      what: 'state of Ada (dev-ada)',
      message: 'is playing, expected idle',
      firstDifference: undefined,
    });
  });

  test('states swapped between two badges fail on both', () => {
    const swapped = failures(
      expectation,
      states([
        ['dev-ada', 'playing'],
        ['dev-ben', 'idle'],
      ]),
    );
    expect(swapped.map((f) => `${f.what}: ${f.message}`)).toEqual([
      'state of Ada (dev-ada): is playing, expected idle',
      'state of Ben (dev-ben): is idle, expected playing',
    ]);
  });

  test('a badge the expectation does not list is not checked (states name the badges they mean)', () => {
    const one: Expectations = { states: { Ada: 'idle' } };
    expect(
      failures(
        one,
        states([
          ['dev-ada', 'idle'],
          ['dev-ben', 'playing'],
        ]),
      ),
    ).toEqual([]);
  });
});

const entry = (id: number, method: string, path: string, status: number): JournalEntry => ({
  id,
  time: '2026-01-01T00:00:00.000000Z',
  method,
  path,
  query: {},
  headers: {},
  body: null,
  account: '100001',
  status,
  answer: null,
  duration_ms: 1,
  fault: null,
});
const ALERTS = '/subscribers/100001/api/v1/alerts';
const EVENTS_PATH = '/subscribers/100001/api/v1/events';
const POST_1 = entry(1, 'POST', ALERTS, 200);
const POST_2 = entry(2, 'POST', ALERTS, 200);
const GET_3 = entry(3, 'GET', EVENTS_PATH, 200);
const POST_4 = entry(4, 'POST', ALERTS, 200);

describe('requests', () => {
  const twoPosts: Expectations = {
    requests: [{ method: 'post', path: '/subscribers/*/api/v1/alerts', count: 2 }],
  };

  test('a count: one more and one fewer fail, with the entries that matched or came closest', () => {
    expect(failures(twoPosts, { requests: [POST_1, POST_2, GET_3] })).toEqual([]);
    const more = failures(twoPosts, { requests: [POST_1, POST_2, GET_3, POST_4] });
    expect(more).toEqual([
      {
        what: 'requests[0]',
        message: '3 of 4 requests matched, expected exactly 2',
        expected: ['POST /subscribers/*/api/v1/alerts × exactly 2'],
        actual: [`#1 POST ${ALERTS} → 200`, `#2 POST ${ALERTS} → 200`, `#4 POST ${ALERTS} → 200`],
      },
    ]);
    const fewer = failures(twoPosts, { requests: [POST_1, GET_3] });
    expect(fewer).toEqual([
      {
        what: 'requests[0]',
        message: '1 of 2 requests matched, expected exactly 2',
        expected: ['POST /subscribers/*/api/v1/alerts × exactly 2'],
        actual: [
          `#3 GET ${EVENTS_PATH} → 200 — method GET, expected POST; path does not match /subscribers/*/api/v1/alerts`,
        ],
      },
    ]);
  });

  test('reordered requests pass: matchers count, they do not order', () => {
    expect(failures(twoPosts, { requests: [GET_3, POST_2, POST_1] })).toEqual([]);
  });

  test('at least one (no count): one more passes, none fails', () => {
    const some: Expectations = { requests: [{ method: 'GET', path: '**/events' }] };
    expect(failures(some, { requests: [GET_3, { ...GET_3, id: 5 }] })).toEqual([]);
    expect(failure(some, { requests: [POST_1] })).toEqual({
      what: 'requests[0]',
      message: '0 of 1 requests matched, expected at least 1',
      firstDifference: undefined,
    });
  });

  test('at most (count max): one more fails', () => {
    const atMost: Expectations = { requests: [{ path: '**/alerts', count: { max: 2 } }] };
    expect(failures(atMost, { requests: [POST_1, POST_2] })).toEqual([]);
    expect(failure(atMost, { requests: [POST_1, POST_2, POST_4] }).message).toBe(
      '3 of 3 requests matched, expected at most 2',
    );
  });
});

describe('counts', () => {
  test('token requests: one more and one fewer fail', () => {
    const two: Expectations = { token_requests: 2 };
    expect(failures(two, { tokenRequests: 2 })).toEqual([]);
    expect(failure(two, { tokenRequests: 3 })).toEqual({
      what: 'token requests',
      message: 'the scenario went to oauth2/token 3 times, expected 2',
      firstDifference: undefined,
    });
    expect(failure(two, { tokenRequests: 1 }).message).toBe(
      'the scenario went to oauth2/token 1 times, expected 2',
    );
  });

  test("a task's acknowledgements: one more and one fewer fail", () => {
    const one: Expectations = { tasks: { runner: { outcome: 'quorum', acknowledgements: 1 } } };
    const task = (acknowledgements: number) => ({
      tasks: new Map([['runner', { state: 'ended', outcome: 'quorum', acknowledgements }]]),
    });
    expect(failures(one, task(1))).toEqual([]);
    expect(failure(one, task(2))).toEqual({
      what: 'task runner',
      message: 'acknowledgements is 2, expected 1',
      firstDifference: undefined,
    });
    expect(failure(one, task(0)).message).toBe('acknowledgements is 0, expected 1');
  });

  test('workflow invocations: one more, one fewer, one reordered each fail', () => {
    const invocation = (workflow_id: string, user_id: string): ActualInvocation => ({
      workflow_id,
      user_id,
      environment: 'pro',
      at: '2026-01-01T00:00:00.000000Z',
    });
    const two: Expectations = {
      invocations: [
        { workflow: 'wf_checkin', user: 'Ada' },
        { workflow: 'wf_help', user: 'Ben' },
      ],
    };
    const first = invocation('wf_checkin', 'dev-ada');
    const second = invocation('wf_help', 'dev-ben');
    expect(failures(two, { invocations: [first, second] })).toEqual([]);
    const what = 'workflow invocations';
    expect(
      failure(two, { invocations: [first, second, invocation('wf_help', 'dev-ada')] }),
    ).toEqual({ what, message: '3 invocations, expected 2', firstDifference: 2 });
    expect(failure(two, { invocations: [first] })).toEqual({
      what,
      message: '1 invocations, expected 2',
      firstDifference: 1,
    });
    expect(failure(two, { invocations: [second, first] })).toEqual({
      what,
      message: 'invocation 1 differs',
      firstDifference: 0,
    });
  });
});
