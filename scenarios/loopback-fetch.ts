/**
 * The fetch the runner's clients use with a stub in this process (decision SP4): the same HTTP
 * requests on the same sockets, sent through undici's `request` rather than the WHATWG
 * `fetch`, whose Request, Headers, streams and abort signals cost about twice the CPU of the
 * request itself (a scenario makes a few to a few hundred). What goes on the wire is what
 * Node's fetch sends, the default headers included (`accept: *\/*`, `user-agent: node`, …, when
 * the caller gives none), so the stub, its journal among it, sees the same requests; the
 * answer is a `Response`, read whole. No redirects are followed (the stub sends none to its
 * clients) and no request body is streamed: what the clients send is text.
 */
import { type Dispatcher, request } from 'undici';

/** What Node's fetch adds to a request that does not set them. */
const FETCH_DEFAULT_HEADERS: Readonly<Record<string, string>> = {
  accept: '*/*',
  'accept-language': '*',
  'sec-fetch-mode': 'cors',
  'user-agent': 'node',
  'accept-encoding': 'gzip, deflate',
};

/** Statuses whose `Response` carries no body (the WHATWG null body statuses). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

export const loopbackFetch = (async (input, init = {}) => {
  if (init.body !== undefined && init.body !== null && typeof init.body !== 'string')
    throw new TypeError('badge-sim: loopbackFetch sends text bodies only');
  // In fetch's order: the caller's headers, then the defaults it did not set.
  const headers: Record<string, string> = Object.fromEntries(new Headers(init.headers));
  for (const [name, value] of Object.entries(FETCH_DEFAULT_HEADERS)) headers[name] ??= value;
  const answer = await request(String(input), {
    method: (init.method ?? 'GET') as Dispatcher.HttpMethod,
    headers,
    body: init.body ?? undefined,
    signal: init.signal ?? undefined,
  });
  const text = await answer.body.text();
  const answerHeaders = new Headers();
  for (const [name, value] of Object.entries(answer.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) answerHeaders.append(name, one);
  }
  return new Response(NULL_BODY.has(answer.statusCode) ? null : text, {
    status: answer.statusCode,
    headers: answerHeaders,
  });
}) as typeof fetch;
