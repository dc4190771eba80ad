/**
 * Issue 11, hardening, over a real port: ids and tokens are not repeated by another process or
 * after a reset unless a seed was given; the control API can be locked with a token.
 */
import { describe, expect, test } from 'vitest';
import { type StartStubOptions, type StubHandle, startStub } from '../../server-stub/start-stub.ts';
import { HARBOUR, RIVERSIDE, request, serviceClient } from '../support/http.ts';

const UA = { 'user-agent': 'badge-sim-tests/1' };
const ROSA = '350000000000005';

async function exchange(stub: StubHandle, refreshToken: string) {
  const response = await fetch(`${stub.url}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      client_id: 'badge-sim-pro-sdk',
      refresh_token: refreshToken,
    }).toString(),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { access_token: string; id_token: string };
}

/** The account an access token grants: the device-info answer for Rosa (Riverside). */
async function grants(stub: StubHandle, accessToken: string) {
  const answer = await request(
    `${stub.url}/service/api/v1/device/${ROSA}?subscriber_id=${RIVERSIDE.id}`,
    { headers: { ...UA, authorization: `Bearer ${accessToken}` } },
  );
  return answer.status;
}

/** The first things a run issues: a task id, an event id, access, id and refresh tokens. */
async function firstIssued(stub: StubHandle, account: { id: string; key: string } = RIVERSIDE) {
  const api = serviceClient(stub, account);
  const group = account === RIVERSIDE ? 'Nurses' : 'Dock Crew';
  const alert = await api.alert({ notification: 'x', groups: [group] });
  expect(alert.status).toBe(200);
  const events = await api.events();
  const refresh = await request(`${stub.controlUrl}/tokens/refresh`, {
    method: 'POST',
    body: { subscriber_id: account.id },
  });
  expect(refresh.status).toBe(200);
  const tokens = await exchange(stub, refresh.body.refresh_token);
  return {
    taskId: alert.body.task_id as string,
    eventId: events.body[0].event_id as string,
    accessToken: tokens.access_token,
    idToken: tokens.id_token,
    refreshToken: refresh.body.refresh_token as string,
  };
}

const RUNNING: [string, StartStubOptions][] = [
  ['virtual', {}],
  ['real', { clock: 'real' }],
  ['scaled', { clock: 'scaled', clockScale: 60 }],
];

describe('ids and tokens across runs and resets', () => {
  test.each(RUNNING)(
    'two stubs started without a seed on the %s clock issue different task ids, event ids and tokens',
    async (_, options) => {
      await using one = await startStub(options);
      await using two = await startStub(options);
      const a = await firstIssued(one);
      const b = await firstIssued(two);
      for (const key of Object.keys(a) as (keyof typeof a)[]) expect(b[key], key).not.toBe(a[key]);
      expect(a.taskId).toMatch(/^[A-Za-z0-9]{22}$/);
      expect(a.eventId).toMatch(/^[0-9a-f]{32}$/);
    },
  );

  test('a reset on the real clock repeats no task id, event id or token; a stale DELETE or token reaches nothing', async () => {
    await using stub = await startStub({ clock: 'real' });
    const before = await firstIssued(stub);
    expect((await request(`${stub.controlUrl}/reset`, { method: 'POST' })).status).toBe(200);
    // The same calls after the reset, but for the other account.
    const after = await firstIssued(stub, HARBOUR);
    for (const key of Object.keys(before) as (keyof typeof before)[])
      expect(after[key], key).not.toBe(before[key]);
    // The client of the first run still holds its task id and token: they reach nothing now.
    const stale = await serviceClient(stub).cancel(before.taskId);
    expect(stale.status).toBe(404);
    expect(await grants(stub, before.accessToken)).toBe(401);
  });

  test('with an explicit seed, two stubs issue the same ids and tokens; after a reset the same ids again, but never a token issued before', async () => {
    await using one = await startStub({ clock: 'real', seed: 7 });
    await using two = await startStub({ clock: 'real', seed: 7 });
    const a = await firstIssued(one);
    expect(await firstIssued(two)).toEqual(a);
    // A seeded run without resets issues what it always did: the tokens carry no mark.
    expect(a.accessToken).toMatch(/^at_[A-Za-z0-9]{44}$/);
    expect(a.refreshToken).toMatch(/^rt_[A-Za-z0-9]{44}$/);

    expect((await request(`${one.controlUrl}/reset`, { method: 'POST' })).status).toBe(200);
    const after = await firstIssued(one);
    expect(after.taskId).toBe(a.taskId);
    expect(after.eventId).toBe(a.eventId);
    for (const key of ['accessToken', 'idToken', 'refreshToken'] as const)
      expect(after[key], key).not.toBe(a[key]);
    expect(await grants(one, a.accessToken)).toBe(401);
    expect(await grants(one, after.accessToken)).toBe(200);
    // Still the same in another process making the same calls and resets.
    await request(`${two.controlUrl}/reset`, { method: 'POST' });
    expect(await firstIssued(two)).toEqual(after);
  });
});
