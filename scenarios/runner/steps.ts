/**
 * The timeline's steps: one small handler a step kind, in a table keyed by the step's action
 * (its one action key: `alert`, `tap`, `jump`, …), each with the schema that validates it.
 * A new kind of step is a new row here and a new variant of `Step` in scenario.schema.ts.
 */
import type { TObject } from 'typebox';
import type { StubControlClient } from '../../client/control-client.ts';
import { type ServiceClient, ServiceError } from '../../client/service-client.ts';
import { formatTimestamp } from '../../clock/clock.ts';
import type { FixtureDevice } from '../../fixtures/fixtures.schema.ts';
import { parseDuration } from '../../protocol/duration.ts';
import { ACCESS_TOKEN_LIFETIME_MS } from '../../server-stub/engine/tokens.ts';
import type { TapFate } from '../../simulator/device-faults.ts';
import type { FleetHandle } from '../../simulator/fleet-options.ts';
import type { StubConnection } from '../../stub-connection/stub-connection.ts';
import { ScenarioError, STEP_ACTIONS, type StepAction } from '../format/load-scenario.ts';
import { Step } from '../format/step.schema.ts';
import { writeWorldSnapshot } from './snapshot-step.ts';
import type { StepAnswer, TriggerSteps } from './trigger-steps.ts';

/** What a step may use: the stub, the badges, the clients, and the names given so far. */
export interface StepContext {
  /** The scenario's file, for messages. */
  readonly source: string;
  /** The stub's time when the scenario started. */
  readonly start: number;
  readonly connection: StubConnection;
  /** The stub's control API (made when first asked for: the snapshot step). */
  control(): StubControlClient;
  /** The badges, when the scenario runs any. */
  readonly fleet: FleetHandle | undefined;
  /** The service API as the scenario's account. */
  readonly client: ServiceClient;
  readonly trigger: TriggerSteps;
  /** The stub's brand word (device-info answers carry it). */
  readonly brandWord: string;
  /** Task ids by the `as` of their alert step. */
  readonly taskIds: Map<string, string>;
  /** Invocation ids by the `as` of their workflow step. */
  readonly invocationIds: Map<string, string>;
  /** Fault ids by the `as` of their fault step. */
  readonly faultIds: Map<string, string>;
  /** The Authorization header of a service API step: undefined for the account's key. */
  authHeader(
    auth: 'valid' | 'none' | 'wrong' | 'other-account' | undefined,
  ): string | null | undefined;
  /** A device of the scenario's account, by id or user name. */
  resolve(ref: string, path: string): FixtureDevice;
  /** A device of any account (trigger steps may name another's, to see it refused). */
  resolveAny(ref: string, path: string): FixtureDevice;
  now(): Promise<number>;
  /** Moves the stub (and the badges) on to `time`; nothing if it is already there. */
  advanceTo(time: number): Promise<void>;
}

/** A step of one kind, as the loader typed it. */
type StepOf<A extends StepAction> = Extract<Step, Record<A, unknown>>;

/** Does a step of one kind; the answer of a request step is checked against its `expect`. */
type StepRun<A extends StepAction> = (
  step: StepOf<A>,
  path: string,
  context: StepContext,
) => Promise<StepAnswer | undefined>;

export interface StepHandler {
  /** The JSON Schema of this kind of step (its variant of `Step`). */
  readonly schema: TObject;
  /** Given only steps of its kind: the table is keyed by `actionOf(step)`. */
  readonly run: (step: Step, path: string, context: StepContext) => Promise<StepAnswer | undefined>;
}

/** The variant of `Step` whose action is `action`. */
function schemaOf(action: StepAction): TObject {
  return Step.anyOf.find((variant: { properties: Record<string, unknown> }) =>
    Object.hasOwn(variant.properties, action),
  )!;
}

function handler<A extends StepAction>(action: A, run: StepRun<A>): [StepAction, StepHandler] {
  return [action, { schema: schemaOf(action), run: run as StepHandler['run'] }];
}

/** A device that runs a badge in this scenario, or a ScenarioError naming the step. */
function badgeOf(ref: string, path: string, context: StepContext) {
  const device = context.resolve(ref, path);
  const badge = context.fleet?.badges.find((b) => b.deviceId === device.id);
  return { device, badge };
}

/** Real time the stub has to see a badge's close (a transport bound): the close is local. */
const OFFLINE_SEEN_WITHIN_MS = 2_000;

/** Real time the stub has to hear a badge's state report (a transport bound, DF8). */
const REPORT_SEEN_WITHIN_MS = 2_000;

const jumpBy = async (ms: number, context: StepContext) =>
  context.advanceTo((await context.now()) + ms);

/**
 * A request step's client, retrying as `retry:` says: while the answer's status is one of
 * `on` and retries are left, the clock moves on by its Retry-After (whole seconds; none or
 * unreadable: at once), then the request goes again. The last answer is the step's (HF12).
 */
