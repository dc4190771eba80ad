/**
 * The clock: `GET` and `PUT /clock` (virtual, real or scaled time) and `POST /clock/advance`,
 * which answers with the timers it fired and the badges the clock went on without.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { formatTimestamp, isHoldableInstant, MAX_INSTANT } from '../../../clock/clock.ts';
import { holdMessage } from '../../../clock/hold-message.ts';
import {
  ClockAdvance,
  ClockAdvanced,
  type ClockHeldBy,
  ClockModeChange,
  ClockView,
} from '../../../protocol/control-api.schema.ts';
import { parseDuration } from '../../../protocol/duration.ts';
import type { ClockHold } from '../../clock-holds.ts';
import { clockView } from '../../clock-view.ts';
import type { DeviceGateway } from '../../device-gateway.ts';
import { HttpError } from '../../http-errors.ts';
import type { StubCore } from '../../stub-core.ts';
import { errors, tags } from './control-answers.ts';

const holdView = (hold: ClockHold): ClockHeldBy => ({
  device_id: hold.deviceId,
  user: hold.user,
  waited_ms: hold.waitedMs,
  message: holdMessage(hold),
});

export const clockRoutes: FastifyPluginAsyncTypebox<{
  core: StubCore;
  gateway: DeviceGateway;
}> = async (app, { core, gateway }) => {
  app.get(
    '/clock',
    { schema: { tags, summary: 'The clock.', response: { 200: ClockView } } },
    async () => clockView(core.clock),
  );

  app.put(
    '/clock',
    {
      schema: {
        tags,
        summary: 'Switch between virtual, real and scaled time.',
        body: ClockModeChange,
        response: { 200: ClockView, ...errors },
      },
    },
    async (request) => {
      const { mode, scale } = request.body;
      if (mode === 'scaled' && scale === undefined) {
        throw new HttpError(400, 'invalid_field', 'scale is required for scaled mode', 'scale');
      }
      core.clock.setMode(mode, scale);
      core.clockChanged();
      return clockView(core.clock);
    },
  );

  app.post(
    '/clock/advance',
    {
      schema: {
        tags,
        summary: 'Advance the clock by a duration or to an instant; due timers fire in order.',
        body: ClockAdvance,
        response: { 200: ClockAdvanced, ...errors },
      },
    },
    async (request) => {
      const { by, to } = request.body;
      const { target, ms } = advanceTarget(core.clock.now(), by, to);
      let fired: number;
      // Badges the clock goes on without during this advance, for the answer.
      const heldBy: ClockHeldBy[] = [];
      const stopListening = gateway.onHold((hold) => heldBy.push(holdView(hold)));
      try {
        fired =
          by !== undefined ? await core.clock.advanceBy(ms) : await core.clock.advanceTo(target);
      } catch (error) {
        // Another advance got there first: the clock refuses a target it cannot reach.
        if (error instanceof RangeError)
          throw new HttpError(400, 'invalid_field', error.message, by !== undefined ? 'by' : 'to');
        throw error;
      } finally {
        stopListening();
      }
      core.clockChanged();
      return {
        fired,
        clock: clockView(core.clock),
        held_by: heldBy,
        unresponsive: gateway.unresponsive(),
      };
    },
  );
};

/**
 * Where an advance asked as `by` (a duration) or `to` (an instant) lands, seen from `now`, and
 * by how much; 400 naming the field when it gives both or neither, is not valid, lies in the
 * past or past the last instant the clock can hold.
 */
function advanceTarget(
  now: number,
  by: ClockAdvance['by'],
  to: ClockAdvance['to'],
): { target: number; ms: number } {
  if ((by === undefined) === (to === undefined)) {
    throw new HttpError(
      400,
      'invalid_field',
      "give exactly one of 'by' (a duration) or 'to' (an instant)",
      by === undefined ? 'by' : 'to',
    );
  }
  const past = (field: 'by' | 'to', what: string) =>
    new HttpError(
      400,
      'invalid_field',
      `${field} ${what} would move the clock past ${formatTimestamp(MAX_INSTANT)}, the last instant it can hold`,
      field,
    );
  if (by !== undefined) {
    const ms = parseDuration(by);
    if (ms === undefined) {
      throw new HttpError(
        400,
        'invalid_field',
        `by '${by}' is not a duration: whole milliseconds, at most 3650 days (try '30s', '5m', '2h', '7d' or milliseconds)`,
        'by',
      );
    }
    const target = now + ms;
    if (target > MAX_INSTANT) throw past('by', `'${by}'`);
    return { target, ms };
  }
  const target = Date.parse(to!);
  if (Number.isNaN(target))
    throw new HttpError(400, 'invalid_field', `to '${to}' is not an ISO 8601 instant`, 'to');
  if (!isHoldableInstant(target)) throw past('to', `'${to}'`);
  // Date.parse drops digits past the millisecond; an advance never silently lands
  // earlier than the instant asked for (P5).
  if (/[1-9]/.test(/T[^.]*\.\d{3}(\d+)/.exec(to!)?.[1] ?? '')) {
    throw new HttpError(
      400,
      'invalid_field',
      `to '${to}' has a fraction of a millisecond: the clock advances in whole milliseconds`,
      'to',
    );
  }
  if (target < now) {
    throw new HttpError(
      400,
      'invalid_field',
      `to '${to}' is before the clock's now (${formatTimestamp(now)})`,
      'to',
    );
  }
  return { target, ms: 0 };
}
