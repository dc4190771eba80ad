/**
 * The control API under `/_stub`: health, reset, fixtures, the clock, transcripts, taps and
 * tasks. Only tests use it; it is apart from the emulated paths and has no API key. With a
 * control token every route of it but health wants that token in its own header.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { Fixtures } from '../../fixtures/fixtures.schema.ts';
import { FixtureError } from '../../fixtures/load-fixtures.ts';
import { formatTimestamp, isHoldableInstant, MAX_INSTANT } from '../../protocol/clock.ts';
import {
  AWAIT_ADVANCE_MAX_DEFAULT_MS,
  AWAIT_TIMEOUT_DEFAULT_MS,
  AWAIT_TIMEOUT_MAX_MS,
  AwaitedEvent,
  ClockAdvance,
  ClockAdvanced,
  type ClockHeldBy,
  ClockModeChange,
  ClockView,
  CONTROL_PREFIX,
  CONTROL_TOKEN_HEADER,
  ControlDeviceParams,
  DeviceAwaited,
  DeviceAwaitQuery,
  DeviceView,
  type DeviceWant,
  EnvironmentsView,
  EventAwaitQuery,
  GENERATE_MAX_DEVICES,
  GenerateRequest,
  Health,
  Kept,
  RefreshTokenIssued,
  RefreshTokenRequest,
  Revoked,
  RevokeRequest,
  Settled,
  StubSettings,
  TapResult,
  TaskParams,
  TasksQuery,
  TaskView,
  TranscriptEntryView,
  WorkflowInvocation,
} from '../../protocol/control-api.schema.ts';
import { formatDuration, parseDuration } from '../../protocol/duration.ts';
import { holdMessage } from '../../protocol/hold-message.ts';
import { ErrorBody } from '../../protocol/service-api.schema.ts';
import { awaitEvent } from '../await-event.ts';
import { clockView as clockViewOf } from '../clock-view.ts';
import type { ClockHold, DeviceGateway } from '../device-gateway.ts';
import { describeWant, MAX_DEVICE_WAITERS } from '../device-waiters.ts';
import type { EventFilter } from '../engine/event-waiters.ts';
import { memoryGiver } from '../give-back-memory.ts';
import { HttpError } from '../http-errors.ts';
import type { LiveFeed } from '../live-feed.ts';
import { answer, documentRoutes } from '../openapi.ts';
import { tapRecord } from '../recorder.ts';
import type { StubCore } from '../stub-core.ts';
import { faultRoutes } from './faults.routes.ts';
import { journalRoutes } from './journal.routes.ts';
import { liveRoutes } from './live.routes.ts';
import { recordingRoutes } from './recording.routes.ts';
import { parseOldest } from './service-api.routes.ts';

const tags = ['control'];
/** An OpenAPI security requirement that is met without credentials: the token is optional. */
const NO_CREDENTIALS: Record<string, string[]> = {};
const errors = { 400: ErrorBody, 404: ErrorBody };
const holdView = (hold: ClockHold): ClockHeldBy => ({
  device_id: hold.deviceId,
  user: hold.user,
  waited_ms: hold.waitedMs,
  message: holdMessage(hold),
});

