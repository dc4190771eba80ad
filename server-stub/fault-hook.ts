/**
 * Carries out the fault table's decisions (`faults.ts`) on the emulated APIs: every request
 * that is not to the control API asks the table first, before any route's own checks, so a
 * fault answers even a request the route would refuse (HF7). It marks the request with what
 * it did (`request.stubFault`, applied-fault.ts) for the request journal.
 */
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppliedFault } from './applied-fault.ts';
import { accountsOf, emulatedPath } from './emulated-request.ts';
import type { FaultDecision } from './faults.ts';
import { keepRawBody } from './journal-recorder.ts';
import { parseJsonBody } from './json-body.ts';
import type { StubCore } from './stub-core.ts';

/** How long a stalled request's body is held, by request (set before, read at onSend). */
const stalls = new WeakMap<FastifyRequest, number>();

export function registerFaultHook(app: FastifyInstance, core: StubCore): void {
  // Latencies and stalls under way end when the stub closes: a close does not wait 60 s.
  const pending = new Set<() => void>();
  app.addHook('preClose', (done) => {
    for (const end of pending) end();
    done();
  });

  app.addHook('onRequest', (request, reply, done) => {
    if (core.faults.size === 0) return done();
    const path = emulatedPath(request);
    if (path === undefined) return done();
    const decision = core.faults.decide({
      method: request.method,
      path,
      accounts: () => accountsOf(core, request, path),
    });
    if (!decision) return done();
    request.stubFault = applied(decision);
    switch (decision.kind) {
      case 'status':
        // Answered before any handler: nothing is stored. What the client sent is read first
        // (within the body limit), so the journal shows the body of every try (HF15).
        void readBody(request, core.settings.bodyLimit).then(() => {
          reply.code(decision.status).headers(decision.headers).type('application/json');
          reply.send(JSON.stringify(decision.body));
        });
        return;
      case 'reset':
        reply.hijack();
        request.raw.socket.destroy();
        return;
      case 'latency': {
        const timer = setTimeout(() => {
          pending.delete(end);
          done();
        }, decision.ms);
        const end = () => {
          clearTimeout(timer);
          pending.delete(end);
          done();
        };
        pending.add(end);
        return;
      }
      case 'stall':
        stalls.set(request, decision.ms);
        return done();
    }
  });

  app.addHook('onSend', (request, reply, payload, done) => {
    // A stalled answer is a fault applied to this request: without one, no lookup at all.
    if (request.stubFault === undefined) return done(null, payload);
    const ms = stalls.get(request);
    if (ms === undefined || !(typeof payload === 'string' || Buffer.isBuffer(payload)))
      return done(null, payload);
    stalls.delete(request);
    const raw = reply.raw;
    reply.header('content-length', String(Buffer.byteLength(payload)));
    // The stub drops a client that reads nothing for stalledAnswerMs; the stall is not that.
    raw.socket?.setTimeout(ms + core.settings.httpTimeouts.stalledAnswerMs);
    done(null, stalledBody(payload, ms, pending));
    // fastify has set the headers and piped the body: send the headers now, the body later.
    if (!raw.headersSent && !raw.destroyed) raw.flushHeaders();
  });
}

/** A body that sends nothing for `ms`, then all of it; destroyed when the client goes away. */
function stalledBody(payload: string | Buffer, ms: number, pending: Set<() => void>): Readable {
  const release = () => {
    clearTimeout(timer);
    pending.delete(release);
    if (!body.destroyed) {
      body.push(payload);
      body.push(null);
    }
  };
  const body = new Readable({
    read() {},
    destroy(error, callback) {
      clearTimeout(timer);
      pending.delete(release);
      callback(error);
    },
  });
  const timer = setTimeout(release, ms);
  pending.add(release);
  return body;
}

function applied(decision: FaultDecision): AppliedFault {
  const letThrough = decision.kind === 'latency' || decision.kind === 'stall';
  return { id: decision.id, kind: decision.kind, letThrough };
}

/**
 * Reads a request's body for the journal, as the JSON parser would (parsed when it is JSON,
 * else kept as text); gives up at `limit` bytes, on an error or when the client goes away.
 */
function readBody(request: FastifyRequest, limit: number): Promise<void> {
  const raw = request.raw;
  const hasBody =
    raw.headers['transfer-encoding'] !== undefined ||
    Number(raw.headers['content-length'] ?? 0) > 0;
  if (!hasBody || raw.readableEnded) return Promise.resolve();
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (keep: boolean) => {
      raw.off('data', onData).off('end', onEnd).off('error', onFail).off('aborted', onFail);
      if (keep) {
        const text = Buffer.concat(chunks).toString('utf8');
        keepRawBody(request, text);
        try {
          if (text !== '') request.body = parseJsonBody(text);
        } catch {
          // Not JSON (or not JSON the stub takes): the journal shows its text.
        }
      }
      resolve();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) return finish(false);
      chunks.push(chunk);
    };
    const onEnd = () => finish(true);
    const onFail = () => finish(false);
    raw.on('data', onData).on('end', onEnd).on('error', onFail).on('aborted', onFail);
  });
}
