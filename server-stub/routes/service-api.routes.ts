/**
 * The notification and events interface, served exactly as the spec writes it:
 * `/subscribers/{id}/api/v1/…`, `Authorization: ServiceApiKey <API_KEY>`, JSON bodies.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import {
  AlertRequest,
  BroadcastRequest,
  ErrorBody,
  EventList,
  EventsQuery,
  SubscriberParams,
  TaskCreated,
  TaskParams,
} from '../../protocol/service-api.schema.ts';
import { type Micros, parseTimestamp } from '../../protocol/timestamp.ts';
import { HttpError } from '../http-errors.ts';
import { answer, documentRoutes } from '../openapi.ts';
import type { StubCore } from '../stub-core.ts';

const API = '/subscribers/:id/api/v1';
const tags = ['service'];
const errors = {
  400: ErrorBody,
  401: ErrorBody,
  403: ErrorBody,
  404: ErrorBody,
  409: ErrorBody,
  413: ErrorBody,
  415: ErrorBody,
};

export const serviceApiRoutes: FastifyPluginAsyncTypebox<{ core: StubCore }> = async (
  app,
  { core },
) => {
  documentRoutes(app, () => ({
    security: [{ apiKey: [] }],
    answers: {
      401: answer(
        `No \`Authorization: ${core.settings.authScheme} <API_KEY>\` header, another scheme, or an unknown key.`,
      ),
      403: answer('The API key is not of the account in the path (`forbidden`).'),
    },
  }));
  // A callback hook, not an async one: one promise less on every request.
  app.addHook('onRequest', (request, _reply, done) => {
    try {
      authorise(core, request.headers.authorization, (request.params as { id?: string }).id);
      done();
    } catch (error) {
      done(error as Error);
    }
  });

  app.post(
    `${API}/alerts`,
    {
      schema: {
        tags,
        summary: 'Send an alert: played and repeated every 30 s until acknowledged.',
        params: SubscriberParams,
        body: AlertRequest,
        response: { 200: TaskCreated, ...errors },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      const { taskId } = core.engine.createAlert(id, request.body);
      reply.header('location', `/subscribers/${id}/api/v1/alerts/${taskId}`);
      return { task_id: taskId };
    },
  );

  app.delete(
    `${API}/alerts/:task_id`,
    {
      schema: {
        tags,
        summary: 'Cancel an alert on all remaining devices. 204 on success.',
        params: TaskParams,
        response: { 204: Type.Null({ description: 'Cancelled.' }), ...errors },
      },
    },
    async (request, reply) => {
      core.engine.cancelAlert(request.params.id, request.params.task_id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    `${API}/broadcasts`,
    {
      schema: {
        tags,
        summary: 'Send a broadcast: played once, no acknowledgement.',
        params: SubscriberParams,
        body: BroadcastRequest,
        response: { 200: TaskCreated, ...errors },
      },
    },
    async (request) => {
      const { taskId } = core.engine.broadcast(request.params.id, request.body);
      return { task_id: taskId };
    },
  );

  app.get(
    `${API}/events`,
    {
      schema: {
        tags,
        summary: 'Analytic events, oldest first from `oldest`, at most 100.',
        params: SubscriberParams,
        querystring: EventsQuery,
        response: { 200: EventList, ...errors },
      },
    },
    async (request, reply) => {
      const { oldest, limit } = request.query;
      const bytes = core.engine.eventsBytes(request.params.id, {
        oldest: oldest === undefined ? undefined : parseOldest(oldest),
        limit,
      });
      // Each event was serialised once when it was recorded, a window joined and encoded once
      // while it stands: a GET sends those bytes. fastify sends a Buffer as it is; the cast
      // says so to the type provider (it is an EventList).
      return reply.type('application/json; charset=utf-8').send(bytes as never);
    },
  );
};

/**
 * Checks `Authorization: <scheme> <API_KEY>` before anything else, so an unauthorised request
 * learns nothing about the body it sent.
 */
function authorise(core: StubCore, header: string | undefined, subscriberId: string | undefined) {
  const scheme = core.settings.authScheme;
  const challenge = { 'www-authenticate': scheme };
  if (!header) {
    throw new HttpError(
      401,
      'missing_api_key',
      `send the header 'Authorization: ${scheme} <API_KEY>'`,
      'authorization',
      challenge,
    );
  }
  const space = header.indexOf(' ');
  const word = space < 0 ? header : header.slice(0, space);
  const key = space < 0 ? '' : header.slice(space + 1).trim();
  if (word.toLowerCase() !== scheme.toLowerCase() || key === '') {
    throw new HttpError(
      401,
      'invalid_authorization',
      `the Authorization header must be '${scheme} <API_KEY>' (scheme word, one space, key)`,
      'authorization',
      challenge,
    );
  }
  const owner = core.directory.subscriberForKey(key);
  if (owner === undefined) {
    throw new HttpError(
      401,
      'invalid_api_key',
      'the API key is not known to this account service',
      'authorization',
      challenge,
    );
  }
  if (subscriberId !== undefined && owner !== subscriberId) {
    throw new HttpError(
      403,
      'forbidden',
      `this API key does not grant access to subscriber ${subscriberId}`,
      'id',
    );
  }
}

/**
 * `oldest` as whole microseconds (`parseTimestamp`: up to 6 fraction digits exactly, more
 * rounded up): a time without a zone is UTC; `+` decoded to a space is mended.
 */
export function parseOldest(text: string, field = 'oldest'): Micros {
  // A poller sends the same `oldest` until new events come: the last one read is kept.
  if (text === lastOldest.text) return lastOldest.micros;
  let iso = text.trim().replace(/^(\d{4}-\d{2}-\d{2}) /, '$1T');
  iso = iso.replace(/ (\d{2}(:?\d{2})?)$/, '+$1');
  if (/T[\d:.]+$/.test(iso)) iso += 'Z';
  const time = parseTimestamp(iso);
  if (time === undefined) {
    throw new HttpError(
      400,
      'invalid_field',
      `${field} '${text}' is not a valid date or time`,
      field,
    );
  }
  lastOldest = { text, micros: time };
  return time;
}

/** The last text `parseOldest` read as an instant (a valid one is a few dozen characters). */
let lastOldest: { text: string | undefined; micros: Micros } = { text: undefined, micros: 0 };