export const controlRoutes: FastifyPluginAsyncTypebox<{
  core: StubCore;
  gateway: DeviceGateway;
  feed: LiveFeed;
  /** When given, every route here but `GET /health` wants it in CONTROL_TOKEN_HEADER. */
  controlToken?: string;
}> = async (app, { core, gateway, feed, controlToken }) => {
  if (controlToken !== undefined) app.addHook('onRequest', controlTokenGuard(controlToken));
  // The document is the same for every stub, locked or not: the token is optional in it.
  documentRoutes(app, (route) =>
    route.url === `${CONTROL_PREFIX}/health`
      ? undefined
      : {
          security: [NO_CREDENTIALS, { controlToken: [] }],
          answers: {
            401: answer(
              `The control API of this stub is locked and the ${CONTROL_TOKEN_HEADER} header is missing or wrong.`,
            ),
          },
        },
  );
  const clockView = (): ClockView => clockViewOf(core.clock);
  const memory = memoryGiver();
  app.addHook('onClose', async () => memory.stop());
  const health = () => ({
    status: 'ok' as const,
    clock: clockView(),
    accounts: core.directory.subscribers().length,
    devices: core.directory.devices().length,
  });
  const loadFixtures = (document: unknown) => {
    try {
      return core.loadFixtures(document);
    } catch (error) {
      if (error instanceof FixtureError)
        throw new HttpError(400, 'invalid_fixtures', error.message, error.path);
      throw error;
    }
  };

  app.get(
    '/health',
    { schema: { tags, summary: 'Liveness and clock.', response: { 200: Health } } },
    async () => health(),
  );

  app.get(
    '/kept',
    {
      schema: {
        tags,
        summary:
          'What the stub keeps at most (events, ended tasks, transcript lines, invocations), and what it dropped past a cap since the last reset.',
        response: { 200: Kept },
      },
    },
    async () => core.kept(),
  );

  app.post(
    '/reset',
    {
      schema: {
        tags,
        summary: 'Back to the loaded fixtures: no tasks, events or transcripts.',
        response: { 200: Health },
      },
    },
    async () => {
      core.reset();
      memory.afterReset();
      return health();
    },
  );

  app.get(
    '/fixtures',
    { schema: { tags, summary: 'The loaded fixtures.', response: { 200: Fixtures } } },
    async () => core.fixtures,
  );

  app.put(
    '/fixtures',
    {
      schema: {
        tags,
        summary: 'Load fixtures (and reset).',
        body: Fixtures,
        response: { 200: Health, ...errors },
      },
    },
    async (request) => {
      loadFixtures(request.body);
      return health();
    },
  );

  app.post(
    '/fixtures/generate',
    {
      schema: {
        tags,
        summary: 'Generate fixtures with faker from a seed, load them (and reset).',
        body: GenerateRequest,
        response: { 200: Fixtures, ...errors },
      },
    },
    async (request) => {
      const { accounts = 1, devicesPerAccount = 12 } = request.body;
      if (accounts * devicesPerAccount > GENERATE_MAX_DEVICES) {
        throw new HttpError(
          400,
          'invalid_field',
          `devicesPerAccount × accounts is ${accounts * devicesPerAccount}: at most ${GENERATE_MAX_DEVICES} devices are generated`,
          'devicesPerAccount',
        );
      }
      // faker is large: loaded only when fixtures are generated.
      const { generateFixtures } = await import('../../fixtures/generate-fixtures.ts');
      return loadFixtures(generateFixtures(request.body));
    },
  );

  app.get(
    '/clock',
    { schema: { tags, summary: 'The clock.', response: { 200: ClockView } } },
    async () => clockView(),
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
      return clockView();
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
      let target: number;
      let ms = 0;
      if (by !== undefined) {
        const parsed = parseDuration(by);
        if (parsed === undefined) {
          throw new HttpError(
            400,
            'invalid_field',
            `by '${by}' is not a duration: whole milliseconds, at most 3650 days (try '30s', '5m', '2h', '7d' or milliseconds)`,
            'by',
          );
        }
        ms = parsed;
        target = core.clock.now() + ms;
        if (target > MAX_INSTANT) throw past('by', `'${by}'`);
      } else {
        target = Date.parse(to!);
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
        if (target < core.clock.now()) {
          throw new HttpError(
            400,
            'invalid_field',
            `to '${to}' is before the clock's now (${formatTimestamp(core.clock.now())})`,
            'to',
          );
        }
      }
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
      return { fired, clock: clockView(), held_by: heldBy, unresponsive: gateway.unresponsive() };
    },
  );

  app.get(
    '/settings',
    {
      schema: {
        tags,
        summary:
          'The settings this stub runs with: auth scheme, brand and URN words, unknown fields and client ids, cancel events, body limit, environments and their client ids, HTTP timeouts, badge limits.',
        response: { 200: StubSettings },
      },
    },
    async () => core.settings,
  );

  app.get(
    '/environments',
    {
      schema: {
        tags,
        summary: 'The environments: path prefix and client ids of each (pro is the default).',
        response: { 200: EnvironmentsView },
      },
    },
    async () => core.settings.environments,
  );

  app.get(
    '/workflows/invocations',
    {
      schema: {
        tags,
        summary: 'Every HTTP workflow invoked, oldest first.',
        response: { 200: Type.Array(WorkflowInvocation) },
      },
    },
    async () => core.invocations,
  );

  app.post(
    '/tokens/refresh',
    {
      schema: {
        tags,
        summary:
          'Issue a refresh token for a user of an account in an environment (pro by default).',
        body: RefreshTokenRequest,
        response: { 200: RefreshTokenIssued, ...errors },
      },
    },
    async (request) => {
      const { subscriber_id: subscriberId, environment, user_id: userId, email } = request.body;
      if (!core.directory.hasSubscriber(subscriberId)) {
        throw new HttpError(
          404,
          'unknown_subscriber',
          `no account ${subscriberId}`,
          'subscriber_id',
        );
      }
      return {
        refresh_token: core.tokens.issueRefreshToken(subscriberId, environment ?? 'pro', {
          userId,
          email,
        }),
      };
    },
  );

  app.post(
    '/tokens/revoke',
    {
      schema: {
        tags,
        summary: 'Revoke a refresh token (in the body: a secret does not go in a URL).',
        body: RevokeRequest,
        response: { 200: Revoked, ...errors },
      },
    },
    async (request) => {
      if (!core.tokens.revokeRefreshToken(request.body.refresh_token)) {
        throw new HttpError(404, 'unknown_refresh_token', 'no such refresh token', 'refresh_token');
      }
      return { revoked: true };
    },
  );

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

  const knownDevice = (id: string) => {
    if (!core.directory.device(id))
      throw new HttpError(404, 'unknown_device', `no device '${id}'`, 'device_id');
  };

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
      knownDevice(deviceId);
      const gone = new AbortController();
      const onClose = () => gone.abort();
      reply.raw.on('close', onClose);
      let outcome: Awaited<ReturnType<typeof gateway.deviceWaiters.wait>>;
      try {
        outcome = await gateway.deviceWaiters.wait(deviceId, want, {
          timeoutMs,
          signal: gone.signal,
        });
      } finally {
        reply.raw.off('close', onClose);
      }
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
      knownDevice(request.params.device_id);
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
      const user =
        query.device === undefined ? undefined : core.directory.device(query.device)?.user;
      const filter: EventFilter = {
        type: query.type,
        taskId: query.task,
        subscriberId: query.subscriber_id,
        devices: query.device === undefined ? undefined : [query.device, ...(user ? [user] : [])],
      };
      const gone = new AbortController();
      const onClose = () => gone.abort();
      reply.raw.on('close', onClose);
      let outcome: Awaited<ReturnType<typeof awaitEvent>>;
      try {
        outcome = await awaitEvent(core, filter, {
          oldest: query.oldest === undefined ? undefined : parseOldest(query.oldest),
          timeoutMs,
          advanceTo: advance ? bound : undefined,
          signal: gone.signal,
        });
      } finally {
        reply.raw.off('close', onClose);
      }
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

  await app.register(faultRoutes, { core });
  await app.register(journalRoutes, { core });
  await app.register(recordingRoutes, { core });
  await app.register(liveRoutes, { core, feed });

  app.get(
    '/tasks',
    {
      schema: {
        tags,
        summary: 'Alert tasks with their state.',
        querystring: TasksQuery,
        response: { 200: Type.Array(TaskView) },
      },
    },
    async (request) => core.engine.tasks(request.query.subscriber_id),
  );

  app.get(
    '/tasks/:task_id',
    {
      schema: {
        tags,
        summary: 'One alert task with the state of each device.',
        params: TaskParams,
        response: { 200: TaskView, ...errors },
      },
    },
    async (request) => {
      const task = core.engine.task(request.params.task_id);
      if (!task)
        throw new HttpError(404, 'unknown_task', `no task '${request.params.task_id}'`, 'task_id');
      return task;
    },
  );
};

