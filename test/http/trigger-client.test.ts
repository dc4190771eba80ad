/**
 * The client's token handling over real HTTP, as the spec's Authentication section says:
 * cache, refresh only on 401, retry once, never loop; each new token validated, as the
 * original's clients do; a User-Agent always; no secrets in errors.
 */
import { describe, expect, test } from 'vitest';
import { StubControlClient } from '../../client/control-client.ts';
import { ServiceError } from '../../client/service-client.ts';
import { TokenError, TriggerClient } from '../../client/trigger-client.ts';
import { type StubHandle, startStub } from '../../server-stub/start-stub.ts';
import { startFleet } from '../../simulator/fleet.ts';
import { request } from '../support/http.ts';

const REFRESH = 'demo-refresh-token-riverside-pro-0001';
const ROSA = '350000000000005';

/** A client whose requests are counted by path. */
function countingClient(stub: StubHandle, refreshToken = REFRESH) {
  const calls: string[] = [];
  const client = new TriggerClient({
    apiHost: stub.url,
    authUrl: stub.url,
    clientId: 'badge-sim-pro-sdk',
    refreshToken,
    subscriberId: '100001',
    fetch: (input, init) => {
      calls.push(`${init?.method ?? 'GET'} ${new URL(String(input)).pathname}`);
      return fetch(input, init);
    },
  });
  return { client, calls };
}

describe('TriggerClient', () => {
  test('gets a token once, caches it, and sends a User-Agent (the firewall would refuse otherwise)', async () => {
    await using stub = await startStub();
    const { client, calls } = countingClient(stub);
    expect((await client.deviceInfo(ROSA)).device_label).toBe('Rosa Lindqvist');
    expect((await client.deviceInfo(ROSA)).groups).toEqual([
      { group_id: '5003', name: 'Security' },
    ]);
    expect(calls).toEqual([
      'POST /oauth2/token',
      'GET /oauth2/validate',
      `GET /service/api/v1/device/${ROSA}`,
      `GET /service/api/v1/device/${ROSA}`,
    ]);
  });

  test('401 → one refresh → one retry → success, when the access token has expired', async () => {
    await using stub = await startStub();
    const { client, calls } = countingClient(stub);
    await client.deviceInfo(ROSA);
    await stub.core.clock.advanceBy(2 * 3600 * 1000);
    calls.length = 0;
    expect((await client.deviceInfo(ROSA)).device_id).toBe(ROSA);
    expect(calls).toEqual([
      `GET /service/api/v1/device/${ROSA}`,
      'POST /oauth2/token',
      'GET /oauth2/validate',
      `GET /service/api/v1/device/${ROSA}`,
    ]);
  });

  test('a refresh that fails gives a clear error and exactly one extra request; no secret in it', async () => {
    await using stub = await startStub();
    const { client, calls } = countingClient(stub);
    await client.deviceInfo(ROSA);
    await request(`${stub.controlUrl}/tokens/revoke`, {
      method: 'POST',
      body: { refresh_token: REFRESH },
    });
    await stub.core.clock.advanceBy(2 * 3600 * 1000);
    calls.length = 0;
    const error = await client.deviceInfo(ROSA).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenError);
    expect((error as TokenError).status).toBe(400);
    expect((error as Error).message).toContain('invalid_grant');
    expect((error as Error).message).not.toContain(REFRESH);
    expect(calls).toEqual([`GET /service/api/v1/device/${ROSA}`, 'POST /oauth2/token']);
  });

  test('a call that still answers 401 after the refresh is not retried again', async () => {
    await using stub = await startStub();
    // The pro refresh token against the qa API host: every token it gets is refused there.
    const calls: string[] = [];
    const client = new TriggerClient({
      apiHost: `${stub.url}/qa`,
      authUrl: stub.url,
      clientId: 'badge-sim-pro-sdk',
      refreshToken: REFRESH,
      subscriberId: '100001',
      fetch: (input, init) => {
        calls.push(new URL(String(input)).pathname);
        return fetch(input, init);
      },
    });
    const error = await client.deviceInfo(ROSA).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).status).toBe(401);
    expect(calls).toEqual([
      '/oauth2/token',
      '/oauth2/validate',
      `/qa/service/api/v1/device/${ROSA}`,
      '/oauth2/token',
      '/oauth2/validate',
      `/qa/service/api/v1/device/${ROSA}`,
    ]);
    expect(JSON.stringify(error)).not.toContain('at_');
  });

  test('validates each new token as the original’s clients do and keeps its user; validate() tells the whole seconds left on the stub’s clock', async () => {
    await using stub = await startStub();
    const refresh = await new StubControlClient(stub.url).issueRefreshToken('100001', 'pro', {
      user_id: 'ada.m',
    });
    const { client, calls } = countingClient(stub, refresh);
    expect(client.userId).toBeUndefined();
    await client.deviceInfo(ROSA);
    expect(client.userId).toBe('ada.m');
    await stub.core.clock.advanceBy(3600 * 1000 + 1);
    calls.length = 0;
    expect(await client.validate()).toEqual({
      client_id: 'badge-sim-pro-sdk',
      userid: 'ada.m',
      email: 'ada.m@badge-sim.test',
      scopes: ['workflow:invoke', 'device:read'],
      expires_in: 3599,
    });
    expect(calls).toEqual(['GET /oauth2/validate']);
    // At its end the token is refused; validate() says so, the next call refreshes.
    await stub.core.clock.advanceBy(3600 * 1000 - 1);
    const expired = await client.validate().catch((e: unknown) => e);
    expect(expired).toBeInstanceOf(TokenError);
    expect((expired as TokenError).status).toBe(401);
    expect((expired as Error).message).toContain('expired');
    await client.deviceInfo(ROSA);
    expect(client.userId).toBe('ada.m');
  });

  test('a new token that oauth2/validate refuses is a TokenError and is not used', async () => {
    await using stub = await startStub();
    const calls: string[] = [];
    const client = new TriggerClient({
      apiHost: stub.url,
      authUrl: stub.url,
      clientId: 'badge-sim-pro-sdk',
      refreshToken: REFRESH,
      subscriberId: '100001',
      // Validation goes to the qa auth host, which refuses a pro token.
      fetch: (input, init) => {
        const url = String(input).replace('/oauth2/validate', '/qa/oauth2/validate');
        calls.push(new URL(url).pathname);
        return fetch(url, init);
      },
    });
    const error = await client.deviceInfo(ROSA).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenError);
    expect((error as TokenError).status).toBe(401);
    expect((error as Error).message).toContain('oauth2/validate refused the new access token');
    expect((error as Error).message).not.toContain('at_');
    expect(client.userId).toBeUndefined();
    expect(calls).toEqual(['/oauth2/token', '/qa/oauth2/validate']);
  });

  test('invokes a workflow that a virtual badge hears', async () => {
    await using stub = await startStub();
    await using fleet = await startFleet({ stub, devices: [ROSA] });
    await fleet.waitUntilConnected();
    const { client } = countingClient(stub);
    const answer = await client.invokeWorkflow('wf_http_page_security', ROSA, {
      action_args: { gate: 'B' },
    });
    expect(answer.status).toBe('invoked');
    await fleet.settled();
    expect(fleet.transcript(ROSA).map((e) => e.text)).toEqual([
      'Security to the front desk please',
    ]);
    const refused = await client.invokeWorkflow('wf_http_nope', ROSA).catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 404, body: { code: 'unknown_workflow' } });
  });
});
