/**
 * How the runner's clients send to a stub in its own process (decision SP6): through the stub's
 * fastify instance (`inject`), without a socket. The request is the one `loopbackFetch` would
 * put on the wire (the same headers, fetch's defaults among them, and body), and it meets the
 * same hooks, checks, routes, request journal, recording and serializers; the answer is read
 * as a `LoopbackResponse`. What is left out is the socket: its writes and reads and the turns of
 * the event loop between them, most of what a request of a scenario costs on a busy machine.
 *
 * A fault on the emulated APIs acts on the connection (a reset destroys it, a stall holds the
 * answer's body on it), so while the stub has any fault, requests go on its port as before.
 */
import type { StubHandle } from '../../server-stub/start-stub.ts';
import { fetchRequest, LoopbackResponse, loopbackFetch, NULL_BODY } from './loopback-fetch.ts';

export function injectFetch(stub: StubHandle): typeof fetch {
  return (async (input, init = {}) => {
    // A stream (`signal`) is read as it comes, which inject cannot do.
    if (stub.core.faults.size > 0 || init.signal) return loopbackFetch(input, init);
    const { url, method, headers, body } = fetchRequest(input, init);
    const answer = await stub.app.inject({
      method: method as 'GET',
      url: url.pathname + url.search,
      headers,
      ...(body === undefined ? {} : { payload: body }),
    });
    const rawHeaders: string[] = [];
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value === undefined) continue;
      for (const one of Array.isArray(value) ? value : [value]) rawHeaders.push(name, String(one));
    }
    return new LoopbackResponse(
      url.href,
      answer.statusCode,
      rawHeaders,
      NULL_BODY.has(answer.statusCode) ? null : answer.body,
    ) as unknown as Response;
  }) as typeof fetch;
}
