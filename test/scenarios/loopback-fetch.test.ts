/**
 * The runner's fetch for a stub in its own process (decision SP4): the same requests on the
 * wire as Node's fetch, and the same answers read back.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, expect, test } from 'vitest';
import { loopbackFetch } from '../../scenarios/runner/loopback-fetch.ts';

/** A server that answers with what it received, in the status and headers the path asks. */
const server = createServer(async (request: IncomingMessage, response) => {
  let body = '';
  for await (const chunk of request) body += chunk;
  const { headers, method, url } = request;
  const status = Number(url!.slice(1)) || 200;
  response.setHeader('x-seen', 'yes');
  response.setHeader('retry-after', '3');
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(status === 204 ? undefined : JSON.stringify({ method, url, headers, body }));
});
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
afterAll(() => server.close());

/** What a fetch sends and reads back, without what differs by nature (the connection). */
async function exchange(send: typeof fetch, path: string, init?: RequestInit) {
  const response = await send(`${base}${path}`, init);
  const text = await response.text();
  const headers = Object.fromEntries(
    [...response.headers].filter(([name]) => !['date', 'keep-alive', 'connection'].includes(name)),
  );
  return { status: response.status, ok: response.ok, headers, text };
}

test.each([
  ['a GET with no header of its own', '/200', undefined],
  [
    'a POST with a JSON body, a content type and a user agent',
    '/201',
    {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'badge-sim-client/0.1' },
      body: '{"notification":"Code blue"}',
    },
  ],
  ['a DELETE answered 204, no body', '/204', { method: 'DELETE', headers: { authorization: 'k' } }],
  ['a POST with no body (fetch says its length, 0)', '/202', { method: 'POST' }],
  ['a PATCH with no body', '/200', { method: 'PATCH' }],
  ['a post, lower case, of text with no content type', '/200', { method: 'post', body: 'x' }],
  [
    'a form POST refused 401 with a body',
    '/401',
    {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'a=1',
    },
  ],
])('%s: the same request on the wire and the same answer as fetch', async (_name, path, init) => {
  const sent = await exchange(fetch, path, init);
  expect(await exchange(loopbackFetch, path, init)).toEqual(sent);
  expect(sent.headers['retry-after']).toBe('3');
});

test('the answer reads as a Response does: JSON, once; a stream when asked; no body on a 204', async () => {
  for (const send of [fetch, loopbackFetch]) {
    const answer = await send(`${base}/200`);
    expect(await answer.json()).toMatchObject({ method: 'GET', url: '/200' });
    expect(answer.bodyUsed).toBe(true);
    await expect(answer.text()).rejects.toThrow(TypeError);
    const streamed = await send(`${base}/200`);
    expect(await new Response(streamed.body).text()).toContain('"url":"/200"');
    expect((await send(`${base}/204`, { method: 'DELETE' })).body).toBeNull();
  }
});

test('a method fetch would send in lower case is refused, not sent otherwise', async () => {
  await expect(loopbackFetch(`${base}/200`, { method: 'patch' })).rejects.toThrow('upper case');
});

test('a body that is not text is refused, not sent otherwise than fetch would', async () => {
  await expect(
    loopbackFetch(`${base}/200`, { method: 'POST', body: new Uint8Array([1]) }),
  ).rejects.toThrow('text bodies only');
});
