/**
 * Faults on demand over a real port: each action (a status with Retry-After, latency, a reset
 * connection, a stalled body), each "when" (times, a seeded probability, a window on the
 * virtual clock at its boundary instants), matching by method, path and account, state left
 * unchanged by an answered fault, and the control routes that manage them.
 */
import { get } from 'node:http';
import { describe, expect, test } from 'vitest';
import { FAULTS_CAP } from '../../protocol/faults.schema.ts';
import { type StubHandle, startStub } from '../../server-stub/start-stub.ts';
import { controlClient, HARBOUR, request, serviceClient } from '../support/http.ts';

const ALERT = { notification: 'Code blue', groups: ['Nurses'] };
const ALERTS = '/subscribers/*/api/v1/alerts';

function addFault(stub: StubHandle, body: unknown, headers: Record<string, string> = {}) {
  return request(`${stub.controlUrl}/faults`, { method: 'POST', body, headers });
}

async function added(stub: StubHandle, body: unknown): Promise<{ id: string }> {
  const res = await addFault(stub, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

describe('status faults', () => {
  test('a 503 fault answers POST alerts with Retry-After and the error shape, and creates no task and no event', async () => {
    await using stub = await startStub();
    const fault = await added(stub, {
      match: { method: 'POST', path: ALERTS },
      action: { status: 503, retry_after: 7 },
    });
    const api = serviceClient(stub);
    const res = await api.alert(ALERT);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('7');
    expect(res.body).toEqual({
      statusCode: 503,
      error: 'Service Unavailable',
      code: 'fault_injected',
      message: `badge-sim fault ${fault.id} answered 503 Service Unavailable`,
    });
    expect((await controlClient(stub).tasks()).body).toEqual([]);
    expect((await api.events()).body).toEqual([]);
    const listed = await request(`${stub.controlUrl}/faults/${fault.id}`);
    expect(listed.body).toMatchObject({ applied: 1, remaining: null });
  });

  test('the journal shows the body of a request a status fault answered (JSON parsed, other text as text), and the fault', async () => {
    await using stub = await startStub();
    const fault = await added(stub, { match: { path: '**' }, action: { status: 503 } });
    expect((await serviceClient(stub).alert(ALERT)).status).toBe(503);
    const notJson = await request(`${stub.url}/subscribers/100001/api/v1/alerts`, {
      method: 'POST',
      rawBody: '{"notification": "unfinished',
      headers: { 'content-type': 'application/json' },
    });
    expect(notJson.status).toBe(503);
    const { entries } = (await request(`${stub.controlUrl}/journal`)).body as {
      entries: { body: unknown; status: number; fault: { id: string } }[];
    };
    expect(entries.map((e) => [e.body, e.status, e.fault.id])).toEqual([
      [ALERT, 503, fault.id],
      ['{"notification": "unfinished', 503, fault.id],
    ]);
    expect((await controlClient(stub).tasks()).body).toEqual([]);
  });

  test('a 429 without retry_after sends Retry-After: 1; a 500 sends none; a custom body is sent as given', async () => {
    await using stub = await startStub();
    await added(stub, { match: { path: '**/events' }, action: { status: 429 } });
    await added(stub, {
      match: { path: '/subscribers/{id}/api/v1/broadcasts' },
      action: { status: 500, body: { oops: ['custom'] } },
    });
    const api = serviceClient(stub);
    const limited = await api.events();
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
    const failed = await api.broadcast({ notification: 'x' });
    expect(failed.status).toBe(500);
    expect(failed.headers.get('retry-after')).toBeNull();
    expect(failed.body).toEqual({ oops: ['custom'] });
    const listed = await request(`${stub.controlUrl}/faults`);
    expect(listed.body[1].action).toEqual({
      kind: 'status',
      status: 500,
      body: { oops: ['custom'] },
    });
  });

  test('times: the next 2 matching requests get the fault, the third goes through', async () => {
    await using stub = await startStub();
    const fault = await added(stub, {
      match: { path: ALERTS },
      action: { status: 502 },
      when: { times: 2 },
    });
    const api = serviceClient(stub);
    expect((await api.alert(ALERT)).status).toBe(502);
    expect((await api.alert(ALERT)).status).toBe(502);
    expect((await api.alert(ALERT)).status).toBe(200);
    const view = await request(`${stub.controlUrl}/faults/${fault.id}`);
    expect(view.body).toMatchObject({ applied: 2, remaining: 0 });
  });

  test('method and account: a fault on POST for Harbour leaves Riverside and GET alone', async () => {
    await using stub = await startStub();
    await added(stub, {
      match: { method: 'post', path: '**', account: HARBOUR.id },
      action: { status: 503 },
    });
    expect((await serviceClient(stub).alert(ALERT)).status).toBe(200);
    expect((await serviceClient(stub, HARBOUR).events()).status).toBe(200);
    expect((await serviceClient(stub, HARBOUR).alert({ notification: 'x' })).status).toBe(503);
  });

  test('the account of a bearer token matches on the trigger interface, and so does ?subscriber_id', async () => {
    await using stub = await startStub();
    const tokenAnswer = await request(`${stub.url}/oauth2/token`, {
      method: 'POST',
      body: {
        grant_type: 'refresh_token',
        client_id: 'badge-sim-pro-sdk',
        refresh_token: 'demo-refresh-token-riverside-pro-0001',
      },
    });
    expect(tokenAnswer.status).toBe(200);
    const headers = {
      authorization: `Bearer ${tokenAnswer.body.access_token}`,
      'user-agent': 'tests',
    };
    const fault = await added(stub, {
      match: { path: '/service/api/v1/device/*', account: '100001' },
      action: { status: 500 },
    });
    const device = `${stub.url}/service/api/v1/device/350000000000005`;
    // No subscriber_id: the route would refuse it (400), the fault answers first by the token.
    expect((await request(device, { headers })).status).toBe(500);
    expect((await request(`${device}?subscriber_id=100001`, {})).status).toBe(500);
    expect((await request(`${device}?subscriber_id=100002`, {})).status).toBe(401);
    expect((await request(`${stub.controlUrl}/faults/${fault.id}`)).body.applied).toBe(2);
  });

  test('a fault on ** answers a request with a bad key and an unknown path too, never the control API', async () => {
    await using stub = await startStub();
    await added(stub, { match: { path: '**' }, action: { status: 503 } });
    const bad = await request(`${stub.url}/subscribers/100001/api/v1/events`, {
      headers: { authorization: 'ServiceApiKey wrong' },
    });
    expect(bad.status).toBe(503);
    expect((await request(`${stub.url}/no/such/path`)).status).toBe(503);
    expect((await request(`${stub.controlUrl}/health`)).status).toBe(200);
    expect((await request(`${stub.controlUrl}/faults`)).status).toBe(200);
  });

  test('several faults match: the newest applies; removing it lets the older one apply', async () => {
    await using stub = await startStub();
    await added(stub, { match: { path: '**' }, action: { status: 500 } });
    const newer = await added(stub, { match: { path: ALERTS }, action: { status: 429 } });
    const api = serviceClient(stub);
    expect((await api.alert(ALERT)).status).toBe(429);
    const removed = await request(`${stub.controlUrl}/faults/${newer.id}`, { method: 'DELETE' });
    expect(removed.body).toMatchObject({ id: newer.id, applied: 1 });
    expect((await api.alert(ALERT)).status).toBe(500);
  });
});

describe('when', () => {
  test('a window after 10s for 20s applies from +10 s (included) to +30 s (excluded) on the virtual clock', async () => {
    await using stub = await startStub();
    const fault = await added(stub, {
      match: { path: '**/events' },
      action: { status: 503 },
      when: { after: '10s', for: '20s' },
    });
    expect(fault).toMatchObject({
      added_at: '2026-01-01T00:00:00.000000Z',
      active_from: '2026-01-01T00:00:10.000000Z',
      active_until: '2026-01-01T00:00:30.000000Z',
    });
    const api = serviceClient(stub);
    const control = controlClient(stub);
    const statusAt = async (advanceMs: number) => {
      await control.advance(advanceMs);
      return (await api.events()).status;
    };
    expect(await statusAt(9_999)).toBe(200);
    expect(await statusAt(1)).toBe(503);
    expect(await statusAt(19_999)).toBe(503);
    expect(await statusAt(1)).toBe(200);
  });

  test('a seeded probability gives the same pattern on two stubs with the same seed', async () => {
    const pattern = async (seed: number) => {
      await using stub = await startStub({ seed });
      await added(stub, {
        match: { path: '**/events' },
        action: { status: 503 },
        when: { probability: 0.5 },
      });
      const api = serviceClient(stub);
      const statuses: number[] = [];
      for (let i = 0; i < 24; i++) statuses.push((await api.events()).status);
      return statuses;
    };
    const first = await pattern(42);
    expect(await pattern(42)).toEqual(first);
    expect(first).toContain(503);
    expect(first).toContain(200);
    expect(await pattern(43)).not.toEqual(first);
  });

  test('probability 0 never applies, and a miss lets an older fault answer', async () => {
    await using stub = await startStub();
    await added(stub, { match: { path: '**' }, action: { status: 500 } });
    await added(stub, {
      match: { path: '**' },
      action: { status: 503 },
      when: { probability: 0 },
    });
    expect((await serviceClient(stub).events()).status).toBe(500);
  });
});

describe('connection faults', () => {
  test('latency delays the answer by about the given time, then lets the request through', async () => {
    await using stub = await startStub();
    await added(stub, { match: { path: ALERTS }, action: { latency: '300ms' } });
    const started = performance.now();
    const res = await serviceClient(stub).alert(ALERT);
    const elapsed = performance.now() - started;
    expect(res.status).toBe(200);
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(5_000);
    expect((await controlClient(stub).tasks()).body).toHaveLength(1);
  });

  test('reset destroys the connection: the client sees a socket error, and no task is created', async () => {
    await using stub = await startStub();
    await added(stub, { match: { path: ALERTS }, action: { reset: true } });
    const error = await serviceClient(stub)
      .alert(ALERT)
      .then(
        () => undefined,
        (e: Error) => e,
      );
    expect(error).toBeInstanceOf(TypeError);
    expect(String((error?.cause as { code?: string })?.code)).toMatch(/ECONNRESET|UND_ERR_SOCKET/);
    expect((await controlClient(stub).tasks()).body).toEqual([]);
  });

  test('stall: the headers arrive, the body does not within a short timeout; the alert was created (let through)', async () => {
    await using stub = await startStub();
    await added(stub, { match: { path: '**/events' }, action: { stall: '30s' } });
    const outcome = await new Promise<{ status?: number; bytes: number; ended: boolean }>(
      (resolve) => {
        const url = `${serviceClient(stub).base}/events`;
        const req = get(
          url,
          { headers: { authorization: 'ServiceApiKey demo-api-key-riverside-0001' } },
          (res) => {
            let bytes = 0;
            let ended = false;
            res.on('data', (chunk: Buffer) => {
              bytes += chunk.length;
            });
            res.on('end', () => {
              ended = true;
            });
            setTimeout(() => {
              resolve({ status: res.statusCode, bytes, ended });
              req.destroy();
            }, 300);
          },
        );
        req.on('error', () => undefined);
      },
    );
    expect(outcome).toEqual({ status: 200, bytes: 0, ended: false });
  });

  test('closing the stub ends a stall at once: the held body is sent, the close does not wait', async () => {
    const stub = await startStub();
    await added(stub, { match: { path: '**/events' }, action: { stall: '60s' } });
    const answer = fetch(`${serviceClient(stub).base}/events`, {
      headers: { authorization: 'ServiceApiKey demo-api-key-riverside-0001' },
    });
    const response = await answer;
    expect(response.status).toBe(200);
    const started = performance.now();
    await stub.close();
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(await response.json()).toEqual([]);
  });

  test('a stalled POST alerts has created its task: a client that times out and retries makes a second', async () => {
    await using stub = await startStub();
    await added(stub, { match: { path: ALERTS }, action: { stall: '5s' }, when: { times: 1 } });
    const api = serviceClient(stub);
    const first = fetch(`${api.base}/alerts`, {
      method: 'POST',
      headers: {
        authorization: 'ServiceApiKey demo-api-key-riverside-0001',
        'content-type': 'application/json',
      },
      body: JSON.stringify(ALERT),
      signal: AbortSignal.timeout(300),
    }).then((r) => r.text());
    await expect(first).rejects.toThrow();
    expect((await api.alert(ALERT)).status).toBe(200);
    expect((await controlClient(stub).tasks()).body).toHaveLength(2);
  });
});

describe('the control routes', () => {
  test('list, read, remove and clear; reset removes every fault', async () => {
    await using stub = await startStub();
    const one = await added(stub, { match: { path: '**' }, action: { status: 500 } });
    await added(stub, { match: { path: '**' }, action: { latency: '100ms..900ms' } });
    const list = await request(`${stub.controlUrl}/faults`);
    expect(list.body.map((f: { id: string }) => f.id)).toEqual(['flt_1', 'flt_2']);
    expect(list.body[0]).toEqual({
      id: 'flt_1',
      match: { path: '**' },
      action: { kind: 'status', status: 500 },
      when: {},
      added_at: '2026-01-01T00:00:00.000000Z',
      active_from: '2026-01-01T00:00:00.000000Z',
      active_until: null,
      remaining: null,
      applied: 0,
    });
    expect(list.body[1].action).toEqual({ kind: 'latency', latency: '100ms..900ms' });
    expect((await request(`${stub.controlUrl}/faults/${one.id}`)).status).toBe(200);
    for (const id of ['valueOf', '__proto__', 'flt_9']) {
      const missing = await request(`${stub.controlUrl}/faults/${id}`, { method: 'DELETE' });
      expect(missing.status).toBe(404);
      expect(missing.body).toMatchObject({ code: 'unknown_fault', field: 'id' });
      expect((await request(`${stub.controlUrl}/faults/${id}`)).status).toBe(404);
    }
    const cleared = await request(`${stub.controlUrl}/faults`, { method: 'DELETE' });
    expect(cleared.body).toEqual({ removed: 2 });
    await added(stub, { match: { path: '**' }, action: { status: 500 } });
    await controlClient(stub).reset();
    expect((await request(`${stub.controlUrl}/faults`)).body).toEqual([]);
    expect((await serviceClient(stub).events()).status).toBe(200);
  });

  test('ids: a seeded stub starts again at flt_1 after a reset; an unseeded one never reuses an id', async () => {
    await using seeded = await startStub({ seed: 3 });
    await using unseeded = await startStub();
    const body = { match: { path: '**' }, action: { reset: true } };
    for (const stub of [seeded, unseeded]) {
      expect((await added(stub, body)).id).toBe('flt_1');
      await controlClient(stub).reset();
    }
    expect((await added(seeded, body)).id).toBe('flt_1');
    expect((await added(unseeded, body)).id).toBe('flt_2');
  });

  test('a locked control API wants its token for the faults routes', async () => {
    await using stub = await startStub({ controlToken: 'sesame-0123456789' });
    const body = { match: { path: '**' }, action: { status: 500 } };
    expect((await addFault(stub, body)).status).toBe(401);
    expect((await request(`${stub.controlUrl}/faults`)).status).toBe(401);
    const ok = await addFault(stub, body, { 'x-badge-sim-control-token': 'sesame-0123456789' });
    expect(ok.status).toBe(201);
  });

  test(`at most ${FAULTS_CAP} faults: the next is 409 and adds nothing`, async () => {
    await using stub = await startStub();
    for (let i = 0; i < FAULTS_CAP; i++)
      stub.core.faults.add({ match: { path: '/x' }, action: { reset: true } });
    const res = await addFault(stub, { match: { path: '**' }, action: { status: 500 } });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'too_many_faults', field: 'match' });
    expect(stub.core.faults.list()).toHaveLength(FAULTS_CAP);
    expect((await serviceClient(stub).events()).status).toBe(200);
  });

  const ok = { match: { path: '**' }, action: { status: 503 } };
  test.each([
    ['a probability of 1.5', { ...ok, when: { probability: 1.5 } }, 'when.probability'],
    ['a probability as text', { ...ok, when: { probability: 'NaN' } }, 'when.probability'],
    ['a negative times', { ...ok, when: { times: -1 } }, 'when.times'],
    ['times 0', { ...ok, when: { times: 0 } }, 'when.times'],
    ['a status of 200', { ...ok, action: { status: 200 } }, 'action.status'],
    ['a status of 999', { ...ok, action: { status: 999 } }, 'action.status'],
    [
      'a fractional Retry-After',
      { ...ok, action: { status: 503, retry_after: 1.5 } },
      'action.retry_after',
    ],
    [
      'a Retry-After as text',
      { ...ok, action: { status: 503, retry_after: '5' } },
      'action.retry_after',
    ],
    ['a latency over 60 s', { ...ok, action: { latency: '61s' } }, 'action.latency'],
    ['a latency range over 60 s', { ...ok, action: { latency: '1s..2m' } }, 'action.latency'],
    ['a latency range backwards', { ...ok, action: { latency: '900ms..100ms' } }, 'action.latency'],
    ['a stall over 60 s', { ...ok, action: { stall: '2m' } }, 'action.stall'],
    ['an empty path', { ...ok, match: { path: '' } }, 'match.path'],
    ['a huge path', { ...ok, match: { path: `/${'a'.repeat(600)}` } }, 'match.path'],
    ['a refused pattern', { ...ok, match: { path: '/a*b' } }, 'match.path'],
    ['a query in the pattern', { ...ok, match: { path: '/x?y=1' } }, 'match.path'],
    ['no action', { ...ok, action: {} }, 'action'],
    ['two actions', { ...ok, action: { status: 500, reset: true } }, 'action'],
    [
      'retry_after on a latency',
      { ...ok, action: { latency: 5, retry_after: 1 } },
      'action.retry_after',
    ],
    ['an unknown field', { ...ok, action: { status: 500, valueOf: 1 } }, 'action.valueOf'],
    ['a bad window', { ...ok, when: { after: 'soon' } }, 'when.after'],
    ['a method with a space', { ...ok, match: { path: '**', method: 'GE T' } }, 'match.method'],
    ['no match', { action: { status: 500 } }, 'match'],
  ])('%s is 400 naming the field, and adds nothing', async (_name, body, field) => {
    await using stub = await startStub();
    const res = await addFault(stub, body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ statusCode: 400, field });
    expect(stub.core.faults.list()).toEqual([]);
  });
});
