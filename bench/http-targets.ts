/**
 * What `npm run bench:http` and the CI guard measure: each stub route and the bare fastify route
 * it is compared with (with the check of one answer), and issue 28's goal for each ratio.
 */
import { GOALS } from './goals.ts';
import type { FillInfo, ServerKind } from './http-server.bench.ts';

export const ACCOUNT = {
  id: '100001',
  key: 'demo-api-key-riverside-0001',
  group: 'Nurses',
} as const;
const API = `/subscribers/${ACCOUNT.id}/api/v1`;
const AUTH = { authorization: `ServiceApiKey ${ACCOUNT.key}` };
const ALERT_BODY = JSON.stringify({ notification: 'Bench', groups: [ACCOUNT.group], timeout: 60 });

export interface Target {
  id: string;
  label: string;
  kind: ServerKind;
  method: 'GET' | 'POST';
  /** The path, given what the child reported (the events middle instant). */
  path: (info: FillInfo | undefined) => string;
  headers?: Record<string, string>;
  body?: string;
  /** Checks one answer before the measurement; throws when the target answers wrongly. */
  check: (status: number, body: unknown, info: FillInfo | undefined) => void;
}

const expectTaskId = (status: number, body: unknown) => {
  if (status !== 200 || typeof (body as { task_id?: unknown })?.task_id !== 'string') {
    throw new Error(`expected 200 with a task_id, got ${status} ${JSON.stringify(body)}`);
  }
};

const expectEvents = (from?: (info: FillInfo | undefined) => string | undefined) => {
  return (status: number, body: unknown, info: FillInfo | undefined) => {
    if (status !== 200 || !Array.isArray(body) || body.length !== 100) {
      throw new Error(`expected 200 with 100 events, got ${status} ${describe(body)}`);
    }
    const oldest = from?.(info);
    if (oldest !== undefined) {
      const first = Date.parse((body[0] as { timestamp: string }).timestamp);
      if (first < Date.parse(oldest) || first > Date.parse(oldest) + 1000) {
        throw new Error(`expected events from ${oldest}, the first is at ${body[0].timestamp}`);
      }
    }
  };
};

const middle = (info: FillInfo | undefined) => {
  if (!info) throw new Error('the stub-events child reported no INFO line');
  return info.middle;
};

/** In the order of a round: each stub route right after the bare route it is compared with. */
/**
 * Every target, in the order of a round: each stub route right after the bare route it is
 * compared with (the journal on, as by default, and nobody reading it).
 */
export const TARGETS: Target[] = [
  {
    id: 'bare-post',
    label: 'bare POST /bare',
    kind: 'bare',
    method: 'POST',
    path: () => '/bare',
    headers: { 'content-type': 'application/json' },
    body: ALERT_BODY,
    check: expectTaskId,
  },
  {
    id: 'stub-post-alerts',
    label: 'stub POST alerts',
    kind: 'stub',
    method: 'POST',
    path: () => `${API}/alerts`,
    headers: { ...AUTH, 'content-type': 'application/json' },
    body: ALERT_BODY,
    check: expectTaskId,
  },
  {
    id: 'bare-get-100-prebuilt',
    label: 'bare GET /bare-events-prebuilt (same 100-event payload serialised once: the floor)',
    kind: 'bare',
    method: 'GET',
    path: () => '/bare-events-prebuilt',
    check: expectEvents(),
  },
  {
    id: 'stub-get-events',
    label: 'stub GET events',
    kind: 'stub-events',
    method: 'GET',
    path: () => `${API}/events`,
    headers: AUTH,
    check: expectEvents(),
  },
  {
    id: 'stub-get-events-oldest',
    label: 'stub GET events?oldest=<middle>&limit=100',
    kind: 'stub-events',
    method: 'GET',
    path: (info) => `${API}/events?oldest=${encodeURIComponent(middle(info))}&limit=100`,
    headers: AUTH,
    check: expectEvents(middle),
  },
  {
    id: 'bare-get-100',
    label: 'bare GET /bare-events (same payload through the response schema, info)',
    kind: 'bare',
    method: 'GET',
    path: () => '/bare-events',
    check: expectEvents(),
  },
];

/** A stub route, the bare route it is compared with, and the goal of their ratio. */
export interface Comparison {
  stub: string;
  bare: string;
  goal: number;
}

/** Each stub route against its floor, with issue 28's goal for the ratio. */
export const COMPARISONS: Comparison[] = [
  { stub: 'stub-post-alerts', bare: 'bare-post', goal: GOALS.postAlertsVsBare },
  { stub: 'stub-get-events', bare: 'bare-get-100-prebuilt', goal: GOALS.getEventsVsPrebuilt },
  {
    stub: 'stub-get-events-oldest',
    bare: 'bare-get-100-prebuilt',
    goal: GOALS.getEventsVsPrebuilt,
  },
];

function describe(body: unknown): string {
  return Array.isArray(body) ? `an array of ${body.length}` : JSON.stringify(body);
}
