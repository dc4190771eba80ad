/**
 * Issue 11, hardening, over a real port: ids and tokens are not repeated by another process or
 * after a reset unless a seed was given; the control API can be locked with a token.
 */
import { describe, expect, test } from 'vitest';
import { StubControlClient } from '../../client/control-client.ts';
import { ServiceError } from '../../client/service-client.ts';
import { loadScenarioFile } from '../../scenarios/format/load-scenario.ts';
import { runScenario } from '../../scenarios/runner/run-scenario.ts';
import { type StartStubOptions, type StubHandle, startStub } from '../../server-stub/start-stub.ts';
import { startFleet } from '../../simulator/fleet.ts';
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

const TOKEN = 'lock-test-control-token-0001';
const HEADER = 'X-Badge-Sim-Control-Token';
const ADA = '350000000000001';

/** Every route of the control API, from the stub's own OpenAPI document (tag `control`). */
async function controlRoutes(stub: StubHandle): Promise<{ method: string; path: string }[]> {
  const doc = (await request(stub.openapiUrl)).body as {
    paths: Record<string, Record<string, { tags?: string[] }>>;
  };
  return Object.entries(doc.paths).flatMap(([path, operations]) =>
    Object.entries(operations)
      .filter(([, op]) => op.tags?.includes('control'))
      .map(([method, _]) => ({
        method: method.toUpperCase(),
        path: path
          .replace('{device_id}', ADA)
          .replace('{task_id}', 'no-such-task')
          .replace('{id}', 'no-such-fault'),
      })),
  );
}

describe('the control token', () => {
  test('locked: every /_stub route but health answers 401 without the header or with a wrong one, naming the header; with it, it works', async () => {
    await using stub = await startStub({ controlToken: TOKEN });
    const routes = await controlRoutes(stub);
    expect(routes.length).toBeGreaterThan(15);
    for (const { method, path } of routes) {
      // A wait for an event that never comes answers 408 at its timeout: keep that short.
      // A wait for a device answers at once when it is already as asked (offline here).
      // The live stream never ends unless asked for its snapshot only.
      const query =
        path === '/_stub/events/await'
          ? '?timeout=50ms'
          : path.endsWith('/await')
            ? '?online=false'
            : path === '/_stub/stream'
              ? '?once=true'
              : '';
      const call = (headers: Record<string, string>) =>
        request(`${stub.url}${path}${query}`, {
          method,
          headers,
          body: method === 'GET' ? undefined : {},
        });
      const what = `${method} ${path}`;
      if (path === '/_stub/health') {
        expect((await call({})).status, what).toBe(200);
        continue;
      }
      const missing = await call({});
      expect(missing.status, what).toBe(401);
      expect(missing.body, what).toEqual({
        statusCode: 401,
        error: 'Unauthorized',
        code: 'missing_control_token',
        message: expect.stringContaining(HEADER),
        field: 'x-badge-sim-control-token',
      });
      for (const wrong of ['not-the-token', `${TOKEN}x`, TOKEN.slice(0, -1)]) {
        const refused = await call({ [HEADER]: wrong });
        expect(refused.status, what).toBe(401);
        expect(refused.body, what).toMatchObject({
          code: 'invalid_control_token',
          field: 'x-badge-sim-control-token',
        });
        expect(JSON.stringify(refused.body)).not.toContain(wrong);
      }
      const allowed = await call({ [HEADER]: TOKEN });
      expect(allowed.status, what).not.toBe(401);
      if (method === 'GET' && !path.includes('no-such-'))
        expect(allowed.status, what).toBe(path === '/_stub/events/await' ? 408 : 200);
    }
    // HEAD, a query string and another spelling of the path are no way round it.
    expect((await fetch(`${stub.controlUrl}/fixtures`, { method: 'HEAD' })).status).toBe(401);
    expect((await request(`${stub.controlUrl}/fixtures?x=1`)).status).toBe(401);
    expect((await request(`${stub.url}/%5Fstub/fixtures`)).status).toBe(401);
    // What the lock protects, with the token: the fixtures' secrets, minting refresh tokens.
    const fixtures = await request(`${stub.controlUrl}/fixtures`, { headers: { [HEADER]: TOKEN } });
    expect(fixtures.body.accounts[0].api_keys).toEqual([RIVERSIDE.key]);
    const minted = await request(`${stub.controlUrl}/tokens/refresh`, {
      method: 'POST',
      headers: { [HEADER]: TOKEN },
      body: { subscriber_id: RIVERSIDE.id },
    });
    expect(minted.status).toBe(200);
    // The emulated APIs are not behind the control token.
    expect((await serviceClient(stub).events()).status).toBe(200);
  });

  test('open (no token): the control API answers without a header, as before', async () => {
    await using stub = await startStub();
    expect(stub.controlLocked).toBe(false);
    const fixtures = await request(`${stub.controlUrl}/fixtures`);
    expect(fixtures.status).toBe(200);
    const withHeader = await request(`${stub.controlUrl}/reset`, {
      method: 'POST',
      headers: { [HEADER]: 'anything' },
    });
    expect(withHeader.status).toBe(200);
  });

  test('a control token that cannot be a header value is refused at start, without repeating it', async () => {
    await expect(startStub({ controlToken: '' })).rejects.toThrow(
      'badge-sim: controlToken is empty',
    );
    const spaced = 'has a space';
    const refusal = startStub({ controlToken: spaced });
    await expect(refusal).rejects.toThrow(/controlToken must be 1 to 1024 visible ASCII/);
    await expect(refusal).rejects.not.toThrow(spaced);
  });

  test('the request log never holds the control token', async () => {
    const lines: string[] = [];
    await using stub = await startStub({
      controlToken: TOKEN,
      onResponse: (line) => lines.push(JSON.stringify(line)),
    });
    await request(`${stub.controlUrl}/fixtures`, { headers: { [HEADER]: TOKEN } });
    await request(`${stub.controlUrl}/fixtures`, { headers: { [HEADER]: 'wrong-one' } });
    await expect.poll(() => lines.length).toBe(2);
    expect(lines.join('\n')).not.toContain(TOKEN);
    expect(lines.join('\n')).toContain('401');
  });
});

