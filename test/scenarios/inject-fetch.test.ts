/**
 * The runner's fetch for a stub in its own process without a socket (decision SP6): each
 * request gets the answer it gets on the stub's port (status, headers but those of the
 * connection, body) and leaves the same entry in the request journal; while a fault is set,
 * requests go on the port, where a reset is a reset.
 */
import { afterAll, beforeEach, describe, expect, test } from 'vitest';
import { StubControlClient } from '../../client/control-client.ts';
import { injectFetch } from '../../scenarios/runner/inject-fetch.ts';
import { loopbackFetch } from '../../scenarios/runner/loopback-fetch.ts';
import { startStub } from '../../server-stub/start-stub.ts';

const stub = await startStub({ clock: 'virtual', seed: 1 });
afterAll(() => stub.close());
const control = new StubControlClient(stub.url);
beforeEach(() => control.reset());

const KEY = { authorization: 'ServiceApiKey demo-api-key-riverside-0001' };
const API = '/subscribers/100001/api/v1';
const CONNECTION_HEADERS = ['date', 'connection', 'keep-alive'];

/** What a client reads of an answer, and what the journal kept of the request. */
async function exchange(send: typeof fetch, path: string, init?: RequestInit) {
  const response = await send(`${stub.url}${path}`, init);
  const text = await response.text();
  const headers = [...response.headers].filter(([name]) => !CONNECTION_HEADERS.includes(name));
  const { entries } = await control.journal({});
  const entry = entries.at(-1);
  const kept = entry && { ...entry, id: undefined, duration_ms: undefined };
  return { status: response.status, headers, text, kept };
}

const requests: [string, string, RequestInit | undefined][] = [
  [
    'an alert',
    `${API}/alerts`,
    {
      method: 'POST',
      headers: { ...KEY, 'content-type': 'application/json' },
      body: '{"notification":"Code blue","groups":["Nurses"],"quorum":1}',
    },
  ],
  ['the events, with a query', `${API}/events?limit=5`, { headers: KEY }],
  [
    'a body that is not JSON',
    `${API}/alerts`,
    { method: 'POST', headers: { ...KEY, 'content-type': 'application/json' }, body: '{"notif' },
  ],
  ['no credentials', `${API}/events`, undefined],
  ['a path the service does not have', `${API}/nowhere`, { headers: KEY }],
  ['a DELETE of an unknown task', `${API}/alerts/nope`, { method: 'DELETE', headers: KEY }],
  ['a control read', '/_stub/settings', undefined],
];

describe('injectFetch (SP6)', () => {
  test.each(requests)(
    '%s: the same answer and journal entry as on the port',
    async (_, path, init) => {
      const onPort = await exchange(loopbackFetch, path, init);
      await control.reset();
      const injected = await exchange(injectFetch(stub), path, init);
      expect(injected).toEqual(onPort);
      expect(onPort.status).toBeGreaterThan(0);
    },
  );

  test('while a fault is set, a request goes on the port: a reset reaches the client and the journal', async () => {
    await control.addFault({ match: { path: '**/events' }, action: { reset: true } });
    await expect(injectFetch(stub)(`${stub.url}${API}/events`, { headers: KEY })).rejects.toThrow();
    const { entries } = await control.journal({});
    expect(entries.at(-1)).toMatchObject({ path: `${API}/events`, status: null });
    // A path the fault does not match is still answered.
    const answer = await injectFetch(stub)(`${stub.url}${API}/alerts/nope`, {
      method: 'DELETE',
      headers: KEY,
    });
    expect(answer.status).toBe(404);
  });
});
