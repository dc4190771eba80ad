/** The request journal over a real port: what is recorded, masked, filtered, paged and dropped. */
import { connect } from 'node:net';
import fastify from 'fastify';
import { describe, expect, test } from 'vitest';
import { StubControlClient } from '../../client/control-client.ts';
import { DEFAULT_FIXTURES_FILE, loadFixturesFile } from '../../fixtures/load-fixtures.ts';
import { CONTROL_TOKEN_HEADER } from '../../protocol/control-api.schema.ts';
import type { JournalEntry, JournalPage } from '../../protocol/journal.schema.ts';
import stubApp from '../../server-stub/app.ts';
import { type StubHandle, startStub } from '../../server-stub/start-stub.ts';
import { StubCore } from '../../server-stub/stub-core.ts';
import { HARBOUR, RIVERSIDE, request, serviceClient } from '../support/http.ts';

const REFRESH = 'demo-refresh-token-riverside-pro-0001';

async function journal(stub: StubHandle, query = ''): Promise<JournalPage> {
  const res = await request<JournalPage>(`${stub.controlUrl}/journal${query}`);
  expect(res.status).toBe(200);
  return res.body;
}

/** The journal records on the response's close: a transport guard, at most 2 s of real time. */
async function entriesOnceThere(stub: StubHandle, count: number): Promise<JournalEntry[]> {
  for (let waited = 0; waited < 2_000; waited += 10) {
    const { entries } = await journal(stub);
    if (entries.length >= count) return entries;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return (await journal(stub)).entries;
}

describe('recording', () => {
  test('answers, refusals (400, 401, 404) are journalled with account, status and answer; control requests are not', async () => {
    await using stub = await startStub({ seed: 1 });
    const api = serviceClient(stub);
    const created = await api.alert({ notification: 'Spill', groups: ['Nurses'] });
    await api.alert({ notification: 'x', groups: ['Nurses'], bogus: 1 });
    await request(`${api.base}/alerts`, { method: 'POST', body: { notification: 'x' } });
    await request(`${stub.url}/no/such/path?x=1`, { headers: { 'user-agent': 'probe/1' } });
    await request(`${stub.controlUrl}/health`);
    const entries = await entriesOnceThere(stub, 4);
    expect(entries.map((e) => [e.method, e.path, e.status, e.account])).toEqual([
      ['POST', `/subscribers/${RIVERSIDE.id}/api/v1/alerts`, 200, RIVERSIDE.id],
      ['POST', `/subscribers/${RIVERSIDE.id}/api/v1/alerts`, 400, RIVERSIDE.id],
      ['POST', `/subscribers/${RIVERSIDE.id}/api/v1/alerts`, 401, RIVERSIDE.id],
      ['GET', '/no/such/path', 404, null],
    ]);
    const [ok, invalid, unauthorised, missing] = entries as [
      JournalEntry,
      JournalEntry,
      JournalEntry,
      JournalEntry,
    ];
    expect(ok).toMatchObject({
      id: 1,
      time: '2026-01-01T00:00:00.000000Z',
      query: {},
      headers: {
        'content-type': 'application/json',
        authorization: 'ServiceApiKey ***',
      },
      body: { notification: 'Spill', groups: ['Nurses'] },
      answer: { task_id: created.body.task_id },
      fault: null,
    });
    expect(ok.duration_ms).toBeGreaterThanOrEqual(0);
    expect(JSON.stringify(entries)).not.toContain(RIVERSIDE.key);
    expect(invalid.answer).toMatchObject({ statusCode: 400, field: 'bogus' });
    expect(unauthorised.answer).toMatchObject({ code: 'missing_api_key' });
    // Refused on its headers: the stub never read the body.
    expect(unauthorised.body).toBeNull();
    expect(missing).toMatchObject({ query: { x: '1' }, headers: { 'user-agent': 'probe/1' } });
  });

  test('a token request is journalled with its refresh token, client id kept, and the tokens it answered masked', async () => {
    await using stub = await startStub({ seed: 1 });
    const form = new URLSearchParams({
      grant_type: 'refresh_token',
      client_id: 'badge-sim-pro-sdk',
      refresh_token: REFRESH,
      client_secret: 'hush-hush',
    });
    const res = await fetch(`${stub.url}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
    });
    const issued = (await res.json()) as { access_token: string; id_token: string };
    const validate = await fetch(`${stub.url}/oauth2/validate`, {
      headers: { authorization: `Bearer ${issued.access_token}` },
    });
    expect(validate.status).toBe(200);
    const [token, validation] = await entriesOnceThere(stub, 2);
    expect(token).toMatchObject({
      path: '/oauth2/token',
      account: RIVERSIDE.id,
      body: {
        grant_type: 'refresh_token',
        client_id: 'badge-sim-pro-sdk',
        refresh_token: '***',
        client_secret: '***',
      },
      answer: { access_token: '***', id_token: '***', token_type: 'Bearer', expires_in: 7200 },
    });
    expect(validation).toMatchObject({
      account: RIVERSIDE.id,
      headers: { authorization: 'Bearer ***' },
    });
    const text = JSON.stringify([token, validation]);
    for (const secret of [REFRESH, 'hush-hush', issued.access_token, issued.id_token])
      expect(text).not.toContain(secret);
  });

  test('a body that is not JSON is kept as text, with secret-named values masked', async () => {
    await using stub = await startStub();
    await request(`${serviceClient(stub).base}/alerts`, {
      method: 'POST',
      headers: {
        authorization: `ServiceApiKey ${RIVERSIDE.key}`,
        'content-type': 'application/json',
      },
      rawBody: '{"api_key": "sekrit", "notification": ',
    });
    const [entry] = await entriesOnceThere(stub, 1);
    expect(entry).toMatchObject({ status: 400, body: '{"api_key": "***", "notification": ' });
  });

  test('a request whose client resets the connection mid-body is journalled with status null', async () => {
    await using stub = await startStub();
    const { port } = new URL(stub.url);
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    socket.write(
      `POST /subscribers/${RIVERSIDE.id}/api/v1/alerts HTTP/1.1\r\nHost: x\r\nAuthorization: ServiceApiKey ${RIVERSIDE.key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"notif`,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.destroy();
    const [entry] = await entriesOnceThere(stub, 1);
    expect(entry).toMatchObject({
      method: 'POST',
      path: `/subscribers/${RIVERSIDE.id}/api/v1/alerts`,
      account: RIVERSIDE.id,
      status: null,
      answer: null,
      body: null,
    });
  });

  test("a fault hook added after the journal's is seen: the answer it gave or the connection it reset is journalled with the fault", async () => {
    const core = new StubCore({ fixtures: loadFixturesFile(DEFAULT_FIXTURES_FILE) });
    const app = fastify();
    await app.register(stubApp, { core });
    // What the HTTP faults do (server-stub/applied-fault.ts): mark the request, then answer or reset.
    app.addHook('onRequest', (request, reply, done) => {
      if (request.url === '/unavailable') {
        request.stubFault = { id: 'f1', kind: 'status', letThrough: false };
        reply.code(503).send({ code: 'fault' });
        return;
      }
      if (request.url === '/reset') {
        request.stubFault = { id: 'f2', kind: 'reset', letThrough: false };
        request.raw.socket.destroy();
        return;
      }
      done();
    });
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      expect((await fetch(`${url}/unavailable`)).status).toBe(503);
      await expect(fetch(`${url}/reset`)).rejects.toThrow();
      const waitFor = async () => {
        for (let waited = 0; waited < 2_000 && core.journal.size < 2; waited += 10)
          await new Promise((resolve) => setTimeout(resolve, 10));
        return core.journal.list().entries;
      };
      expect(await waitFor()).toMatchObject([
        {
          path: '/unavailable',
          status: 503,
          answer: { code: 'fault' },
          fault: { id: 'f1', kind: 'status', let_through: false },
        },
        {
          path: '/reset',
          status: null,
          answer: null,
          fault: { id: 'f2', kind: 'reset', let_through: false },
        },
      ]);
    } finally {
      await app.close();
    }
  });

  test('a body or answer longer than 8 KiB of JSON is kept cut there, and marked', async () => {
    await using stub = await startStub();
    const long = 'x'.repeat(10_000);
    await serviceClient(stub).alert({ notification: long, groups: ['Nurses'] });
    const [entry] = await entriesOnceThere(stub, 1);
    expect(entry!.truncated).toEqual(['body']);
    expect(typeof entry!.body).toBe('string');
    expect((entry!.body as string).length).toBe(8 * 1024);
  });
});

describe('filters and paging', () => {
  test('by path pattern, method (any case), account, status and fault', async () => {
    await using stub = await startStub();
    await serviceClient(stub).alert({ notification: 'a', groups: ['Nurses'] });
    await serviceClient(stub, HARBOUR).events();
    await request(`${stub.url}/nowhere`);
    await entriesOnceThere(stub, 3);
    const paths = async (query: string) =>
      (await journal(stub, query)).entries.map((e) => `${e.method} ${e.path}`);
    expect(await paths('?path=/subscribers/*/api/v1/**')).toEqual([
      `POST /subscribers/${RIVERSIDE.id}/api/v1/alerts`,
      `GET /subscribers/${HARBOUR.id}/api/v1/events`,
    ]);
    expect(await paths('?path=**/events')).toEqual([
      `GET /subscribers/${HARBOUR.id}/api/v1/events`,
    ]);
    expect(await paths('?method=post')).toEqual([
      `POST /subscribers/${RIVERSIDE.id}/api/v1/alerts`,
    ]);
    expect(await paths(`?account=${HARBOUR.id}`)).toEqual([
      `GET /subscribers/${HARBOUR.id}/api/v1/events`,
    ]);
    expect(await paths('?status=404')).toEqual(['GET /nowhere']);
    expect(await paths('?fault=true')).toEqual([]);
    expect(await paths('?fault=false')).toHaveLength(3);
    // Built-in names are words like any other: nothing matches them.
    for (const word of ['valueOf', '__proto__', 'constructor']) {
      expect(await paths(`?account=${word}`)).toEqual([]);
      expect(await paths(`?method=${word}`)).toEqual([]);
      expect(await paths(`?path=/${word}`)).toEqual([]);
    }
  });

  test('since takes an instant: an entry at that very instant is listed, one a microsecond later is the first not', async () => {
    await using stub = await startStub();
    const api = serviceClient(stub);
    await api.events();
    await stub.core.clock.advanceBy(1_000);
    await api.events();
    await entriesOnceThere(stub, 2);
    const ids = async (since: string) =>
      (await journal(stub, `?since=${encodeURIComponent(since)}`)).entries.map((e) => e.id);
    expect(await ids('2026-01-01T00:00:01.000000Z')).toEqual([2]);
    expect(await ids('2026-01-01T00:00:00.999999Z')).toEqual([2]);
    expect(await ids('2026-01-01T00:00:01.000001Z')).toEqual([]);
    expect(await ids('2026-01-01T00:00:00Z')).toEqual([1, 2]);
  });

  test('refused filters are 400 naming the field, and change nothing', async () => {
    await using stub = await startStub();
    await serviceClient(stub).events();
    await entriesOnceThere(stub, 1);
    for (const [query, field] of [
      ['?path=/a*b', 'path'],
      ['?path=/a?b', 'path'],
      ['?since=yesterday', 'since'],
      ['?since=2026-02-31T00:00:00Z', 'since'],
      ['?limit=0', 'limit'],
      ['?limit=1001', 'limit'],
      ['?limit=Infinity', 'limit'],
      ['?after=-1', 'after'],
      ['?status=99', 'status'],
      ['?fault=maybe', 'fault'],
      ['?__proto__=1', '__proto__'],
    ] as const) {
      const res = await request(`${stub.controlUrl}/journal${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body, query).toMatchObject({ statusCode: 400, code: 'invalid_field', field });
    }
    // An instant that is not one is told in words, not as the regular expression it failed.
    expect((await request(`${stub.controlUrl}/journal?since=yesterday`)).body).toMatchObject({
      message: 'since must be an ISO 8601 date or date-time, such as 2026-01-01T00:00:00Z',
    });
    expect((await journal(stub)).entries).toHaveLength(1);
  });

  test('pages follow `next` across the cap; the oldest are dropped first and counted', async () => {
    await using stub = await startStub({ settings: { journalLimit: 5 } });
    const api = serviceClient(stub);
    for (let i = 0; i < 8; i++) await api.events(`?limit=${i + 1}`);
    await entriesOnceThere(stub, 5);
    const first = await journal(stub, '?limit=2');
    expect(first.entries.map((e) => e.id)).toEqual([4, 5]);
    expect(first).toMatchObject({ dropped: 3, next: 5 });
    const second = await journal(stub, '?limit=2&after=5');
    expect(second.entries.map((e) => e.id)).toEqual([6, 7]);
    const last = await journal(stub, `?limit=2&after=${second.next}`);
    expect(last.entries.map((e) => e.id)).toEqual([8]);
    expect(last.next).toBeNull();
    const client = new StubControlClient(stub.url);
    expect((await client.allJournal()).map((e) => e.id)).toEqual([4, 5, 6, 7, 8]);
    expect((await client.journal({ limit: 1, after: 6 })).entries.map((e) => e.id)).toEqual([7]);
  });

  test('the cap is the journalLimit setting, shown in GET /_stub/settings; one outside 1 to 100,000 is refused at start', async () => {
    await using stub = await startStub({ settings: { journalLimit: 7 } });
    expect((await request(`${stub.controlUrl}/settings`)).body).toMatchObject({ journalLimit: 7 });
    for (const journalLimit of [0, 100_001, 1.5, Number.POSITIVE_INFINITY])
      await expect(startStub({ settings: { journalLimit } })).rejects.toThrow(
        'badge-sim: settings.journalLimit must be a whole number from 1 to 100000',
      );
  });

  test('DELETE empties the journal and says how many it removed; a reset empties it too; ids go on', async () => {
    await using stub = await startStub();
    const api = serviceClient(stub);
    await api.events();
    await api.events();
    await entriesOnceThere(stub, 2);
    const client = new StubControlClient(stub.url);
    expect(await client.clearJournal()).toEqual({ removed: 2 });
    expect(await journal(stub)).toEqual({ entries: [], dropped: 0, next: null });
    await api.events();
    await entriesOnceThere(stub, 1);
    await client.reset();
    expect((await journal(stub)).entries).toEqual([]);
    await api.events();
    const [entry] = await entriesOnceThere(stub, 1);
    expect(entry!.id).toBe(4);
  });

  test('a locked control API locks the journal', async () => {
    await using stub = await startStub({ controlToken: 'journal-token' });
    expect((await request(`${stub.controlUrl}/journal`)).status).toBe(401);
    expect((await request(`${stub.controlUrl}/journal`, { method: 'DELETE' })).status).toBe(401);
    const open = await request(`${stub.controlUrl}/journal`, {
      headers: { [CONTROL_TOKEN_HEADER]: 'journal-token' },
    });
    expect(open.status).toBe(200);
  });

  test('the OpenAPI document describes both routes, their filters and answers', async () => {
    await using stub = await startStub();
    const doc = (await request<any>(`${stub.controlUrl}/openapi.json`)).body;
    const operations = doc.paths['/_stub/journal'];
    expect(Object.keys(operations).sort()).toEqual(['delete', 'get']);
    expect(operations.get.parameters.map((p: { name: string }) => p.name).sort()).toEqual(
      ['account', 'after', 'fault', 'limit', 'method', 'path', 'since', 'status'].sort(),
    );
    expect(Object.keys(operations.get.responses)).toEqual(
      expect.arrayContaining(['200', '400', '401']),
    );
    expect(operations.delete.responses['200']).toBeDefined();
  });
});