async function withRetry(
  retry: { times: number; on: number[] } | undefined,
  context: StepContext,
  send: () => Promise<StepAnswer>,
): Promise<StepAnswer> {
  let answer = await send();
  for (let left = retry?.times ?? 0; left > 0 && retry!.on.includes(answer.status); left--) {
    await jumpBy(retryAfterMs(answer.headers?.get('retry-after')), context);
    answer = await send();
  }
  return answer;
}

/** `Retry-After` in whole seconds, as ms (an HTTP date or anything else: 0, retry at once). */
function retryAfterMs(header: string | null | undefined): number {
  return header && /^\d{1,6}$/.test(header.trim()) ? Number(header.trim()) * 1000 : 0;
}

export const STEP_HANDLERS: ReadonlyMap<StepAction, StepHandler> = new Map([
  handler('alert', async (step, _path, context) => {
    const answer = await withRetry(step.retry, context, () =>
      context.client.request('POST', 'alerts', {
        body: step.alert,
        auth: context.authHeader(step.auth),
      }),
    );
    const taskId = (answer.body as { task_id?: string } | undefined)?.task_id;
    if (step.as && taskId) context.taskIds.set(step.as, taskId);
    return answer;
  }),
  handler('broadcast', (step, _path, context) =>
    withRetry(step.retry, context, () =>
      context.client.request('POST', 'broadcasts', {
        body: step.broadcast,
        auth: context.authHeader(step.auth),
      }),
    ),
  ),
  handler('cancel', (step, _path, context) =>
    withRetry(step.retry, context, () =>
      context.client.request(
        'DELETE',
        `alerts/${encodeURIComponent(context.taskIds.get(step.cancel) ?? step.cancel)}`,
        { auth: context.authHeader(step.auth) },
      ),
    ),
  ),
  handler('events', (step, _path, context) => {
    const query = new URLSearchParams();
    if (step.events.oldest !== undefined) {
      const ms = parseDuration(step.events.oldest);
      query.set(
        'oldest',
        ms === undefined ? step.events.oldest : formatTimestamp(context.start + ms),
      );
    }
    if (step.events.limit !== undefined) query.set('limit', String(step.events.limit));
    const text = query.toString();
    return withRetry(step.retry, context, () =>
      context.client.request('GET', `events${text ? `?${text}` : ''}`, {
        auth: context.authHeader(step.auth),
      }),
    );
  }),
  handler('request', (step, _path, context) => {
    const { method, path: apiPath, body, raw_body, content_type } = step.request;
    return withRetry(step.retry, context, () =>
      context.client.request(method, apiPath.replace(/^\/+/, ''), {
        body,
        rawBody: raw_body,
        contentType: content_type,
        auth: context.authHeader(step.auth),
      }),
    );
  }),
  handler('workflow', async (step, path, context) => {
    const { id, user, targets, action_args } = step.workflow;
    const answer = await context.trigger.invokeWorkflow(
      step.environment ?? 'pro',
      step.auth ?? 'valid',
      {
        id,
        userId: context.resolveAny(user, `${path}.workflow.user`).id,
        targets: targets?.map(
          (ref, i) => context.resolveAny(ref, `${path}.workflow.targets[${i}]`).id,
        ),
        actionArgs: action_args,
      },
    );
    const invocationId = (answer.body as { invocation_id?: string } | undefined)?.invocation_id;
    if (step.as && invocationId) context.invocationIds.set(step.as, invocationId);
    return answer;
  }),
  handler('device_info', (step, path, context) =>
    context.trigger.deviceInfo(
      step.environment ?? 'pro',
      step.auth ?? 'valid',
      context.resolveAny(step.device_info, `${path}.device_info`).id,
      context.brandWord,
    ),
  ),
  handler('expire_tokens', async (_step, _path, context) => {
    await jumpBy(ACCESS_TOKEN_LIFETIME_MS, context);
    return undefined;
  }),
  handler('tap', async (step, path, context) => {
    const { device, badge } = badgeOf(step.tap, `${path}.tap`, context);
    const fate = tapFateOf(step);
    // A device without a badge taps through the control API, like pressing it by hand.
    if (badge) badge.tap(undefined, fate);
    else if (fate) throw noBadge(step.tap, path, context, 'a tap that goes wrong on the way');
    else await context.connection.tap(device.id);
    return undefined;
  }),
  handler('drop', async (step, path, context) => {
    const { badge } = badgeOf(step.drop, `${path}.drop`, context);
    if (!badge) throw noBadge(step.drop, path, context);
    badge.drop(parseDuration(step.for)!);
    return undefined;
  }),
  handler('battery', async (step, path, context) => {
    const { device, badge } = badgeOf(step.battery, `${path}.battery`, context);
    if (!badge) throw noBadge(step.battery, path, context);
    badge.setBattery(step.level, step.status);
    if (!badge.online) return undefined;
    // A state report is telemetry the stub does not answer: wait until it has arrived, so
    // that what the next step reads of the device (device info, the control API) shows it.
    const heard = await context.connection.waitForDevice(device.id, {
      online: true,
      battery_level: step.level,
      ...(step.status === undefined ? {} : { battery_status: step.status }),
      timeoutMs: REPORT_SEEN_WITHIN_MS,
    });
    if (!heard) {
      throw new ScenarioError(
        `badge-sim: ${path}: the stub has not heard ${step.battery}'s battery report within ${REPORT_SEEN_WITHIN_MS} ms`,
      );
    }
    return undefined;
  }),
  handler('move', async (step, path, context) => {
    const { badge } = badgeOf(step.move, `${path}.move`, context);
    if (!badge) throw noBadge(step.move, path, context);
    // On the virtual clock the state report goes at once and the clock waits for the stub to
    // handle it, so the next step's device info shows the new place.
    badge.moveTo(step.location);
    return undefined;
  }),
  handler('offline', async (step, path, context) => {
    const { device, badge } = badgeOf(step.offline, `${path}.offline`, context);
    if (!badge) throw noBadge(step.offline, path, context);
    badge.goOffline();
    // The stub learns of a close only when it arrives: wait for that, so that what the
    // next step reads of the device (device info, the control API) is already offline.
    const seen = await context.connection.waitForDevice(device.id, {
      online: false,
      timeoutMs: OFFLINE_SEEN_WITHIN_MS,
    });
    if (!seen) {
      throw new ScenarioError(
        `badge-sim: ${path}: the stub still sees ${step.offline} online after ${OFFLINE_SEEN_WITHIN_MS} ms`,
      );
    }
    return undefined;
  }),
  handler('vanish', async (step, path, context) => {
    const { badge } = badgeOf(step.vanish, `${path}.vanish`, context);
    if (!badge) throw noBadge(step.vanish, path, context);
    // Nothing to wait for: the stub is told nothing (that is the fault).
    badge.vanish();
    return undefined;
  }),
  handler('online', async (step, path, context) => {
    const { badge } = badgeOf(step.online, `${path}.online`, context);
    if (!badge) throw noBadge(step.online, path, context);
    badge.comeBack();
    return undefined;
  }),
  handler('jump', async (step, _path, context) => {
    await jumpBy(parseDuration(step.jump)!, context);
    return undefined;
  }),
  handler('fault', async (step, path, context) => {
    let fault: { id: string };
    try {
      fault = await context.connection.addFault(step.fault);
    } catch (error) {
      throw refused(error, path, 'fault', context);
    }
    if (step.as) context.faultIds.set(step.as, fault.id);
    return undefined;
  }),
  handler('clear_fault', async (step, path, context) => {
    if (step.clear_fault === 'all') {
      await context.connection.clearFaults();
      return undefined;
    }
    const id = context.faultIds.get(step.clear_fault);
    if (id === undefined) {
      throw new ScenarioError(
        `badge-sim: ${context.source}: ${path}.clear_fault: '${step.clear_fault}' names no fault step`,
      );
    }
    await context.connection.removeFault(id);
    return undefined;
  }),
  handler('snapshot', async (step, path, context) => {
    await writeWorldSnapshot(
      step.snapshot,
      { source: context.source, path },
      context.control(),
      context.fleet,
    );
    return undefined;
  }),
]);