describe('clients of a locked control API', () => {
  test('StubControlClient sends the token it is given in X-Badge-Sim-Control-Token; without it a call is refused 401', async () => {
    await using stub = await startStub({ controlToken: TOKEN });
    const control = new StubControlClient(stub.url, { controlToken: TOKEN });
    expect((await control.fixtures()).accounts[0]!.subscriber_id).toBe(RIVERSIDE.id);
    await control.advance('1m');
    expect((await control.reset()).status).toBe('ok');
    expect(await control.issueRefreshToken(RIVERSIDE.id)).toMatch(/^rt_/);
    const refused = await new StubControlClient(stub.url).fixtures().catch((error) => error);
    expect(refused).toBeInstanceOf(ServiceError);
    expect(refused).toMatchObject({ status: 401, body: { code: 'missing_control_token' } });
    expect(() => new StubControlClient(stub.url, { controlToken: 'a b' })).toThrow(
      'badge-sim: controlToken must be 1 to 1024 visible ASCII',
    );
  });

  test('a fleet and an external-mode scenario drive a locked stub with its token, and say to pass it without', async () => {
    await using stub = await startStub({ controlToken: TOKEN });
    await using fleet = await startFleet({
      stub: stub.url,
      controlToken: TOKEN,
      group: 'Nurses',
    });
    await fleet.waitUntilConnected();
    await fleet.advanceBy(1_000);
    await fleet.close();
    await expect(startFleet({ stub: stub.url, group: 'Nurses' })).rejects.toThrow(
      `badge-sim: the stub at ${stub.url} locks its control API and no control token was given: pass its token with --control-token`,
    );

    const scenario = loadScenarioFile('scenarios/catalogue/single-acknowledgement.scenario.yaml');
    const report = await runScenario(scenario, {
      mode: 'external',
      stubUrl: stub.url,
      controlToken: TOKEN,
    });
    expect(report.failures).toEqual([]);
    expect(report.rerun).not.toContain(TOKEN);
    await expect(runScenario(scenario, { mode: 'external', stubUrl: stub.url })).rejects.toThrow(
      'locks its control API and no control token was given: pass its token with --control-token',
    );
    await expect(
      runScenario(scenario, { mode: 'external', stubUrl: stub.url, controlToken: 'wrong' }),
    ).rejects.toThrow('refused the control token given');
  });
});
