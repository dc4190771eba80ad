/**
 * The token, workflow-trigger and device-info interface over a real port, in both
 * environments: tokens, the firewall, bearer refusals, invocations a badge hears, device info.
 */
import { describe, expect, test } from 'vitest';
import { type StubHandle, startStub } from '../../server-stub/start-stub.ts';
import { startFleet } from '../../simulator/fleet.ts';
import { request } from '../support/http.ts';

const PRO_REFRESH = 'demo-refresh-token-riverside-pro-0001';
const QA_REFRESH = 'demo-refresh-token-riverside-qa-0001';
const UA = { 'user-agent': 'badge-sim-tests/1' };
const ROSA = '350000000000005';

async function token(
  stub: StubHandle,
  body: Record<string, string>,
  options: { prefix?: string; json?: boolean } = {},
) {
  const response = await fetch(`${stub.url}${options.prefix ?? ''}/oauth2/token`, {
    method: 'POST',
    headers: {
      'content-type': options.json ? 'application/json' : 'application/x-www-form-urlencoded',
    },
    body: options.json ? JSON.stringify(body) : new URLSearchParams(body).toString(),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as any,
  };
}

async function accessToken(
  stub: StubHandle,
  refresh = PRO_REFRESH,
  prefix = '',
  clientId = 'badge-sim-pro-sdk',
) {
  const answer = await token(
    stub,
    { grant_type: 'refresh_token', client_id: clientId, refresh_token: refresh },
    { prefix },
  );
  expect(answer.status).toBe(200);
  return answer.body.access_token as string;
}

describe('POST oauth2/token', () => {
  test('a refresh token (form-encoded) gives an access token and an id token for 2 hours', async () => {
    await using stub = await startStub();
    const answer = await token(stub, {
      grant_type: 'refresh_token',
      client_id: 'badge-sim-pro-sdk',
      refresh_token: PRO_REFRESH,
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      access_token: expect.stringMatching(/^at_/),
      id_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 7200,
    });
    expect(answer.headers.get('cache-control')).toBe('no-store');
  });

  test('JSON bodies, as some SDKs send, and the command-line client id are accepted too', async () => {
    await using stub = await startStub();
    const answer = await token(
      stub,
      { grant_type: 'refresh_token', client_id: 'badge-sim-pro-cli', refresh_token: PRO_REFRESH },
      { json: true },
    );
    expect(answer.status).toBe(200);
  });

  test.each([
    [
      'no grant_type',
      { client_id: 'badge-sim-pro-sdk', refresh_token: PRO_REFRESH },
      400,
      'invalid_request',
    ],
    [
      'another grant type',
      { grant_type: 'password', client_id: 'badge-sim-pro-sdk', refresh_token: PRO_REFRESH },
      400,
      'unsupported_grant_type',
    ],
    [
      'no client_id',
      { grant_type: 'refresh_token', refresh_token: PRO_REFRESH },
      400,
      'invalid_request',
    ],
    [
      'an unknown client id',
      { grant_type: 'refresh_token', client_id: 'someone', refresh_token: PRO_REFRESH },
      401,
      'invalid_client',
    ],
    [
      'the qa client id in pro',
      { grant_type: 'refresh_token', client_id: 'badge-sim-qa-sdk', refresh_token: PRO_REFRESH },
      401,
      'invalid_client',
    ],
    [
      'no refresh_token',
      { grant_type: 'refresh_token', client_id: 'badge-sim-pro-sdk' },
      400,
      'invalid_request',
    ],
    [
      'an unknown refresh token',
      { grant_type: 'refresh_token', client_id: 'badge-sim-pro-sdk', refresh_token: 'not-a-token' },
      400,
      'invalid_grant',
    ],
    [
      'a qa refresh token in pro',
      { grant_type: 'refresh_token', client_id: 'badge-sim-pro-sdk', refresh_token: QA_REFRESH },
      400,
      'invalid_grant',
    ],
  ])('%s → %i %s (OAuth error body)', async (_name, body, status, error) => {
    await using stub = await startStub();
    const answer = await token(stub, body as Record<string, string>);
    expect(answer.status).toBe(status);
    expect(answer.body).toEqual({ error, error_description: expect.any(String) });
    expect(JSON.stringify(answer.body)).not.toContain(PRO_REFRESH);
  });

  test.each([
    ['grant_type', ['refresh_token']],
    ['client_id', 7],
    ['refresh_token', { token: PRO_REFRESH }],
  ])(
    'JSON %s of the wrong type → 400 invalid_request "%s must be a string", not "is required"',
    async (field, value) => {
      await using stub = await startStub();
      const body: Record<string, unknown> = {
        grant_type: 'refresh_token',
        client_id: 'badge-sim-pro-sdk',
        refresh_token: PRO_REFRESH,
        [field]: value,
      };
      const answer = await token(stub, body as Record<string, string>, { json: true });
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({
        error: 'invalid_request',
        error_description: `${field} must be a string`,
      });
      // Empty or missing is still "is required".
      const empty = await token(stub, { ...body, [field]: '' } as Record<string, string>, {
        json: true,
      });
      expect(empty.body.error_description).toBe(`${field} is required`);
    },
  );

  test('refresh tokens issued and revoked through the control API', async () => {
    await using stub = await startStub();
    const issued = await request(`${stub.controlUrl}/tokens/refresh`, {
      method: 'POST',
      body: { subscriber_id: '100002', environment: 'qa' },
    });
    expect(issued.status).toBe(200);
    const refresh = issued.body.refresh_token as string;
    await accessToken(stub, refresh, '/qa', 'badge-sim-qa-sdk');
    expect(
      (
        await request(`${stub.controlUrl}/tokens/revoke`, {
          method: 'POST',
          body: { refresh_token: refresh },
        })
      ).status,
    ).toBe(200);
    const again = await token(
      stub,
      { grant_type: 'refresh_token', client_id: 'badge-sim-qa-sdk', refresh_token: refresh },
      { prefix: '/qa' },
    );
    expect(again.body.error).toBe('invalid_grant');
    expect(
      (
        await request(`${stub.controlUrl}/tokens/revoke`, {
          method: 'POST',
          body: { refresh_token: 'nope' },
        })
      ).status,
    ).toBe(404);
  });
});

describe('the API host', () => {
  const device = (
    stub: StubHandle,
    headers: Record<string, string>,
    prefix = '',
    id = ROSA,
    subscriber = '100001',
  ) =>
    request(`${stub.url}${prefix}/service/api/v1/device/${id}?subscriber_id=${subscriber}`, {
      headers,
    });

  test('the firewall refuses a missing or empty User-Agent before anything else (403)', async () => {
    await using stub = await startStub();
    const bearer = { authorization: `Bearer ${await accessToken(stub)}` };
    for (const agent of [undefined, '', '   ']) {
      const headers: Record<string, string> = {
        ...bearer,
        ...(agent === undefined ? {} : { 'user-agent': agent }),
      };
      // fetch sends its own User-Agent when none is given: an empty one stands for "none" here.
      const res = await device(
        stub,
        agent === undefined ? { ...headers, 'user-agent': '' } : headers,
      );
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 'firewall', field: 'user-agent' });
    }
    const noToken = await device(stub, { 'user-agent': '' });
    expect(noToken.status).toBe(403);
  });

  test.each([
    ['no token', {}],
    ['an unknown token', { authorization: 'Bearer at_nonsense' }],
  ] as [string, Record<string, string>][])(
    '%s → 401 invalid_token with WWW-Authenticate',
    async (_name, headers) => {
      await using stub = await startStub();
      const res = await device(stub, { ...UA, ...headers });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ code: 'invalid_token', field: 'authorization' });
      expect(res.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    },
  );

  test('the id_token is refused as the bearer credential; the access token expires after 2 hours', async () => {
    await using stub = await startStub();
    const answer = await token(stub, {
      grant_type: 'refresh_token',
      client_id: 'badge-sim-pro-sdk',
      refresh_token: PRO_REFRESH,
    });
    const idToken = await device(stub, { ...UA, authorization: `Bearer ${answer.body.id_token}` });
    expect(idToken.status).toBe(401);
    expect(idToken.body.message).toContain('id_token');
    const bearer = { ...UA, authorization: `Bearer ${answer.body.access_token}` };
    await stub.core.clock.advanceBy(2 * 3600 * 1000 - 1);
    expect((await device(stub, bearer)).status).toBe(200);
    await stub.core.clock.advanceBy(1);
    const expired = await device(stub, bearer);
    expect(expired.status).toBe(401);
    expect(expired.body.message).toContain('expired');
  });

  test('a token from one environment is refused by the other; each serves its own', async () => {
    await using stub = await startStub();
    const pro = { ...UA, authorization: `Bearer ${await accessToken(stub)}` };
    const qa = {
      ...UA,
      authorization: `Bearer ${await accessToken(stub, QA_REFRESH, '/qa', 'badge-sim-qa-sdk')}`,
    };
    expect((await device(stub, pro)).status).toBe(200);
    expect((await device(stub, qa, '/qa')).status).toBe(200);
    expect((await device(stub, pro, '/qa')).status).toBe(401);
    expect((await device(stub, qa)).status).toBe(401);
  });

  test('another account’s subscriber id is 403; another account’s device is 404; no subscriber_id is 400', async () => {
    await using stub = await startStub();
    const bearer = { ...UA, authorization: `Bearer ${await accessToken(stub)}` };
    expect((await device(stub, bearer, '', ROSA, '100002')).body).toMatchObject({
      code: 'forbidden',
      field: 'subscriber_id',
    });
    expect((await device(stub, bearer, '', '350000000000101')).body).toMatchObject({
      code: 'unknown_device',
      field: 'device_id',
    });
    const missing = await request(`${stub.url}/service/api/v1/device/${ROSA}`, { headers: bearer });
    expect(missing.status).toBe(400);
    expect(missing.body.field).toBe('subscriber_id');
  });

  test('device info shows the live badge: online, battery, location, groups, last connection', async () => {
    await using stub = await startStub();
    await using fleet = await startFleet({ stub, devices: [ROSA] });
    await fleet.waitUntilConnected();
    fleet.badge(ROSA).setBattery(64, 'charging');
    fleet.badge(ROSA).moveTo({ lat: 59.33, long: 18.07, accuracy: 4, address: 'Gate B' });
    await expect.poll(() => stub.app.gateway.liveState(ROSA).location?.address).toBe('Gate B');
    const bearer = { ...UA, authorization: `Bearer ${await accessToken(stub)}` };
    const res = await device(stub, bearer);
    expect(res.status).toBe(200);
    // The whole shape: test/http/device-info.test.ts.
    expect(res.body).toMatchObject({
      device_id: ROSA,
      device_name: 'Rosa Lindqvist',
      device_label: 'Rosa Lindqvist',
      device_status: 'online',
      last_connect_timestamp: '2026-01-01T00:00:00.000000Z',
      device_details: {
        location: {
          lat: 59.33,
          long: 18.07,
          address: 'Gate B',
          accuracy: 4,
          timestamp: '2026-01-01T00:00:00.000000',
        },
        device_info: {
          battery_level: 64,
          battery_status: 'charging',
          app_version: 'badge-sim',
          state: 'idle',
        },
      },
      groups: [{ group_id: '5003', name: 'Security' }],
    });
  });
});

