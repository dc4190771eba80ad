/**
 * What the control API's long polls (`/devices/{id}/await`, `/events/await`) read alike: their
 * durations in the query, and the end of a wait when its client goes away.
 */
import type { FastifyReply } from 'fastify';
import {
  AWAIT_TIMEOUT_DEFAULT_MS,
  AWAIT_TIMEOUT_MAX_MS,
} from '../../../protocol/control-api.schema.ts';
import { parseDuration } from '../../../protocol/duration.ts';
import { HttpError } from '../../http-errors.ts';

/** The `timeout` of a long-poll: real time, default 5 s, at most 60 s; else 400 naming it. */
export function awaitTimeout(text: string | undefined): number {
  const timeoutMs = durationParameter(text, 'timeout', AWAIT_TIMEOUT_DEFAULT_MS);
  if (timeoutMs > AWAIT_TIMEOUT_MAX_MS) {
    throw new HttpError(
      400,
      'invalid_field',
      `timeout '${text}' is longer than ${AWAIT_TIMEOUT_MAX_MS / 1000}s, the longest wait`,
      'timeout',
    );
  }
  return timeoutMs;
}

/** A duration parameter of the query, or its default; 400 naming it when it is not one. */
export function durationParameter(
  text: string | undefined,
  field: string,
  fallback: number,
): number {
  if (text === undefined) return fallback;
  const ms = parseDuration(text);
  if (ms === undefined) {
    throw new HttpError(
      400,
      'invalid_field',
      `${field} '${text}' is not a duration: whole milliseconds (try '200ms', '5s', '1h')`,
      field,
    );
  }
  return ms;
}

/** Runs a wait whose signal aborts when the client closes the connection before its answer. */
export async function untilClientGoes<T>(
  reply: FastifyReply,
  wait: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const gone = new AbortController();
  const onClose = () => gone.abort();
  reply.raw.on('close', onClose);
  try {
    return await wait(gone.signal);
  } finally {
    reply.raw.off('close', onClose);
  }
}
