/**
 * The token, workflow-trigger and device-info interface over a real port, in both
 * environments: tokens, the firewall, bearer refusals, invocations a badge hears, device info.
 */
import { describe, expect, test } from 'vitest';
import { DEFAULT_FIXTURES_FILE, loadFixturesFile } from '../../fixtures/load-fixtures.ts';
import { type StubHandle, startStub } from '../../server-stub/start-stub.ts';
import { startFleet } from '../../simulator/fleet.ts';
import { request } from '../support/http.ts';

const PRO_REFRESH = 'demo-refresh-token-riverside-pro-0001';
const QA_REFRESH = 'demo-refresh-token-riverside-qa-0001';
const UA = { 'user-agent': 'badge-sim-tests/1' };
const ROSA = '350000000000005';
/** A fresh copy of the default fixtures, to change. */
const startStubFixtures = () => loadFixturesFile(DEFAULT_FIXTURES_FILE);

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

describe('GET oauth2/validate', () => {
  const validate = (stub: StubHandle, authorization: string | undefined, prefix = '') =>
    request(`${stub.url}${prefix}/oauth2/validate`, {
      headers: authorization === undefined ? {} : { authorization },
    });

  test('answers the user the refresh token was issued to, its email, the client id, the scopes and the whole seconds left, in both environments', async () => {
    await using stub = await startStub();
    const pro = await validate(stub, `Bearer ${await accessToken(stub)}`);
    expect(pro.status).toBe(200);
    expect(pro.body).toEqual({
      client_id: 'badge-sim-pro-sdk',
      userid: 'user-100001',
      email: 'user-100001@badge-sim.test',
      scopes: ['workflow:invoke', 'device:read'],
      expires_in: 7200,
    });
    expect(pro.headers.get('cache-control')).toBe('no-store');
    // A refresh token issued through the control API to a named user, in qa.
    const issued = await request(`${stub.controlUrl}/tokens/refresh`, {
      method: 'POST',
      body: {
        subscriber_id: '100002',
        environment: 'qa',
        user_id: 'kai.t',
        email: 'kai@harbour.example',
      },
    });
    const qaToken = await accessToken(stub, issued.body.refresh_token, '/qa', 'badge-sim-qa-cli');
    const qa = await validate(stub, `bearer ${qaToken}`, '/qa');
    expect(qa.body).toEqual({
      client_id: 'badge-sim-qa-cli',
      userid: 'kai.t',
      email: 'kai@harbour.example',
      scopes: ['workflow:invoke', 'device:read'],
      expires_in: 7200,
    });
  });

  test('a refresh token of the fixtures names its user (user_id, email); without an email it is <user_id>@badge-sim.test', async () => {
    const fixtures = structuredClone(startStubFixtures());
    fixtures.accounts[0]!.refresh_tokens = [
      { token: 'refresh-token-of-ada-0001', user_id: 'ada', email: 'ada@riverside.example' },
      { token: 'refresh-token-of-ben-0002', user_id: 'ben' },
    ];
    await using stub = await startStub({ fixtures });
    const ada = await validate(
      stub,
      `Bearer ${await accessToken(stub, 'refresh-token-of-ada-0001')}`,
    );
    expect(ada.body).toMatchObject({ userid: 'ada', email: 'ada@riverside.example' });
    const ben = await validate(
      stub,
      `Bearer ${await accessToken(stub, 'refresh-token-of-ben-0002')}`,
    );
    expect(ben.body).toMatchObject({ userid: 'ben', email: 'ben@badge-sim.test' });
    const refused = await request(`${stub.controlUrl}/fixtures`, {
      method: 'PUT',
      body: {
        ...fixtures,
        accounts: [
          {
            ...fixtures.accounts[0],
            refresh_tokens: [{ token: 'refresh-token-x-0003', user_id: 'a b' }],
          },
        ],
      },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain('accounts[0].refresh_tokens[0].user_id');
  });

  test('expires_in counts down on the stub’s clock, rounded down: 7199 a second on, 0 in the last millisecond, and at exactly 2 hours the token is expired (401)', async () => {
    await using stub = await startStub();
    const bearer = `Bearer ${await accessToken(stub)}`;
    await stub.core.clock.advanceBy(1);
    expect((await validate(stub, bearer)).body.expires_in).toBe(7199);
    await stub.core.clock.advanceBy(999);
    expect((await validate(stub, bearer)).body.expires_in).toBe(7199);
    await stub.core.clock.advanceBy(2 * 3600 * 1000 - 1000 - 1);
    const last = await validate(stub, bearer);
    expect(last.status).toBe(200);
    expect(last.body.expires_in).toBe(0);
    await stub.core.clock.advanceBy(1);
    const expired = await validate(stub, bearer);
    expect(expired.status).toBe(401);
    expect(expired.body).toMatchObject({ code: 'invalid_token', field: 'authorization' });
    expect(expired.body.message).toContain('expired');
    expect(expired.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
  });

  test.each([
    ['no Authorization header', undefined],
    ['another scheme', 'Basic dXNlcjpwYXNz'],
    ['an unknown token', 'Bearer at_nonsense'],
    ['a built-in name as the token', 'Bearer __proto__'],
    ['another built-in name', 'Bearer valueOf'],
    ['an empty token', 'Bearer '],
  ])(
    '%s → 401 invalid_token with WWW-Authenticate, as on the API host',
    async (_name, authorization) => {
      await using stub = await startStub();
      const res = await validate(stub, authorization);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({
        statusCode: 401,
        error: 'Unauthorized',
        code: 'invalid_token',
        message: expect.any(String),
        field: 'authorization',
      });
      expect(res.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    },
  );

  test('an id_token and another environment’s access token are 401; the auth host wants no User-Agent', async () => {
    await using stub = await startStub();
    const answer = await token(stub, {
      grant_type: 'refresh_token',
      client_id: 'badge-sim-pro-sdk',
      refresh_token: PRO_REFRESH,
    });
    const idToken = await validate(stub, `Bearer ${answer.body.id_token}`);
    expect(idToken.status).toBe(401);
    expect(idToken.body.message).toContain('id_token');
    const otherEnvironment = await validate(stub, `Bearer ${answer.body.access_token}`, '/qa');
    expect(otherEnvironment.status).toBe(401);
    expect(otherEnvironment.body.message).toContain('another environment');
    // fetch sends its own User-Agent when none is given: an empty one stands for "none".
    const noAgent = await request(`${stub.url}/oauth2/validate`, {
      headers: { authorization: `Bearer ${answer.body.access_token}`, 'user-agent': '' },
    });
    expect(noAgent.status).toBe(200);
  });
});

describe('client ids are settings', () => {
  const exchange = (stub: StubHandle, clientId: string, prefix = '', refresh = PRO_REFRESH) =>
    token(
      stub,
      { grant_type: 'refresh_token', client_id: clientId, refresh_token: refresh },
      { prefix },
    );

  test('startStub settings win over the fixtures’ client_ids, which win over the defaults; the ids in effect are shown and the others refused', async () => {
    const fixtures = {
      ...startStubFixtures(),
      client_ids: {
        pro: { cli: 'fixture-pro-cli', sdk: 'fixture-pro-sdk' },
        qa: { sdk: 'fixture-qa-sdk' },
      },
    };
    await using stub = await startStub({
      fixtures,
      settings: { environments: { pro: { sdkClientId: 'original-pro-sdk' } } },
    });
    expect((await exchange(stub, 'original-pro-sdk')).status).toBe(200);
    expect((await exchange(stub, 'fixture-pro-cli')).status).toBe(200);
    expect((await exchange(stub, 'fixture-qa-sdk', '/qa', QA_REFRESH)).status).toBe(200);
    expect((await exchange(stub, 'badge-sim-qa-cli', '/qa', QA_REFRESH)).status).toBe(200);
    for (const [refused, prefix, refresh] of [
      ['fixture-pro-sdk', '', PRO_REFRESH],
      ['badge-sim-pro-sdk', '', PRO_REFRESH],
      ['badge-sim-qa-sdk', '/qa', QA_REFRESH],
    ]) {
      const answer = await exchange(stub, refused!, prefix, refresh);
      expect(answer.status, refused).toBe(401);
      expect(answer.body.error).toBe('invalid_client');
    }
    const environments = {
      pro: { prefix: '', cliClientId: 'fixture-pro-cli', sdkClientId: 'original-pro-sdk' },
      qa: { prefix: '/qa', cliClientId: 'badge-sim-qa-cli', sdkClientId: 'fixture-qa-sdk' },
    };
    expect((await request(`${stub.controlUrl}/environments`)).body).toEqual(environments);
    expect((await request(`${stub.controlUrl}/settings`)).body).toMatchObject({
      environments,
      unknownClientIds: 'refuse',
    });
  });

  test('fixtures loaded through PUT /_stub/fixtures bring their client ids; a client id that cannot be one is refused naming it, and nothing changes', async () => {
    await using stub = await startStub();
    const loaded = await request(`${stub.controlUrl}/fixtures`, {
      method: 'PUT',
      body: { ...startStubFixtures(), client_ids: { pro: { sdk: 'team-sdk' } } },
    });
    expect(loaded.status).toBe(200);
    expect((await exchange(stub, 'team-sdk')).status).toBe(200);
    expect((await exchange(stub, 'badge-sim-pro-sdk')).status).toBe(401);
    for (const [client_ids, field] of [
      [{ pro: { sdk: 'two words' } }, 'client_ids.pro.sdk'],
      [{ pro: { sdk: '' } }, 'client_ids.pro.sdk'],
      [{ staging: { sdk: 'x' } }, 'client_ids'],
      [{ pro: { web: 'x' } }, 'client_ids.pro'],
    ] as const) {
      const refused = await request(`${stub.controlUrl}/fixtures`, {
        method: 'PUT',
        body: { ...startStubFixtures(), client_ids },
      });
      expect(refused.status, JSON.stringify(client_ids)).toBe(400);
      expect(refused.body.message).toContain(field);
      expect((await exchange(stub, 'team-sdk')).status).toBe(200);
    }
  });

  test('unknownClientIds accept takes a client id no environment knows, and still refuses another environment’s; oauth2/validate answers the id the token was asked with', async () => {
    await using stub = await startStub({ settings: { unknownClientIds: 'accept' } });
    const accepted = await exchange(stub, 'id-built-into-a-client');
    expect(accepted.status).toBe(200);
    const validation = await request(`${stub.url}/oauth2/validate`, {
      headers: { authorization: `Bearer ${accepted.body.access_token}` },
    });
    expect(validation.body.client_id).toBe('id-built-into-a-client');
    const otherEnvironment = await exchange(stub, 'badge-sim-qa-sdk');
    expect(otherEnvironment.status).toBe(401);
    expect(otherEnvironment.body).toEqual({
      error: 'invalid_client',
      error_description: 'client_id is a client of the qa environment, not of pro',
    });
    expect((await request(`${stub.controlUrl}/settings`)).body.unknownClientIds).toBe('accept');
  });

  test('startStub refuses a client id that cannot be one, and an environment that does not exist, naming the setting', async () => {
    await expect(
      startStub({ settings: { environments: { qa: { cliClientId: 'has space' } } } }),
    ).rejects.toThrow('settings.environments.qa.cliClientId must be 1 to 128 visible ASCII');
    await expect(
      startStub({ settings: { environments: { staging: {} } as never } }),
    ).rejects.toThrow('settings.environments.staging is not an environment (pro, qa)');
  });
});
