/**
 * Runs one scenario and reports what happened against what it expects.
 *
 * - embedded (default): a stub and the badges in this process on one virtual clock: fast and
 *   deterministic;
 * - external: drives a running stub (a container) through its control API and its clock;
 * - realtime: an embedded stub on the wall clock, for demos and soak runs.
 *
 * Every mode talks to the stub over real HTTP and WebSocket; only the clock differs.
 */

import { StubControlClient } from '../client/control-client.ts';
import { ServiceClient } from '../client/service-client.ts';
import type { Fixtures } from '../fixtures/fixtures.schema.ts';
import { generateFixtures } from '../fixtures/generate-fixtures.ts';
import { DEFAULT_FIXTURES_FILE, loadFixturesFile } from '../fixtures/load-fixtures.ts';
import { formatTimestamp } from '../protocol/clock.ts';
import { parseDuration } from '../protocol/duration.ts';
import { hasOwn } from '../protocol/own.ts';
import type { AnalyticEvent } from '../protocol/service-api.schema.ts';
import { ACCESS_TOKEN_LIFETIME_MS } from '../server-stub/engine/tokens.ts';
import { startStub } from '../server-stub/start-stub.ts';
import type { WorkflowInvocation } from '../server-stub/stub-core.ts';
import { type FleetHandle, startFleet } from '../simulator/fleet.ts';
import { HttpStubConnection } from '../simulator/http-stub-connection.ts';
import { InProcessStubConnection } from '../simulator/in-process-stub-connection.ts';
import type { StubConnection } from '../simulator/stub-connection.ts';
import {
  type Actual,
  type ActualEvent,
  type ActualHeard,
  checkEvents,
  checkHeard,
  checkInvocations,
  checkResponse,
  type Failure,
} from './expectations.ts';
import { actionOf, type LoadedScenario, ScenarioError } from './load-scenario.ts';
import type { Scenario, Step } from './scenario.schema.ts';
import { type StepAnswer, TriggerSteps } from './trigger-steps.ts';

export type RunMode = 'embedded' | 'external' | 'realtime';

export interface RunOptions {
  mode?: RunMode;
  /** The stub's base URL, for external mode. */
  stubUrl?: string;
  /** The control token of the external stub, if its control API is locked. */
  controlToken?: string;
  /** Seed when the scenario gives none (default 0). */
  seed?: number;
}

/** The outcome of one scenario. Deterministic for a seed: no wall-clock time in it. */
export interface ScenarioReport {
  name: string;
  source: string;
  proves: string;
  passed: boolean;
  seed: number;
  mode: RunMode;
  failures: Failure[];
  /** What happened, for the JSON report: events as the service returned them, and transcripts. */
  actual: {
    events: AnalyticEvent[];
    heard: Record<string, ActualHeard[]>;
    states: Record<string, string>;
    tasks: Record<string, string>;
    invocations: WorkflowInvocation[];
    token_requests: number;
  };
  /** The command that runs this scenario again. */
  rerun: string;
  /**
   * What the run noticed that is not a failure of the scenario: a badge that did not answer
   * the stub within the bound, so the clock went on without it. Said once each.
   */
  notes?: string[];
}

/** The tolerance of `at` when a scenario gives none: exact on the virtual clock. */
const DEFAULT_TOLERANCE_MS: Record<RunMode, number> = { embedded: 0, external: 0, realtime: 2_000 };