/**
 * Refuses a request to a locked control API without the right token: 401 naming the header.
 * The hook belongs to this plugin, so it runs for the routes that matched here, however the
 * path was written. Hashes of equal length are compared in constant time; the token is never
 * logged or repeated.
 */
function controlTokenGuard(token: string) {
  const expected = digest(token);
  const header = CONTROL_TOKEN_HEADER.toLowerCase();
  const open = `${CONTROL_PREFIX}/health`;
  return async (request: { routeOptions: { url?: string }; headers: Record<string, unknown> }) => {
    if (request.routeOptions.url === open) return;
    const given = request.headers[header];
    if (typeof given !== 'string' || given === '') {
      throw new HttpError(
        401,
        'missing_control_token',
        `the control API of this stub is locked: send its token in the header ${CONTROL_TOKEN_HEADER} (the stub's --control-token or BADGE_SIM_CONTROL_TOKEN)`,
        header,
      );
    }
    if (!timingSafeEqual(digest(given), expected)) {
      throw new HttpError(
        401,
        'invalid_control_token',
        `the ${CONTROL_TOKEN_HEADER} header is not this stub's control token`,
        header,
      );
    }
  };
}

/** The `timeout` of a long-poll: real time, default 5 s, at most 60 s; else 400 naming it. */
function awaitTimeout(text: string | undefined): number {
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

/** A duration parameter of the query, or its default; 400 naming it when it is not one. */
function durationParameter(text: string | undefined, field: string, fallback: number): number {
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

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
