/**
 * Feeds the request journal from fastify: every request outside the control API (RJ1) is
 * recorded when its response closes, so answers, refusals, 404s and connections reset or
 * aborted before the answer (status null) are all seen, with the fault the faults' hook
 * marked on the request. Registered first in app.ts, so its onRequest hook runs before those
 * of the routes and of faults (a fault hook that answers or resets still leaves the request
 * journalled).
 */
import type { ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { accountsOf, emulatedPath } from './emulated-request.ts';
import type { ReceivedRequest } from './journal.ts';
import type { StubCore } from './stub-core.ts';

const RAW_BODY = Symbol('journal raw body');
const ANSWER = Symbol('journal answer');
const RECORDED = Symbol('journal records it');

interface Journalled {
  [RECORDED]?: true;
  [RAW_BODY]?: string;
  [ANSWER]?: { text: string; contentType: string | undefined };
}

/** A content-type parser keeps the text it read, for the journal of a body it cannot parse. */
export function keepRawBody(request: FastifyRequest, text: string): void {
  (request as FastifyRequest & Journalled)[RAW_BODY] = text;
}

export function recordRequests(app: FastifyInstance, core: StubCore): void {
  app.addHook('onRequest', (request, reply, done) => {
    const path = emulatedPath(request);
    if (path === undefined) return done();
    const arrivedAt = core.clock.now();
    // Its place in the session recording: before what it causes, though recorded after.
    const place = core.recorder.reserve();
    const started = performance.now();
    (request as FastifyRequest & Journalled)[RECORDED] = true;
    reply.raw.once('close', () => {
      // An event listener, outside fastify's error handling: a throw here would end the process.
      try {
        const entry = core.journal.record(
          received(core, request, reply.raw, path, arrivedAt, started),
        );
        // The session recording keeps the journal's entry, at the place it took on arrival.
        core.recorder.add('request', { request: entry }, place);
      } catch (error) {
        request.log.error({ err: error }, 'badge-sim: the request journal could not record');
      }
    });
    done();
  });
  // fastify writes its headers with the answer: the content type is read here, before.
  app.addHook('onSend', (request, reply, payload, done) => {
    const journalled = request as FastifyRequest & Journalled;
    if (journalled[RECORDED] && (typeof payload === 'string' || Buffer.isBuffer(payload))) {
      const contentType = reply.getHeader('content-type');
      journalled[ANSWER] = {
        text: payload.toString(),
        contentType: typeof contentType === 'string' ? contentType : undefined,
      };
    }
    done(null, payload);
  });
}

/** What the journal keeps of a request whose response has closed. */
function received(
  core: StubCore,
  request: FastifyRequest,
  response: ServerResponse,
  path: string,
  arrivedAt: number,
  started: number,
): ReceivedRequest {
  const journalled = request as FastifyRequest & Journalled;
  // Not finished when closed: the connection was reset or aborted before the answer was sent.
  const status = response.writableFinished ? response.statusCode : null;
  const rawBody = journalled[RAW_BODY];
  return {
    arrivedAt,
    method: request.method,
    path,
    query: request.query,
    headers: request.headers,
    body:
      request.body !== undefined
        ? { parsed: request.body }
        : rawBody !== undefined
          ? { text: rawBody }
          : undefined,
    account: accountsOf(core, request, path)[0] ?? null,
    status,
    answer: status === null ? undefined : journalled[ANSWER],
    durationMs: performance.now() - started,
    fault: request.stubFault,
  };
}