export async function runScenario(
  loaded: LoadedScenario,
  options: RunOptions = {},
): Promise<ScenarioReport> {
  const { scenario, source } = loaded;
  const mode = options.mode ?? 'embedded';
  const seed = scenario.seed ?? options.seed ?? 0;
  const fixtures = resolveFixtures(scenario);
  const account = scenario.account
    ? fixtures.accounts.find((a) => a.subscriber_id === scenario.account)
    : fixtures.accounts[0];
  if (!account)
    throw new ScenarioError(
      `badge-sim: ${source}: account ${scenario.account} is not in the fixtures`,
    );
  const other = fixtures.accounts.find((a) => a !== account);
  const devices = new Map(account.devices.map((d) => [d.id, d]));
  const resolve = (ref: string, path: string) => {
    const device = devices.get(ref) ?? account.devices.find((d) => d.user === ref);
    if (!device)
      throw new ScenarioError(
        `badge-sim: ${source}: ${path}: no device '${ref}' in account ${account.subscriber_id}`,
      );
    return device;
  };

  // Trigger steps may name another account's device, to see it refused.
  const resolveAny = (ref: string, path: string) =>
    devices.get(ref) ??
    account.devices.find((d) => d.user === ref) ??
    fixtures.accounts.flatMap((a) => a.devices).find((d) => d.id === ref || d.user === ref) ??
    resolve(ref, path);

  // The stub.
  let connection: StubConnection;
  if (mode === 'external') {
    if (!options.stubUrl)
      throw new ScenarioError('badge-sim: external mode needs the stub URL (--stub URL)');
    const stubUrl = options.stubUrl.replace(/\/+$/, '');
    connection = new HttpStubConnection(
      stubUrl,
      new ScenarioStubControl(stubUrl, options.controlToken),
    );
    await connection.prepare(fixtures);
  } else {
    const stub = await startStub({
      fixtures,
      seed,
      clock: mode === 'realtime' ? 'real' : 'virtual',
    });
    connection = new InProcessStubConnection(stub, {
      control: () => new ScenarioStubControl(stub.url),
      ownsStub: true,
    });
  }
  const stubUrl = connection.url;

  let fleet: FleetHandle | undefined;
  const notes = new Set<string>();
  const stopHolds = connection.onHold((message) => notes.add(message));
  try {
    const start = await connection.now();
    // The badges: a group, a list, or every device of the account.
    const selection = scenario.badges;
    const badgeIds =
      selection === 'none'
        ? []
        : selection?.devices
          ? selection.devices.map((ref, i) => resolve(ref, `badges.devices[${i}]`).id)
          : selection?.group
            ? (account.groups.find((g) => g.name === selection.group)?.members ??
              missingGroup(source, selection.group))
            : account.devices.map((d) => d.id);
    const behaviours: Record<string, NonNullable<Scenario['behaviours']>[string]> = {};
    for (const [ref, behaviour] of Object.entries(scenario.behaviours ?? {})) {
      if (ref === '*') continue;
      behaviours[resolve(ref, `behaviours.${ref}`).id] = behaviour;
    }
    if (badgeIds.length > 0) {
      fleet = await startFleet({
        stub: connection,
        devices: badgeIds,
        behaviours,
        behaviour: scenario.behaviours?.['*'],
        seed,
      });
      await fleet.waitUntilConnected();
    }

    const settings = await connection.settings();
    const client = new ServiceClient({
      baseUrl: stubUrl,
      subscriberId: account.subscriber_id,
      apiKey: account.api_keys[0]!,
      authScheme: settings.authScheme,
    });
    const trigger = new TriggerSteps(stubUrl, account, source, settings.environments);
    const authHeader = (auth: string | undefined) =>
      auth === 'none'
        ? null
        : auth === 'wrong'
          ? `${settings.authScheme} not-a-key-of-this-stub`
          : auth === 'other-account'
            ? `${settings.authScheme} ${other?.api_keys[0] ?? 'no-other-account'}`
            : undefined;
    const now = () => connection.now();
    const advanceTo = async (time: number) => {
      const by = time - (await now());
      if (by <= 0) return;
      if (mode === 'realtime') await new Promise((resolve) => setTimeout(resolve, by));
      else if (fleet) await fleet.advanceBy(by);
      else await connection.advance(by);
    };
    const settle = async () => {
      if (fleet) await fleet.settled();
    };

    const taskIds = new Map<string, string>();
    const invocationIds = new Map<string, string>();
    const failures: Failure[] = [];
    const expanded = scenario.timeline.flatMap((step, index) =>
      Array.from({ length: step.repeat?.times ?? 1 }, (_, n) => ({
        step,
        index,
        at: parseDuration(step.at)! + n * (step.repeat ? parseDuration(step.repeat.every)! : 0),
      })),
    );
    expanded.sort((a, b) => a.at - b.at || a.index - b.index);
    for (const { step, index, at } of expanded) {
      await advanceTo(start + at);
      const path = `timeline[${index}]`;
      const answer = await perform(step, path);
      await settle();
      if (answer && step.expect) {
        const failure = checkResponse(
          `${path} ${actionOf(step)} answer${step.as ? ` (${step.as})` : ''}`,
          step.expect,
          answer.status,
          answer.body,
        );
        if (failure) failures.push(failure);
      }
    }
    if (scenario.duration) await advanceTo(start + parseDuration(scenario.duration)!);
    await settle();

    async function perform(step: Step, path: string): Promise<StepAnswer | undefined> {
      // The API key header of a service API step (trigger steps choose a bearer instead).
      const auth =
        Object.hasOwn(step, 'auth') &&
        !Object.hasOwn(step, 'workflow') &&
        !Object.hasOwn(step, 'device_info')
          ? authHeader((step as { auth?: Parameters<typeof authHeader>[0] }).auth)
          : undefined;
      if (hasOwn(step, 'alert')) {
        const answer = await client.request('POST', 'alerts', { body: step.alert, auth });
        const taskId = (answer.body as { task_id?: string } | undefined)?.task_id;
        if (step.as && taskId) taskIds.set(step.as, taskId);
        return answer;
      }
      if (hasOwn(step, 'broadcast'))
        return client.request('POST', 'broadcasts', { body: step.broadcast, auth });
      if (hasOwn(step, 'cancel'))
        return client.request(
          'DELETE',
          `alerts/${encodeURIComponent(taskIds.get(step.cancel) ?? step.cancel)}`,
          { auth },
        );
      if (hasOwn(step, 'events')) {
        const query = new URLSearchParams();
        if (step.events.oldest !== undefined) {
          const ms = parseDuration(step.events.oldest);
          query.set('oldest', ms === undefined ? step.events.oldest : formatTimestamp(start + ms));
        }
        if (step.events.limit !== undefined) query.set('limit', String(step.events.limit));
        const text = query.toString();
        return client.request('GET', `events${text ? `?${text}` : ''}`, { auth });
      }
      if (hasOwn(step, 'request')) {
        const { method, path: apiPath, body, raw_body, content_type } = step.request;
        return client.request(method, apiPath.replace(/^\/+/, ''), {
          body,
          rawBody: raw_body,
          contentType: content_type,
          auth,
        });
      }
      if (hasOwn(step, 'jump') || hasOwn(step, 'expire_tokens')) {
        const by = hasOwn(step, 'jump') ? parseDuration(step.jump)! : ACCESS_TOKEN_LIFETIME_MS;
        await advanceTo((await now()) + by);
        return undefined;
      }
      if (hasOwn(step, 'workflow')) {
        const { id, user, targets, action_args } = step.workflow;
        const answer = await trigger.invokeWorkflow(
          step.environment ?? 'pro',
          step.auth ?? 'valid',
          {
            id,
            userId: resolveAny(user, `${path}.workflow.user`).id,
            targets: targets?.map((ref, i) => resolveAny(ref, `${path}.workflow.targets[${i}]`).id),
            actionArgs: action_args,
          },
        );
        const invocationId = (answer.body as { invocation_id?: string } | undefined)?.invocation_id;
        if (step.as && invocationId) invocationIds.set(step.as, invocationId);
        return answer;
      }
      if (hasOwn(step, 'device_info'))
        return trigger.deviceInfo(
          step.environment ?? 'pro',
          step.auth ?? 'valid',
          resolveAny(step.device_info, `${path}.device_info`).id,
          settings.brandWord,
        );
      const ref = hasOwn(step, 'tap')
        ? step.tap
        : hasOwn(step, 'offline')
          ? step.offline
          : step.online;
      const device = resolve(ref, path);
      const badge = fleet?.badges.find((b) => b.deviceId === device.id);
      if (hasOwn(step, 'tap')) {
        // A device without a badge taps through the control API, like pressing it by hand.
        if (badge) badge.tap();
        else await connection.tap(device.id);
        return undefined;
      }
      if (!badge)
        throw new ScenarioError(
          `badge-sim: ${source}: ${path}: device '${ref}' runs no badge (see badges:)`,
        );
      if (hasOwn(step, 'offline')) {
        badge.goOffline();
        // The stub learns of a close only when it arrives: wait for that, so that what the
        // next step reads of the device (device info, the control API) is already offline.
        await waitUntil(
          async () => !(await connection.isOnline(device.id)),
          `${path}: the stub still sees ${ref} online`,
        );
      } else badge.comeBack();
      return undefined;
    }

    // What happened.
    const nameOf = new Map([...taskIds, ...invocationIds].map(([name, id]) => [id, name]));
    const rawEvents = await client.allEvents(formatTimestamp(start));
    const events: ActualEvent[] = rawEvents.map((e) => ({
      type: e.content.type,
      device: e.content.device,
      status: e.content.status,
      task: nameOf.get(e.task.id),
      taskId: e.task.id,
      name: e.task.name,
      at: Date.parse(e.timestamp) - start,
    }));
    const heard = new Map<string, ActualHeard[]>();
    const states = new Map<string, string>();
    for (const badge of fleet?.badges ?? []) {
      heard.set(
        badge.deviceId,
        badge.transcript.map((h) => ({
          kind: h.kind,
          text: h.text,
          cause: h.cause,
          task: nameOf.get(h.task_id),
          at: Date.parse(h.at) - start,
          cut: h.cut,
        })),
      );
      states.set(badge.deviceId, badge.status);
    }
    const tasks = new Map<
      string,
      { state: string; outcome: string | null; acknowledgements: number }
    >();
    // Only the tasks the scenario asks about: one that ended 7 days ago is forgotten (H1).
    for (const name of Object.keys(scenario.expect.tasks ?? {})) {
      const id = taskIds.get(name);
      const task = id === undefined ? undefined : await connection.findTask(id);
      if (task) tasks.set(name, task);
    }
    const invocations = (await connection.invocations()).filter(
      (i) => i.subscriber_id === account.subscriber_id,
    );
    const actual: Actual = { events, heard, states, tasks };

    // Against what was expected.
    const tolerance = DEFAULT_TOLERANCE_MS[mode];
    const expect = scenario.expect;
    if (expect.events) {
      const failure = checkEvents(expect.events, actual.events, tolerance);
      if (failure) failures.push(failure);
    }
    for (const [ref, expectation] of Object.entries(expect.heard ?? {})) {
      const device = resolve(ref, `expect.heard.${ref}`);
      const who = `${device.user} (${device.id})`;
      const clips = actual.heard.get(device.id);
      if (!clips)
        throw new ScenarioError(
          `badge-sim: ${source}: expect.heard.${ref}: device runs no badge (see badges:)`,
        );
      failures.push(...checkHeard(who, expectation, clips, tolerance));
    }
    for (const [ref, state] of Object.entries(expect.states ?? {})) {
      const device = resolve(ref, `expect.states.${ref}`);
      const actualState = actual.states.get(device.id) ?? 'no badge';
      if (actualState !== state) {
        failures.push({
          what: `state of ${device.user} (${device.id})`,
          message: `is ${actualState}, expected ${state}`,
          expected: [state],
          actual: [actualState],
        });
      }
    }
    for (const [name, expected] of Object.entries(expect.tasks ?? {})) {
      const task = actual.tasks.get(name);
      const wrong = Object.entries(expected).filter(
        ([key, value]) => task?.[key as keyof typeof task] !== value,
      );
      if (!task || wrong.length > 0) {
        failures.push({
          what: `task ${name}`,
          message: task
            ? wrong
                .map(
                  ([key, value]) =>
                    `${key} is ${JSON.stringify(task[key as keyof typeof task])}, expected ${JSON.stringify(value)}`,
                )
                .join('; ')
            : 'was never created, or ended more than 7 days ago and was forgotten',
          expected: Object.entries(expected).map(([k, v]) => `${k} ${JSON.stringify(v)}`),
          actual: task
            ? [
                `state ${task.state}`,
                `outcome ${task.outcome}`,
                `acknowledgements ${task.acknowledgements}`,
              ]
            : ['(none)'],
        });
      }
    }

    if (expect.invocations) {
      const failure = checkInvocations(
        expect.invocations.map((m, i) => ({
          ...m,
          user: m.user && resolve(m.user, `expect.invocations[${i}].user`).id,
        })),
        invocations,
        (id) => devices.get(id)?.user ?? id,
      );
      if (failure) failures.push(failure);
    }
    if (expect.token_requests !== undefined && trigger.tokenRequests !== expect.token_requests) {
      failures.push({
        what: 'token requests',
        message: `the scenario went to oauth2/token ${trigger.tokenRequests} times, expected ${expect.token_requests}`,
        expected: [String(expect.token_requests)],
        actual: [String(trigger.tokenRequests)],
      });
    }

    return {
      name: scenario.name,
      source,
      proves: scenario.proves,
      passed: failures.length === 0,
      seed,
      mode,
      failures,
      actual: {
        events: rawEvents,
        heard: Object.fromEntries(actual.heard),
        states: Object.fromEntries(actual.states),
        tasks: Object.fromEntries(taskIds),
        invocations,
        token_requests: trigger.tokenRequests,
      },
      notes: [...notes],
      rerun: `npx badge-sim run ${source === '<code>' ? `--grep '${scenario.name}'` : source} --seed ${seed}${mode === 'external' ? ` --stub ${stubUrl}` : ''}`,
    };
  } finally {
    stopHolds();
    await fleet?.close();
    await connection.close();
  }
}