// Every action the loader accepts has its handler (checked once, when the module loads).
for (const action of STEP_ACTIONS) {
  if (!STEP_HANDLERS.has(action)) throw new Error(`badge-sim: no handler for step '${action}'`);
}

/** A control call the stub refused, as a ScenarioError that names the step first. */
function refused(error: unknown, path: string, action: string, context: StepContext): Error {
  if (error instanceof ServiceError) {
    const body = error.body as { message?: unknown; field?: unknown } | undefined;
    const field = typeof body?.field === 'string' ? `.${body.field}` : '';
    return new ScenarioError(
      `badge-sim: ${context.source}: ${path}.${action}${field}: ${String(body?.message ?? error.message)}`,
    );
  }
  if (error instanceof ScenarioError) {
    return new ScenarioError(
      `badge-sim: ${context.source}: ${path}.${action}: ${error.message.replace(/^badge-sim: /, '')}`,
    );
  }
  return error as Error;
}

function noBadge(ref: string, path: string, context: StepContext, what?: string): ScenarioError {
  return new ScenarioError(
    `badge-sim: ${context.source}: ${path}: device '${ref}' runs no badge (see badges:)${what ? `: ${what} needs one` : ''}`,
  );
}

/** What a tap step's words make of its button frame; undefined: it goes as usual. */
function tapFateOf(step: StepOf<'tap'>): TapFate | undefined {
  if (step.lost) return { lose: true };
  if (step.delay === undefined && step.duplicate === undefined) return undefined;
  return {
    ...(step.delay === undefined ? {} : { delayMs: parseDuration(step.delay)! }),
    ...(step.duplicate === undefined
      ? {}
      : { copies: step.duplicate, gapMs: parseDuration(step.gap ?? 0)! }),
  };
}
