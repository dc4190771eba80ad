import { Socket } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { clientErrorHandler, handleError } from './http-errors.ts';
import type { HttpTimeouts } from './settings.ts';
import type { PreparedTls } from './tls.ts';

/**
 * The stub's fastify instance, not yet listening: its body limit, its error bodies for what
 * Node's parser refuses, and its transport deadlines (headers, request, keep-alive, a stalled
 * answer, the TLS handshake), with HTTPS only when `tls` is given.
 */
export function stubServer(
  timeouts: HttpTimeouts,
  bodyLimit: number,
  tls: PreparedTls | undefined,
  tlsSetup: typeof import('./tls.ts') | undefined,
): FastifyInstance {
  // Node's HTTP server options; an HTTPS server takes them beside the certificate.
  const serverOptions = {
    headersTimeout: timeouts.headersMs,
    requestTimeout: timeouts.requestMs,
    // Node checks the headers and request deadlines on this interval (30 s by default).
    connectionsCheckingInterval: Math.max(
      10,
      Math.min(1_000, Math.floor(Math.min(timeouts.headersMs, timeouts.requestMs) / 4)),
    ),
  };
  const app = Fastify({
    logger: false,
    bodyLimit,
    // A path fastify cannot decode (`/tasks/%`) is refused with the stub's error body too.
    frameworkErrors: handleError,
    // What Node's parser refuses (408, 431, malformed HTTP) gets the stub's error body too.
    clientErrorHandler: clientErrorHandler(timeouts),
    // A client that sends nothing, or its headers or body a byte at a time, is cut off by the
    // headers and request deadlines; an idle keep-alive connection by keepAliveTimeout. No
    // socket idle timeout (0): it would also cut an answer still being worked on (I9).
    connectionTimeout: 0,
    keepAliveTimeout: timeouts.keepAliveMs,
    requestTimeout: timeouts.requestMs,
    http: serverOptions,
    // A TLS handshake gets the headers' deadline too: a client that stalls in it is cut off.
    ...(tls && {
      https: {
        cert: tls.cert,
        key: tls.key,
        handshakeTimeout: timeouts.headersMs,
        ...serverOptions,
      },
    }),
  }) as FastifyInstance;
  if (tls) tlsSetup!.refusePlainHttp(app.server, timeouts.headersMs);
  // An upgraded WebSocket (a badge) is no longer an HTTP request: no idle timeout applies
  // (Node drops its own on upgrade; this says so and keeps it so).
  app.server.on('upgrade', (_request, socket: Socket) => socket.setTimeout(0));
  // While a handler works, nothing cuts the connection; once its answer is being written, a
  // client that stops reading it gets `stalledAnswerMs` (no progress) and is dropped, so an
  // unread answer is not held in memory for ever. Keep-alive takes over when it is written.
  app.addHook('onRequest', (request, _reply, done) => {
    // A request `inject`ed by a runner in this process (SP6) has no socket to time.
    if (request.raw.socket instanceof Socket) request.raw.socket.setTimeout(0);
    done();
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (reply.raw.socket instanceof Socket) reply.raw.socket.setTimeout(timeouts.stalledAnswerMs);
    done(null, payload);
  });
  return app;
}
