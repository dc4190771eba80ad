/**
 * The badges as the gateway knows them: `POST /settle` (every frame sent has been handled),
 * `GET /devices`, a wait for a device to be as asked, its transcript, and a tap of its button.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { formatTimestamp } from '../../../clock/clock.ts';
import {
  ControlDeviceParams,
  DeviceAwaited,
  DeviceAwaitQuery,
  DeviceView,
  type DeviceWant,
  Settled,
  TapResult,
  TranscriptEntryView,
} from '../../../protocol/control-api.schema.ts';
import { formatDuration } from '../../../protocol/duration.ts';
import { ErrorBody } from '../../../protocol/service-api.schema.ts';
import type { DeviceGateway } from '../../device-gateway.ts';
import { describeWant, MAX_DEVICE_WAITERS } from '../../device-waiters.ts';
import { HttpError } from '../../http-errors.ts';
import { tapRecord } from '../../recorder.ts';
import type { StubCore } from '../../stub-core.ts';
import { errors, tags } from './control-answers.ts';
import { awaitTimeout, untilClientGoes } from './long-poll.ts';

type Options = { core: StubCore; gateway: DeviceGateway };
/** The fastify instance a plugin of this type provider is given. */
type TypeboxApp = Parameters<FastifyPluginAsyncTypebox<Options>>[0];

export const devicesRoutes: FastifyPluginAsyncTypebox<Options> = async (app, options) => {
  // In this order, the order of their paths in the OpenAPI document.
  listRoutes(app, options);
  awaitRoute(app, options);
  transcriptAndTapRoutes(app, options);
};

/** `POST /settle` and `GET /devices`. */
function listRoutes(app: TypeboxApp, { core, gateway }: Options): void {
  app.post(
    '/settle',
    {
      schema: {
        tags,
        summary:
          'Wait until every frame sent to a badge has been handled (at most a few seconds), then answer.',
        response: { 200: Settled },
      },
    },
    async () => ({ waited: await gateway.quiet() }),
  );

  app.get(
    '/devices',
    {
      schema: {
        tags,
        summary: 'Every device of the fixtures.',
        response: { 200: Type.Array(DeviceView) },
      },
    },
    async () =>
      core.directory.devices().map((d) => {
        const live = gateway.liveState(d.id);
        return {
          device_id: d.id,
          user: d.user,
          subscriber_id: d.subscriberId,
          state: live.state,
          responsive: live.responsive,
          unresponsive_since:
            live.unresponsiveSince === null ? null : formatTimestamp(live.unresponsiveSince),
          ...gateway.facts(d.id),
        };
      }),
  );
}

/** 404 naming `device_id` unless the fixtures hold that device. */
function knownDevice(core: StubCore, id: string): void {
  if (!core.directory.device(id))
    throw new HttpError(404, 'unknown_device', `no device '${id}'`, 'device_id');
}

/** `GET /devices/{device_id}/await`: answers when the device is as asked. */
function awaitRoute(app: TypeboxApp, { core, gateway }: Options): void {
  app.get(
    '/devices/:device_id/await',
    {
      schema: {
        tags,
        summary:
          'Answers as soon as the device is as asked (online or offline, a battery level, status or low): at once when it already is, 408 at the timeout.',
        params: ControlDeviceParams,
        querystring: DeviceAwaitQuery,
        response: {
          200: DeviceAwaited,
          ...errors,
          408: ErrorBody,
          409: ErrorBody,
          429: ErrorBody,
        },
      },
    },
    async (request, reply) => {
      const { device_id: deviceId } = request.params;
      const timeoutMs = awaitTimeout(request.query.timeout);
      const want = deviceWantOf(request.query);
      knownDevice(core, deviceId);
      const outcome = await untilClientGoes(reply, (signal) =>
        gateway.deviceWaiters.wait(deviceId, want, { timeoutMs, signal }),
      );
      const asked = describeWant(want);
      if (outcome === 'now') {
        const now = core.clock.now();
        return {
          device_id: deviceId,
          ...gateway.facts(deviceId),
          now: formatTimestamp(now),
          now_ms: now,
        };
      }
      if (outcome === 'too_many') {
        throw new HttpError(
          429,
          'too_many_waiters',
          `${MAX_DEVICE_WAITERS} waits for devices are under way already, the most at once; ask again when one has ended`,
        );
      }
      if (outcome === 'reset' || outcome === 'closing') {
        throw new HttpError(
          409,
          'wait_interrupted',
          outcome === 'reset'
            ? `the stub was reset while waiting for device '${deviceId}' to be ${asked}; ask again`
            : 'the stub is stopping',
        );
      }
      // Timed out, or the client went away (then nobody reads this answer).
      throw new HttpError(
        408,
        'await_timeout',
        `device '${deviceId}' was not ${asked} within ${formatDuration(timeoutMs)} (real time)`,
        'timeout',
      );
    },
  );
}

/** `GET /devices/{device_id}/transcript` and `POST /devices/{device_id}/tap`. */
function transcriptAndTapRoutes(app: TypeboxApp, { core }: Options): void {
  app.get(
    '/devices/:device_id/transcript',
    {
      schema: {
        tags,
        summary: 'Everything played, stopped or spoken on a device, oldest first.',
        params: ControlDeviceParams,
        response: { 200: Type.Array(TranscriptEntryView), ...errors },
      },
    },
    async (request) => {
      knownDevice(core, request.params.device_id);
      return core.engine.transcript(request.params.device_id).map(({ taskId, ...entry }) => ({
        ...entry,
        task_id: taskId,
      }));
    },
  );

  app.post(
    '/devices/:device_id/tap',
    {
      schema: {
        tags,
        summary: 'Tap the talk button of a device: acknowledges the alert it is playing.',
        params: ControlDeviceParams,
        response: { 200: TapResult, ...errors },
      },
    },
    async (request) => {
      const outcome = core.engine.tap(request.params.device_id);
      core.recorder.add('tap', {
        device: request.params.device_id,
        via: 'control',
        ...tapRecord(outcome),
      });
      return 'taskId' in outcome ? { result: outcome.result, task_id: outcome.taskId } : outcome;
    },
  );
}

/** What a device wait asks, as the query gave it; 400 naming `online` when it asks nothing. */
function deviceWantOf(query: DeviceAwaitQuery): DeviceWant {
  const want: DeviceWant = {};
  if (query.online !== undefined) want.online = query.online === 'true';
  if (query.battery_level !== undefined) want.battery_level = query.battery_level;
  if (query.battery_status !== undefined) want.battery_status = query.battery_status;
  if (query.battery_low !== undefined) want.battery_low = query.battery_low === 'true';
  if (Object.keys(want).length === 0) {
    throw new HttpError(
      400,
      'invalid_field',
      'online is required when no battery_level, battery_status or battery_low is given: say what to wait for',
      'online',
    );
  }
  return want;
}
