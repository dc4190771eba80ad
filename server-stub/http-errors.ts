/**
 * The stub's one error shape (`ErrorBody`) and the mapping of every refusal onto it: schema
 * validation, body parsing, engine refusals, auth. A bad request never becomes a 5xx.
 */
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { type ErrorBody, ISO_8601 } from '../protocol/service-api.schema.ts';
import { fieldPath } from '../protocol/validator.ts';
import { EngineError, type EngineErrorCode } from './engine/engine-error.ts';

/** An HTTP refusal raised by a route or hook; the error handler turns it into `ErrorBody`. */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly field?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

const ENGINE_STATUS: Record<EngineErrorCode, number> = {
  unknown_subscriber: 404,
  unknown_group: 400,
  unknown_task: 404,
  task_ended: 409,
  unknown_device: 404,
  invalid_field: 400,
  too_large: 400,
  unknown_workflow: 404,
  not_an_http_workflow: 404,
  wrong_trigger_method: 405,
  too_many_faults: 409,
};

/** fastify's own refusals (body parsing, limits) by code: status, our code, field. */
const FASTIFY_ERRORS = new Map<string, [number, string, string]>([
  ['FST_ERR_CTP_INVALID_MEDIA_TYPE', [415, 'unsupported_media_type', 'content-type']],
  ['FST_ERR_CTP_INVALID_CONTENT_LENGTH', [400, 'invalid_content_length', 'content-length']],
  ['FST_ERR_CTP_BODY_TOO_LARGE', [413, 'body_too_large', 'body']],
  ['FST_ERR_CTP_EMPTY_JSON_BODY', [400, 'invalid_json', 'body']],
  ['FST_ERR_CTP_INVALID_JSON_BODY', [400, 'invalid_json', 'body']],
  ['FST_ERR_BAD_URL', [400, 'bad_url', 'path']],
  // A path parameter over find-my-way's 100 characters.
  ['FST_ERR_MAX_PARAM_LENGTH', [414, 'path_too_long', 'path']],
]);

function errorBody(statusCode: number, code: string, message: string, field?: string): ErrorBody {
  return {
    statusCode,
    error: STATUS_CODES[statusCode] ?? 'Error',
    code,
    message,
    ...(field === undefined ? {} : { field }),
  };
}

/** The error handler of the stub. */
export function handleError(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  if (error instanceof HttpError) {
    reply.headers(error.headers);
    send(reply, error.statusCode, error.code, error.message, error.field);
    return;
  }
  if (error instanceof EngineError) {
    send(reply, ENGINE_STATUS[error.code], error.code, error.message, error.field);
    return;
  }
  if (error.validation) {
    const first = mostTelling(error.validation);
    const part = error.validationContext ?? 'body';
    const field = (first && fieldPath(first)) || undefined;
    let detail = first?.message ?? 'is invalid';
    if (first?.keyword === 'additionalProperties') detail = 'is not a field of this request';
    if (first?.keyword === 'required') detail = 'is required';
    // Every instant of a query (`oldest`, `since`) has this pattern: say what it wants in words.
    if (first?.keyword === 'pattern' && first.params.pattern === ISO_8601) {
      detail = 'must be an ISO 8601 date or date-time, such as 2026-01-01T00:00:00Z';
    }
    const where = field ?? (part === 'body' ? 'body' : part);
    send(reply, 400, 'invalid_field', `${where} ${detail}`, field ?? where);
    return;
  }
  const known = error.code ? FASTIFY_ERRORS.get(error.code) : undefined;
  if (known) {
    send(reply, known[0], known[1], error.message, known[2]);
    return;
  }
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    send(reply, error.statusCode, 'bad_request', error.message, 'request');
    return;
  }
  request.log.error({ err: error }, 'unexpected error');
  send(reply, 500, 'internal', 'badge-sim: unexpected error in the stub (see its log)');
}

type ValidationError = NonNullable<FastifyError['validation']>[number];

/**
 * The error that says most. A field of several types (`by`: a duration text or a number)
 * fails every branch; the first branch's complaint ("must be string") misleads a client that
 * sent a number out of range, so prefer the branch whose type matched, else list the types.
 */
function mostTelling(errors: ValidationError[]): ValidationError | undefined {
  const [first] = errors;
  if (!first) return undefined;
  const path = first.instancePath;
  if (!errors.some((e) => e.keyword === 'anyOf' && e.instancePath === path)) return first;
  const branches = errors.filter((e) => e.instancePath === path && e.keyword !== 'anyOf');
  const matched = branches.find((e) => e.keyword !== 'type');
  if (matched) return matched;
  const types = branches.map((e) => String(e.params.type));
  return { ...first, message: `must be ${[...new Set(types)].join(' or ')}` };
}

export function handleNotFound(request: FastifyRequest, reply: FastifyReply): void {
  send(reply, 404, 'not_found', `no route ${request.method} ${request.url.split('?')[0]}`, 'path');
}

function send(reply: FastifyReply, status: number, code: string, message: string, field?: string) {
  reply
    .code(status)
    .type('application/json')
    .send(errorBody(status, code, message, field));
}

/** What Node refuses before fastify sees a request, by Node's error code: status, code, field. */
const CLIENT_ERRORS = new Map<string, [number, string, string]>([
  ['ERR_HTTP_REQUEST_TIMEOUT', [408, 'request_timeout', 'request']],
  ['HPE_HEADER_OVERFLOW', [431, 'headers_too_large', 'headers']],
]);

/**
 * fastify's `clientErrorHandler`: what Node's HTTP parser refuses (a request that did not
 * arrive in time, headers or a URL over Node's 16 KiB, bytes that are not HTTP/1.1) is
 * answered in the stub's error shape too, naming a field (I19), with `Connection: close`, and
 * only when the socket can still be written to. A reset connection gets nothing.
 */
export function clientErrorHandler(timeouts: { headersMs: number; requestMs: number }) {
  return (error: NodeJS.ErrnoException, socket: Socket): void => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const [status, code, field] = CLIENT_ERRORS.get(error.code ?? '') ?? [
      400,
      'bad_request',
      'request',
    ];
    const message =
      status === 408
        ? `the request did not arrive in time (its headers within ${timeouts.headersMs} ms of connecting, all of it within ${timeouts.requestMs} ms)`
        : status === 431
          ? 'the request line and headers are larger than 16 KiB (a URL or a header too long)'
          : `the request is not valid HTTP/1.1 (${error.code ?? 'unreadable'})`;
    refuseOnSocket(socket, status, code, message, field);
  };
}

/**
 * Answers a refusal straight on a socket no route will serve (a parser error, an upgrade the
 * stub does not make), in the stub's error shape, then closes it; a client that does not read
 * the answer does not keep the socket.
 */
export function refuseOnSocket(
  socket: Duplex,
  status: number,
  code: string,
  message: string,
  field: string,
): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify(errorBody(status, code, message, field));
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
  setTimeout(() => socket.destroy(), 1_000).unref();
}