let defaultFixtures: Fixtures | undefined;

function resolveFixtures(scenario: Scenario): Fixtures {
  const given = scenario.fixtures ?? 'default';
  if (given === 'default') {
    // Read once a process: a suite runs many scenarios on them. The stub copies what it gets.
    defaultFixtures ??= loadFixturesFile(DEFAULT_FIXTURES_FILE);
    return defaultFixtures;
  }
  if (hasOwn(given, 'generate')) return generateFixtures(given.generate);
  return given;
}

function missingGroup(source: string, group: string): never {
  throw new ScenarioError(`badge-sim: ${source}: badges.group: no group '${group}' in the account`);
}

/** The stub's control API; a refusal is a ScenarioError, reported with the scenario. */
class ScenarioStubControl extends StubControlClient {
  constructor(
    private readonly stubUrl: string,
    controlToken?: string,
  ) {
    super(stubUrl, { controlToken });
  }

  protected override refusal(status: number, body: unknown, what: string): Error {
    const code = (body as { code?: unknown } | undefined)?.code;
    if (status === 401 && (code === 'missing_control_token' || code === 'invalid_control_token'))
      return new ScenarioError(
        `badge-sim: the stub at ${this.stubUrl} locks its control API and ${code === 'missing_control_token' ? 'no control token was given' : 'refused the control token given'}: pass its token with --control-token or BADGE_SIM_CONTROL_TOKEN (controlToken in code)`,
      );
    return new ScenarioError(
      `badge-sim: the stub at ${this.stubUrl} refused ${what}: ${status} ${JSON.stringify(body)}`,
    );
  }
}

/** Polls a condition of the wire (not of time) every few ms, for at most two seconds. */
async function waitUntil(condition: () => Promise<boolean>, failure: string): Promise<void> {
  const deadline = performance.now() + 2_000;
  while (!(await condition())) {
    if (performance.now() > deadline) throw new ScenarioError(`badge-sim: ${failure}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
