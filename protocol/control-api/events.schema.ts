/** The control API's events (`/_stub/events/await`): a wait for an analytic event, its answer. */
import Type, { type Static } from 'typebox';
import { MAX_DURATION_TEXT } from '../duration.ts';
import { AnalyticEvent, ISO_8601 } from '../service-api.schema.ts';

/** How long `GET /_stub/events/await` waits in real time by default, and at most (AW3). */
export const AWAIT_TIMEOUT_DEFAULT_MS = 5_000;
export const AWAIT_TIMEOUT_MAX_MS = 60_000;
/** How far `advance=true` moves the clock by default (AW5). */
export const AWAIT_ADVANCE_MAX_DEFAULT_MS = 3_600_000;

export const EventAwaitQuery = Type.Object({
  type: Type.Optional(
    Type.Union(
      [
        Type.Literal('start'),
        Type.Literal('acknowledged'),
        Type.Literal('timed_out'),
        Type.Literal('end'),
      ],
      { description: 'The event type (`content.type`).' },
    ),
  ),
  task: Type.Optional(
    Type.String({ description: 'A task id (`task.id`); an unknown one is 404.' }),
  ),
  device: Type.Optional(
    Type.String({
      description:
        'The acknowledging badge (`content.device`): its user, or its device id. Only `acknowledged` events name one.',
    }),
  ),
  subscriber_id: Type.Optional(
    Type.String({
      description: 'The account of the event; an unknown one is 404. Default: every account.',
    }),
  ),
  oldest: Type.Optional(
    Type.String({
      pattern: ISO_8601,
      description:
        'The oldest event that answers (as in GET events). Default: every retained event, so an event recorded before the wait answers at once.',
    }),
  ),
  timeout: Type.Optional(
    Type.String({
      maxLength: MAX_DURATION_TEXT,
      description: `How long to wait in real time ('200ms', '5s'): at most ${AWAIT_TIMEOUT_MAX_MS / 1000}s; default ${AWAIT_TIMEOUT_DEFAULT_MS / 1000}s. Then 408.`,
    }),
  ),
  advance: Type.Optional(
    Type.Union([Type.Literal('true'), Type.Literal('false')], {
      description:
        'true: when no event matches yet, advance the clock (as POST /_stub/clock/advance) timer by timer up to the first matching event.',
    }),
  ),
  advance_max: Type.Optional(
    Type.String({
      maxLength: MAX_DURATION_TEXT,
      description: `With advance=true: how far the clock may move ('1h'; default ${AWAIT_ADVANCE_MAX_DEFAULT_MS / 3_600_000}h). An event at that very instant answers; none by then is 408.`,
    }),
  ),
});
export type EventAwaitQuery = Static<typeof EventAwaitQuery>;

export const AwaitedEvent = Type.Object({
  event: AnalyticEvent,
  subscriber_id: Type.String({ description: 'The account the event belongs to.' }),
  now: Type.String({ description: "The clock's now when answered." }),
  now_ms: Type.Number(),
});
export type AwaitedEvent = Static<typeof AwaitedEvent>;