describe('POST ibot/workflow/{workflow_id}', () => {
  const invoke = (
    stub: StubHandle,
    headers: Record<string, string>,
    workflow: string,
    query: string,
    body: unknown,
  ) => request(`${stub.url}/ibot/workflow/${workflow}?${query}`, { method: 'POST', headers, body });

  test('invokes an HTTP workflow: 200, recorded, and its text spoken on the user’s badge and the targets', async () => {
    await using stub = await startStub();
    await using fleet = await startFleet({ stub, group: 'Security' });
    await fleet.waitUntilConnected();
    const bearer = { ...UA, authorization: `Bearer ${await accessToken(stub)}` };
    const res = await invoke(
      stub,
      bearer,
      'wf_http_page_security',
      `subscriber_id=100001&user_id=${ROSA}`,
      {
        action: 'invoke',
        action_args: { reason: 'drill' },
        target_device_ids: ['VIRTDESK01'],
      },
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'invoked', invocation_id: expect.stringMatching(/^inv_/) });
    await fleet.settled();
    for (const id of [ROSA, 'VIRTDESK01']) {
      expect(fleet.transcript(id)).toEqual([
        expect.objectContaining({
          kind: 'speech',
          cause: 'workflow',
          text: 'Security to the front desk please',
        }),
      ]);
    }
    const recorded = (await request(`${stub.controlUrl}/workflows/invocations`)).body;
    expect(recorded).toEqual([
      expect.objectContaining({
        invocation_id: res.body.invocation_id,
        environment: 'pro',
        workflow_id: 'wf_http_page_security',
        user_id: ROSA,
        action_args: { reason: 'drill' },
        target_device_ids: ['VIRTDESK01'],
      }),
    ]);
  });

  test.each([
    [
      'an unknown workflow',
      'wf_http_nope',
      `subscriber_id=100001&user_id=${ROSA}`,
      { action: 'invoke' },
      404,
      'unknown_workflow',
      'workflow_id',
    ],
    [
      'a workflow that is not an HTTP one',
      'wf_shift_report',
      `subscriber_id=100001&user_id=${ROSA}`,
      { action: 'invoke' },
      404,
      'not_an_http_workflow',
      'workflow_id',
    ],
    [
      'another account’s workflow',
      'wf_http_dock_call',
      `subscriber_id=100001&user_id=${ROSA}`,
      { action: 'invoke' },
      404,
      'unknown_workflow',
      'workflow_id',
    ],
    [
      'an unknown device',
      'wf_http_page_security',
      'subscriber_id=100001&user_id=999',
      { action: 'invoke' },
      404,
      'unknown_device',
      'user_id',
    ],
    [
      'another account’s device',
      'wf_http_page_security',
      'subscriber_id=100001&user_id=350000000000101',
      { action: 'invoke' },
      404,
      'unknown_device',
      'user_id',
    ],
    [
      'an unknown target',
      'wf_http_page_security',
      `subscriber_id=100001&user_id=${ROSA}`,
      { action: 'invoke', target_device_ids: ['999'] },
      404,
      'unknown_device',
      'target_device_ids[0]',
    ],
    [
      'no user_id',
      'wf_http_page_security',
      'subscriber_id=100001',
      { action: 'invoke' },
      400,
      'invalid_field',
      'user_id',
    ],
    [
      'another action',
      'wf_http_page_security',
      `subscriber_id=100001&user_id=${ROSA}`,
      { action: 'run' },
      400,
      'invalid_field',
      'action',
    ],
    [
      'no body',
      'wf_http_page_security',
      `subscriber_id=100001&user_id=${ROSA}`,
      undefined,
      400,
      'invalid_field',
      'body',
    ],
    [
      'another account',
      'wf_http_dock_call',
      'subscriber_id=100002&user_id=350000000000101',
      { action: 'invoke' },
      403,
      'forbidden',
      'subscriber_id',
    ],
  ])(
    '%s → %i %s (%s); nothing recorded',
    async (_name, workflow, query, body, status, code, field) => {
      await using stub = await startStub();
      const bearer = { ...UA, authorization: `Bearer ${await accessToken(stub)}` };
      const res = await invoke(stub, bearer, workflow, query, body);
      expect(res.status).toBe(status);
      expect(res.body).toMatchObject({ code, field });
      expect(stub.core.invocations).toEqual([]);
      expect(stub.core.engine.transcript(ROSA)).toEqual([]);
    },
  );
});
