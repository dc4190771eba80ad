/**
 * Random schedules of what a stub's users do (fast-check), for the world-snapshot property:
 * posts of alerts with acknowledgements, quorums and timeouts, cancels, broadcasts, taps
 * through the control API, clock advances, token requests, a seeded fault and requests that
 * draw from it. Two drivers run a schedule: on a `StubCore` in this process, and over HTTP.
 */
import fc from 'fast-check';
import { EngineError } from '../../server-stub/engine/engine-error.ts';
import type { StubCore } from '../../server-stub/stub-core.ts';
import { RIVERSIDE, request } from '../support/http.ts';

export type WorldOp =
  | { kind: 'post'; group: string; name: string; quorum: number | undefined; timeout: number }
  | { kind: 'cancel'; task: number }
  | { kind: 'broadcast'; group: string }
  | { kind: 'tap'; device: string }
  | { kind: 'advance'; ms: number }
  | { kind: 'token' }
  | { kind: 'fault' };

const DEVICES = ['350000000000001', '350000000000002', '350000000000003', '350000000000004'];
const GROUPS = ['Nurses', 'Pharmacy'];

const op: fc.Arbitrary<WorldOp> = fc.oneof(
  {
    arbitrary: fc.record({
      kind: fc.constant('post' as const),
      group: fc.constantFrom(...GROUPS),
      name: fc.constantFrom('x', 'y'),
      quorum: fc.constantFrom(undefined, 1, 2),
      timeout: fc.constantFrom(30, 45, 90, 300),
    }),
    weight: 4,
  },
  { arbitrary: fc.record({ kind: fc.constant('cancel' as const), task: fc.nat(5) }), weight: 1 },
  {
    arbitrary: fc.record({
      kind: fc.constant('broadcast' as const),
      group: fc.constantFrom(...GROUPS),
    }),
    weight: 1,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('tap' as const),
      device: fc.constantFrom(...DEVICES),
    }),
    weight: 3,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('advance' as const),
      ms: fc.constantFrom(0, 1_000, 29_000, 30_000, 31_000, 60_000, 400_000),
    }),
    weight: 3,
  },
  { arbitrary: fc.constant({ kind: 'token' as const }), weight: 1 },
  { arbitrary: fc.constant({ kind: 'fault' as const }), weight: 1 },
);

/** A schedule and the instant (an index into it) at which the snapshot is taken. */
export const worldSchedule = fc
  .array(op, { minLength: 2, maxLength: 14 })
  .chain((ops) =>
    fc.record({ ops: fc.constant(ops), at: fc.integer({ min: 0, max: ops.length }) }),
  );

const ALERTS_PATH = `/subscribers/${RIVERSIDE.id}/api/v1/alerts`;
const FAULT = {
  match: { method: 'POST', path: '/subscribers/*/api/v1/alerts' },
  action: { status: 503 },
  when: { probability: 0.5 },
};
const TOKEN_REQUEST = {
  grant_type: 'refresh_token',
  client_id: 'badge-sim-pro-cli',
  refresh_token: 'demo-refresh-token-riverside-pro-0001',
};

/** What one step did, as text: compared between the two worlds (ids, outcomes). */
export type Driver = (op: WorldOp, posted: string[]) => Promise<string>;

/** Runs steps on a stub's core in this process, as the routes would (faults first). */
export function coreDriver(core: StubCore): Driver {
  return async (op, posted) => {
    try {
      switch (op.kind) {
        case 'post': {
          const fault = core.faults.decide({
            method: 'POST',
            path: ALERTS_PATH,
            accounts: () => [RIVERSIDE.id],
          });
          if (fault) return `fault ${fault.id}`;
          const { group, name, quorum, timeout } = op;
          const { taskId } = core.engine.createAlert(RIVERSIDE.id, {
            notification: `n-${name}`,
            groups: [group],
            name,
            quorum,
            timeout,
          });
          posted.push(taskId);
          return taskId;
        }
        case 'cancel':
          core.engine.cancelAlert(RIVERSIDE.id, posted[op.task] ?? 'none');
          return 'cancelled';
        case 'broadcast':
          return core.engine.broadcast(RIVERSIDE.id, { notification: 'b', groups: [op.group] })
            .taskId;
        case 'tap':
          return JSON.stringify(core.engine.tap(op.device));
        case 'advance':
          return String(await core.clock.advanceBy(op.ms));
        case 'token':
          return JSON.stringify(core.exchangeToken('pro', TOKEN_REQUEST));
        case 'fault':
          return core.faults.add(FAULT).id;
      }
    } catch (error) {
      if (error instanceof EngineError) return `refused ${error.code}`;
      throw error;
    }
  };
}

/** Runs steps on a stub over HTTP: the service's routes and the control API. */
export function httpDriver(url: string, controlUrl: string): Driver {
  const base = `${url}${`/subscribers/${RIVERSIDE.id}/api/v1`}`;
  const headers = { authorization: `ServiceApiKey ${RIVERSIDE.key}` };
  const said = (res: { status: number; body: unknown }) =>
    `${res.status} ${JSON.stringify(res.body)}`;
  return async (op, posted) => {
    switch (op.kind) {
      case 'post': {
        const { group, name, quorum, timeout } = op;
        const body = { notification: `n-${name}`, groups: [group], name, quorum, timeout };
        const res = await request(`${base}/alerts`, { method: 'POST', headers, body });
        if (res.status === 201 || res.status === 200) posted.push(res.body.task_id);
        return said({ status: res.status, body: res.body.task_id ?? res.body.code });
      }
      case 'cancel':
        return said(
          await request(`${base}/alerts/${posted[op.task] ?? 'none'}`, {
            method: 'DELETE',
            headers,
          }),
        );
      case 'broadcast':
        return said(
          await request(`${base}/broadcasts`, {
            method: 'POST',
            headers,
            body: { notification: 'b', groups: [op.group] },
          }),
        );
      case 'tap':
        return said(await request(`${controlUrl}/devices/${op.device}/tap`, { method: 'POST' }));
      case 'advance':
        return said(
          await request(`${controlUrl}/clock/advance`, { method: 'POST', body: { by: op.ms } }),
        );
      case 'token':
        return said(await request(`${url}/oauth2/token`, { method: 'POST', body: TOKEN_REQUEST }));
      case 'fault':
        return said(await request(`${controlUrl}/faults`, { method: 'POST', body: FAULT }));
    }
  };
}

/** Runs a schedule's steps from `from` to `to`, keeping what each did. */
export async function runSteps(
  driver: Driver,
  ops: readonly WorldOp[],
  from: number,
  to: number,
  posted: string[],
): Promise<string[]> {
  const outcomes: string[] = [];
  for (let i = from; i < to; i++) outcomes.push(await driver(ops[i]!, posted));
  return outcomes;
}
