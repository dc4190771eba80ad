/**
 * `GET /events/await`: the first analytic event that matches, as soon as there is one; with
 * `advance=true` the clock runs to it, up to `advance_max` (await-event.ts).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { formatTimestamp, MAX_INSTANT } from '../../../clock/clock.ts';
import {
  AWAIT_ADVANCE_MAX_DEFAULT_MS,
  AwaitedEvent,
  EventAwaitQuery,
} from '../../../protocol/control-api.schema.ts';
import { formatDuration } from '../../../protocol/duration.ts';
import { ErrorBody } from '../../../protocol/service-api.schema.ts';
import { awaitEvent } from '../../await-event.ts';
import type { EventFilter } from '../../engine/event-waiters.ts';
import { HttpError } from '../../http-errors.ts';
import type { StubCore } from '../../stub-core.ts';
import { parseOldest } from '../service-api.routes.ts';
import { errors, tags } from './control-answers.ts';
import { awaitTimeout, durationParameter, untilClientGoes } from './long-poll.ts';

export const eventsRoutes: FastifyPluginAsyncTypebox<{ core: StubCore }> = async (
  app,
  { core },
) => {
  app.get(
    '/events/await',
    {
      schema: {
        tags,
        summary:
          'Answers with the first analytic event that matches, as soon as there is one; with advance=true the clock runs to it.',
        querystring: EventAwaitQuery,
        response: { 200: AwaitedEvent, ...errors, 408: ErrorBody },
      },
    },
    async (request, reply) => {
      const query = request.query;
      const timeoutMs = awaitTimeout(query.timeout);
      const advance = query.advance === 'true';
      if (!advance && query.advance_max !== undefined) {
        throw new HttpError(400, 'invalid_field', 'advance_max needs advance=true', 'advance_max');
      }
      const advanceMaxMs = durationParameter(
        query.advance_max,
        'advance_max',
        AWAIT_ADVANCE_MAX_DEFAULT_MS,
      );
      const bound = core.clock.now() + advanceMaxMs;
      if (advance && bound > MAX_INSTANT) {
        throw new HttpError(
          400,
          'invalid_field',
          `advance_max '${query.advance_max}' would move the clock past ${formatTimestamp(MAX_INSTANT)}, the last instant it can hold`,
          'advance_max',
        );
      }
      const filter = eventFilterOf(core, query);
      const outcome = await untilClientGoes(reply, (signal) =>
        awaitEvent(core, filter, {
          oldest: query.oldest === undefined ? undefined : parseOldest(query.oldest),
          timeoutMs,
          advanceTo: advance ? bound : undefined,
          signal,
        }),
      );
      if (typeof outcome === 'object') {
        const now = core.clock.now();
        return {
          event: outcome.event,
          subscriber_id: outcome.subscriberId,
          now: formatTimestamp(now),
          now_ms: now,
        };
      }
      if (outcome === 'advance_bound') {
        throw new HttpError(
          408,
          'no_matching_event',
          `no matching event by ${formatTimestamp(core.clock.now())}: the clock moved on by advance_max (${formatDuration(advanceMaxMs)}) and stopped there`,
          'advance_max',
        );
      }
      // Timed out, or the client went away (then nobody reads this answer).
      throw new HttpError(
        408,
        'await_timeout',
        `no matching event within ${formatDuration(timeoutMs)} (real time)`,
        'timeout',
      );
    },
  );
};

/** What an event wait matches; 404 naming the account or task it names that does not exist. */
function eventFilterOf(core: StubCore, query: EventAwaitQuery): EventFilter {
  if (query.subscriber_id !== undefined && !core.directory.hasSubscriber(query.subscriber_id)) {
    throw new HttpError(
      404,
      'unknown_subscriber',
      `no account '${query.subscriber_id}'`,
      'subscriber_id',
    );
  }
  if (query.task !== undefined && !core.engine.task(query.task)) {
    throw new HttpError(404, 'unknown_task', `no task '${query.task}'`, 'task');
  }
  // A device is named by its user (as `content.device` names it) or by its id.
  const user = query.device === undefined ? undefined : core.directory.device(query.device)?.user;
  return {
    type: query.type,
    taskId: query.task,
    subscriberId: query.subscriber_id,
    devices: query.device === undefined ? undefined : [query.device, ...(user ? [user] : [])],
  };
}
