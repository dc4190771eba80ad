/**
 * Feeds the request journal from fastify: every request outside the control API (RJ1) is
 * recorded when its response closes, so answers, refusals, 404s and connections reset or
 * aborted before the answer (status null) are all seen, with the fault the faults' hook
 * marked on the request. Registered first in app.ts, so its onRequest hook runs before those
 * of the routes and of faults (a fault hook that answers or resets still leaves the request
 * journalled).
 *
 * A request's path through here keeps references only (the body and answer texts as sent):
 * the journal parses and masks when it is read, and the session recording, when it is on,
 * asks for the entry itself (principle 10).
 */
import type { ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { accountOf, emulatedPath } from './emulated-request.ts';
import type { ReceivedRequest, SentText } from './journal.ts';
import type { RecordPlace } from './recorder.ts';
import type { StubCore } from './stub-core.ts';

/** What the journal notes of a request to the emulated APIs while it is served. */
interface Arrival {
  readonly path: string;
  /** Clock time (ms) when it arrived. */
  readonly arrivedAt: number;
  /** `performance.now()` when it arrived. */
  readonly started: number;
  /** Its place in the session recording, when one is on. */
  readonly place: RecordPlace | undefined;
  /** The body's text, kept by the content-type parser that read it. */
  rawBody: string | undefined;
  answer: SentText | undefined;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set on arrival for a request the journal records (journal-recorder.ts), else null. */
    journalArrival: Arrival | null;
  }
}

/** A content-type parser keeps the text it read: the journal shows the body as sent. */
export function keepRawBody(request: FastifyRequest, text: string): void {
  if (request.journalArrival) request.journalArrival.rawBody = text;
}

export function recordRequests(app: FastifyInstance, core: StubCore): void {
  // Declared, so every request has the field from the start (fastify keeps one object shape).
  app.decorateRequest('journalArrival', null);
  app.addHook('onRequest', (request, reply, done) => {
    const path = emulatedPath(request);
    if (path === undefined) return done();
    const arrival: Arrival = {
      path,
      arrivedAt: core.clock.now(),
      started: performance.now(),
      // Its place in the session recording: before what it causes, though recorded after.
      place: core.recorder.recording ? core.recorder.reserve() : undefined,
      rawBody: undefined,
      answer: undefined,
    };
    request.journalArrival = arrival;
    reply.raw.once('close', () => {
      // An event listener, outside fastify's error handling: a throw here would end the process.
      try {
        const id = core.journal.record(received(core, request, reply.raw, arrival));
        // The session recording keeps the journal's entry, at the place it took on arrival.
        if (arrival.place !== undefined && core.recorder.recording)
          core.recorder.add('request', { request: core.journal.entry(id) }, arrival.place);
      } catch (error) {
        request.log.error({ err: error }, 'badge-sim: the request journal could not record');
      }
    });
    done();
  });
  // An answer sent as bytes again and again (a polled GET events) is decoded once: the same
  // text then lets the journal share what it kept of it (`#lastCut`).
  let lastDecoded: { bytes: Buffer; text: string } | undefined;
  const textOf = (bytes: Buffer): string => {
    if (lastDecoded?.bytes !== bytes) lastDecoded = { bytes, text: bytes.toString() };
    return lastDecoded.text;
  };
  // fastify writes its headers with the answer: the content type is read here, before.
  app.addHook('onSend', (request, reply, payload, done) => {
    const arrival = request.journalArrival;
    if (arrival && (typeof payload === 'string' || Buffer.isBuffer(payload))) {
      const contentType = reply.getHeader('content-type');
      arrival.answer = {
        text: typeof payload === 'string' ? payload : textOf(payload),
        as: typeof contentType === 'string' && contentType.includes('json') ? 'json' : 'text',
      };
    }
    done(null, payload);
  });
}

/** The property light-my-request's responses carry: an answer `inject`ed, not sent. */
const INJECTED_MARK = '_lightMyRequest';

/** What the journal keeps of a request whose response has closed. */
function received(
  core: StubCore,
  request: FastifyRequest,
  response: ServerResponse,
  arrival: Arrival,
): ReceivedRequest {
  // Not finished when closed: the connection was reset or aborted before the answer was sent.
  // A request `inject`ed in this process (SP6) has no connection: its answer is whole once ended.
  // light-my-request (pinned to 6.6.0 for Node 20) marks its responses only by `_lightMyRequest`
  // (6.8 adds `isLightMyRequest`).
  const finished =
    response.writableFinished || (INJECTED_MARK in response && response.writableEnded);
  const status = finished ? response.statusCode : null;
  return {
    arrivedAt: arrival.arrivedAt,
    method: request.method,
    path: arrival.path,
    query: request.query,
    headers: request.headers,
    body: sentBody(request, arrival.rawBody),
    account: accountOf(core, request, arrival.path),
    status,
    answer: status === null ? undefined : arrival.answer,
    durationMs: performance.now() - arrival.started,
    fault: request.stubFault,
  };
}

/** The body as sent, and whether the stub read it as JSON or a form (else it is text). */
function sentBody(request: FastifyRequest, text: string | undefined): SentText | undefined {
  if (text === undefined) return undefined;
  if (request.body === undefined) return { text, as: 'text' };
  const form = request.headers['content-type']?.includes('x-www-form-urlencoded') === true;
  return { text, as: form ? 'form' : 'json' };
}
