/**
 * Runs one scenario and reports what happened against what it expects.
 *
 * - embedded (default): a stub and the badges in this process on one virtual clock: fast and
 *   deterministic;
 * - external: drives a running stub (a container) through its control API and its clock;
 * - realtime: an embedded stub on the wall clock, for demos and soak runs.
 *
 * Every mode talks to the stub over real HTTP and WebSocket, through a `StubConnection`; only
 * the clock differs. A run reads: prepare (stub, badges, clients), run the timeline through
 * the step handlers (steps.ts), collect what happened, check it (expectations.ts).
 */

import { allJournalEntries, StubControlClient } from '../../client/control-client.ts';
import { ServiceClient } from '../../client/service-client.ts';
import { formatTimestamp } from '../../clock/clock.ts';
import type { FixtureAccount, FixtureDevice, Fixtures } from '../../fixtures/fixtures.schema.ts';
import type { StubSettings } from '../../protocol/control-api.schema.ts';
import { parseDuration } from '../../protocol/duration.ts';
import type { AnalyticEvent } from '../../protocol/service-api.schema.ts';
import { startStub } from '../../server-stub/start-stub.ts';
import type { WorkflowInvocation } from '../../server-stub/stub-core.ts';
import type { Badge } from '../../simulator/badge.ts';
import { startFleet } from '../../simulator/fleet.ts';
import type { FleetHandle } from '../../simulator/fleet-options.ts';
import { HttpStubConnection } from '../../stub-connection/http-stub-connection.ts';
import { InProcessStubConnection } from '../../stub-connection/in-process-stub-connection.ts';
import type { StubConnection } from '../../stub-connection/stub-connection.ts';
import {
  type ActualEvent,
  type ActualHeard,
  checkExpectations,
  checkResponse,
  type DeviceFacts,
  type Failure,
  type ScenarioActual,
} from '../checks/expectations.ts';
import { actionOf, type LoadedScenario, ScenarioError } from '../format/load-scenario.ts';
import { noAccount, noDevice, noGroup } from '../format/missing-reference.ts';
import type { Scenario, ScenarioSettings } from '../format/scenario.schema.ts';
import type { RunCoverage } from './coverage.ts';
import { injectFetch } from './inject-fetch.ts';
import { loopbackFetch } from './loopback-fetch.ts';
import { type RunMode, rerunCommand } from './rerun-command.ts';
import { addRunCoverage, startRunRecording } from './run-history.ts';
import { type ConnectedStub, type TracedRun, type TraceOption, traceRun } from './run-trace.ts';
import { resolveFixtures } from './scenario-fixtures.ts';
import { leaseScenarioStub } from './scenario-stubs.ts';
import type { StepObserver } from './step-progress.ts';
import { STEP_HANDLERS, type StepContext } from './steps.ts';
import { TriggerSteps } from './trigger-steps.ts';

export type { RunMode };

export interface RunOptions extends TraceOption {
  mode?: RunMode;
  /** The stub's base URL, for external mode. */
  stubUrl?: string;
  /** The control token of the external stub, if its control API is locked. */
  controlToken?: string;
  /** Seed when the scenario gives none (default 0). */
  seed?: number;
  /**
   * How an embedded run reaches its stub: in this process without a socket (the default: the
   * badges' frames, decision SP5, and the clients' requests, SP6), or on the stub's port as a
   * fleet and clients of another process would (`network`).
   */
  link?: 'in-process' | 'network';
  /**
   * Collects what the run exercised (`run --coverage`): the badge machine's transitions its
   * badges take, the alert model's its stub's history shows, the decision rows it names.
   */
  coverage?: RunCoverage;
  /** Told of each step once it has run (`run --verbose`, step-progress.ts). */
  onStep?: StepObserver;
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
  /**
   * One lane a badge of the run, for the HTML report's swimlanes: what it played and said,
   * its taps, its offline windows. Times in ms from the start, like `heard`.
   */
  lanes?: BadgeLane[];
  /** How long the run lasted on its clock (ms from the start to when it was collected). */
  endMs?: number;
  /** When the run began on its clock (ISO): the zero of every `at`, events' timestamps included. */
  startedAt?: string;
  /** The command that runs this scenario again. */
  rerun: string;
  /**
   * What the run noticed that is not a failure of the scenario: a badge that did not answer
   * the stub within the bound, so the clock went on without it. Said once each.
   */
  notes?: string[];
}

/** What one badge did in a run, ms from the start (the HTML report draws it). */
export interface BadgeLane {
  device: string;
  user: string;
  /** Each clip it heard: an alert's plays (`repeat` 0 the first), a broadcast, speech. */
  clips: {
    at: number;
    durationMs: number;
    kind: string;
    text: string;
    task?: string;
    repeat?: number;
    cause?: string;
    cut?: true;
  }[];
  /** When its talk button was pressed. */
  taps: number[];
  /** When it was off the network: from, and to (the end of the run if it never came back). */
  offline: { from: number; to: number }[];
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
  // Where a path is written (file:line:column), for the names found missing as it runs.
  const place = (path: string) => loaded.where?.(path) ?? source;
  const account = accountOf(scenario, fixtures, place);

  // Prepare: the stub, the badges, the clients.
  const connected = await connectStub(mode, fixtures, seed, scenario.settings ?? {}, options);
  const { connection, send } = connected;
  const traced = traceRun(connected, { name: scenario.name, source }, options);
  const notes = new Set<string>();
  const stopHolds = connection.onHold((message) => notes.add(message));
  let fleet: FleetHandle | undefined;
  // Coverage reads the stub's session recording: taps, DELETE answers, badges off and on line.
  const control = options.coverage
    ? new ScenarioStubControl(connection.url, options.controlToken, send)
    : undefined;
  let recordingStarted = false;
  try {
    const start = await connection.now();
    if (control) recordingStarted = await startRunRecording(control);
    // The settings are read while the badges connect; awaited (and any failure thrown) below.
    const settings = connection.settings();
    settings.catch(() => undefined);
    fleet = await startBadges(scenario, place, account, connection, seed, traced.inspect);
    const context = stepContext(
      mode,
      source,
      start,
      account,
      connection,
      send,
      fleet,
      await settings,
    );

    // Run the timeline through the step handlers.
    const failures = await runTimeline(scenario, context, traced.onStep);
    if (scenario.duration) await context.advanceTo(start + parseDuration(scenario.duration)!);
    await fleet?.settled();

    // Collect what happened, and check it against what was expected.
    const actual = await collect(scenario, account, context);
    failures.push(
      ...checkExpectations(scenario.expect, actual, {
        toleranceMs: DEFAULT_TOLERANCE_MS[mode],
        resolve: account.resolve,
        userName: (id) => account.devices.get(id)?.user ?? id,
        problem: (path, message) =>
          new ScenarioError(`badge-sim: ${place(path)}: ${path}: ${message}`),
      }),
    );
    traced.trace?.verdict(failures);
    if (options.coverage && control) {
      const note = await addRunCoverage(options.coverage, {
        connection,
        control,
        start,
        subscriberId: account.fixture.subscriber_id,
        devices: new Set(account.devices.keys()),
        events: actual.rawEvents,
        decisions: failures.length === 0 ? (scenario.decisions ?? []) : [],
      });
      if (note) notes.add(note);
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
        events: actual.rawEvents,
        heard: Object.fromEntries(actual.heard),
        states: Object.fromEntries(actual.states),
        tasks: Object.fromEntries(context.taskIds),
        invocations: actual.rawInvocations,
        token_requests: actual.tokenRequests,
      },
      lanes: actual.lanes,
      endMs: actual.endMs,
      startedAt: formatTimestamp(start),
      notes: [...notes],
      rerun: rerunCommand({
        ...options,
        source,
        name: scenario.name,
        seed,
        mode,
        stubUrl: connection.url,
      }),
    };
  } finally {
    stopHolds();
    if (recordingStarted && mode === 'external') await control?.stopRecording();
    await fleet?.close();
    await connection.close();
    await traced.close();
  }
}

/** The scenario's account, and its devices by id or user name. */
interface ScenarioAccount {
  readonly fixture: FixtureAccount;
  /** Another account of the fixtures, for `auth: other-account`. */
  readonly other: FixtureAccount | undefined;
  readonly devices: Map<string, FixtureDevice>;
  resolve(ref: string, path: string): FixtureDevice;
  resolveAny(ref: string, path: string): FixtureDevice;
}

function accountOf(
  scenario: Scenario,
  fixtures: Fixtures,
  place: (path: string) => string,
): ScenarioAccount {
  const account = scenario.account
    ? fixtures.accounts.find((a) => a.subscriber_id === scenario.account)
    : fixtures.accounts[0];
  if (!account)
    throw new ScenarioError(
      `badge-sim: ${place('account')}: ${noAccount(fixtures, scenario.account!)}`,
    );
  const devices = new Map(account.devices.map((d) => [d.id, d]));
  const resolve = (ref: string, path: string) => {
    const device = devices.get(ref) ?? account.devices.find((d) => d.user === ref);
    if (!device)
      throw new ScenarioError(`badge-sim: ${place(path)}: ${path}: ${noDevice(account, ref)}`);
    return device;
  };
  return {
    fixture: account,
    other: fixtures.accounts.find((a) => a !== account),
    devices,
    resolve,
    // Trigger steps may name another account's device, to see it refused.
    resolveAny: (ref, path) =>
      devices.get(ref) ??
      account.devices.find((d) => d.user === ref) ??
      fixtures.accounts.flatMap((a) => a.devices).find((d) => d.id === ref || d.user === ref) ??
      resolve(ref, path),
  };
}

/**
 * A stub in this process with the scenario's fixtures (on the virtual clock, a kept one
 * renewed: scenario-stubs.ts), or the external one loaded with them; `send`, the fetch the
 * runner's clients send to it with; `release` gives a kept stub back once the scenario is over.
 */
async function connectStub(
  mode: RunMode,
  fixtures: Fixtures,
  seed: number,
  settings: ScenarioSettings,
  options: RunOptions,
): Promise<ConnectedStub> {
  if (mode === 'external') {
    if (!options.stubUrl)
      throw new ScenarioError('badge-sim: external mode needs the stub URL (--stub URL)');
    const stubUrl = options.stubUrl.replace(/\/+$/, '');
    const connection = new HttpStubConnection(
      stubUrl,
      new ScenarioStubControl(stubUrl, options.controlToken),
      {
        unreachable: (code) =>
          new ScenarioError(`badge-sim: the stub at ${stubUrl} is unreachable (${code})`),
      },
    );
    try {
      checkExternalSettings(settings, await connection.settings(), stubUrl);
      await connection.prepare(fixtures);
    } catch (error) {
      await connection.close();
      throw error;
    }
    return { connection, send: fetch };
  }
  if (mode === 'embedded') {
    const lease = await leaseScenarioStub(fixtures, seed, settings);
    const inProcess = options.link !== 'network';
    // A stub in this process is sent to without a socket (SP6), or without fetch's machinery (SP4).
    const send = inProcess ? injectFetch(lease.stub) : loopbackFetch;
    const connection = new InProcessStubConnection(lease.stub, {
      control: () => new ScenarioStubControl(lease.stub.url, undefined, send),
      inProcessDevices: inProcess,
    });
    return { connection, send, release: lease.release, stub: lease.stub };
  }
  const stub = await startStub({
    fixtures,
    seed,
    clock: 'real',
    settings: {
      cancelEvents: settings.cancel_events,
      unknownFields: settings.unknown_fields,
      urnWord: settings.urn_word,
    },
  });
  const connection = new InProcessStubConnection(stub, {
    control: () => new ScenarioStubControl(stub.url, undefined, loopbackFetch),
    ownsStub: true,
  });
  return { connection, send: loopbackFetch, stub };
}

/**
 * The settings a scenario needs, held against those an external stub runs with: the runner
 * cannot change them there (decision Y4), so a difference is an error saying how to start it.
 */
function checkExternalSettings(
  needed: ScenarioSettings,
  running: StubSettings,
  stubUrl: string,
): void {
  const wrong = [
    ['cancel_events', '--cancel-events', needed.cancel_events, running.cancelEvents],
    ['unknown_fields', '--unknown-fields', needed.unknown_fields, running.unknownFields],
    ['urn_word', '--urn-word', needed.urn_word, running.urnWord],
  ].filter(([, , want, has]) => want !== undefined && want !== has);
  if (wrong.length > 0)
    throw new ScenarioError(
      `badge-sim: the scenario needs ${wrong.map(([key, , want, has]) => `settings.${key} ${want} (the stub at ${stubUrl} runs ${has})`).join(' and ')}: start that stub with ${wrong.map(([, flag, want]) => `${flag} ${want}`).join(' ')}`,
    );
}

/** The badges: a group, a list, or every device of the account; connected. */
async function startBadges(
  scenario: Scenario,
  place: (path: string) => string,
  account: ScenarioAccount,
  connection: StubConnection,
  seed: number,
  inspect: TracedRun['inspect'],
): Promise<FleetHandle | undefined> {
  const selection = scenario.badges;
  const badgeIds =
    selection === 'none'
      ? []
      : selection?.devices
        ? selection.devices.map((ref, i) => account.resolve(ref, `badges.devices[${i}]`).id)
        : selection?.group
          ? (account.fixture.groups.find((g) => g.name === selection.group)?.members ??
            missingGroup(place, account.fixture, selection.group))
          : account.fixture.devices.map((d) => d.id);
  const behaviours: Record<string, NonNullable<Scenario['behaviours']>[string]> = {};
  for (const [ref, behaviour] of Object.entries(scenario.behaviours ?? {})) {
    if (ref === '*') continue;
    behaviours[account.resolve(ref, `behaviours.${ref}`).id] = behaviour;
  }
  if (badgeIds.length === 0) return undefined;
  const fleet = await startFleet({
    stub: connection,
    devices: badgeIds,
    behaviours,
    behaviour: scenario.behaviours?.['*'],
    seed,
    ...(inspect ? { inspect } : {}),
  });
  await fleet.waitUntilConnected();
  return fleet;
}

function stepContext(
  mode: RunMode,
  source: string,
  start: number,
  account: ScenarioAccount,
  connection: StubConnection,
  send: typeof fetch,
  fleet: FleetHandle | undefined,
  settings: StubSettings,
): StepContext {
  const now = () => connection.now();
  return {
    source,
    start,
    connection,
    fleet,
    client: new ServiceClient({
      baseUrl: connection.url,
      subscriberId: account.fixture.subscriber_id,
      apiKey: account.fixture.api_keys[0]!,
      authScheme: settings.authScheme,
      fetch: send,
    }),
    trigger: new TriggerSteps(connection.url, account.fixture, source, settings.environments, send),
    brandWord: settings.brandWord,
    taskIds: new Map(),
    invocationIds: new Map(),
    faultIds: new Map(),
    authHeader: (auth) =>
      auth === 'none'
        ? null
        : auth === 'wrong'
          ? `${settings.authScheme} not-a-key-of-this-stub`
          : auth === 'other-account'
            ? `${settings.authScheme} ${account.other?.api_keys[0] ?? 'no-other-account'}`
            : undefined,
    resolve: account.resolve,
    resolveAny: account.resolveAny,
    now,
    async advanceTo(time) {
      const by = time - (await now());
      if (by <= 0) return;
      if (mode === 'realtime') await new Promise((resolve) => setTimeout(resolve, by));
      else if (fleet) await fleet.advanceBy(by);
      else await connection.advance(by);
    },
  };
}

/**
 * Each step at its time (repeats unrolled, ties in file order), done by its handler; what a
 * request step got is checked against its `expect`. Returns those checks' failures.
 */
async function runTimeline(
  scenario: Scenario,
  context: StepContext,
  onStep?: StepObserver,
): Promise<Failure[]> {
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
    await context.advanceTo(context.start + at);
    const path = `timeline[${index}]`;
    const action = actionOf(step);
    const answer = await STEP_HANDLERS.get(action)!.run(step, path, context);
    await context.fleet?.settled();
    const failure =
      answer && step.expect
        ? checkResponse(
            `${path} ${action} answer${step.as ? ` (${step.as})` : ''}`,
            step.expect,
            answer.status,
            answer.body,
          )
        : undefined;
    if (failure) failures.push(failure);
    const [status, mismatch] = [answer?.status, failure?.message];
    onStep?.({ scenario: scenario.name, index, at, action, step, status, mismatch });
  }
  return failures;
}

/** What happened: events, transcripts and states of the badges, the named tasks, invocations. */
async function collect(
  scenario: Scenario,
  account: ScenarioAccount,
  context: StepContext,
): Promise<
  ScenarioActual & {
    rawEvents: AnalyticEvent[];
    rawInvocations: WorkflowInvocation[];
    lanes: BadgeLane[];
    endMs: number;
  }
> {
  const { start, taskIds, invocationIds, connection } = context;
  // Read first: reading the events below is a request to the service API, journalled too. The
  // stub was reset when the scenario began, so the whole journal is the scenario's.
  const requests = scenario.expect.requests ? await allJournalEntries(connection) : [];
  const nameOf = new Map([...taskIds, ...invocationIds].map(([name, id]) => [id, name]));
  const subscriberId = account.fixture.subscriber_id;
  // Independent reads, sent together (the task and invocation reads are not journalled).
  const [rawEvents, tasks, allInvocations] = await Promise.all([
    context.client.allEvents(formatTimestamp(start)),
    namedTasks(scenario, taskIds, connection),
    connection.invocations(),
  ]);
  const rawInvocations = allInvocations.filter((i) => i.subscriber_id === subscriberId);
  const endMs = (await connection.now()) - start;
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
  const badges = context.fleet?.badges ?? [];
  // Read once a badge: each read formats every entry.
  const transcripts = new Map(badges.map((badge) => [badge, badge.transcript]));
  for (const badge of badges) {
    heard.set(
      badge.deviceId,
      transcripts.get(badge)!.map((h) => ({
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
  const devices = scenario.expect.devices
    ? await deviceFacts(scenario.expect.devices, account, connection)
    : new Map<string, DeviceFacts>();
  return {
    events,
    heard,
    states,
    devices,
    tasks,
    invocations: rawInvocations,
    tokenRequests: context.trigger.tokenRequests,
    requests,
    rawEvents,
    rawInvocations,
    lanes: badges.map((badge) =>
      laneOf(
        badge,
        transcripts.get(badge)!,
        account.devices.get(badge.deviceId)?.user ?? badge.deviceId,
        start,
        endMs,
        nameOf,
      ),
    ),
    endMs,
  };
}

/** The tasks the scenario asks about, by name: one that ended 7 days ago is forgotten (H1). */
async function namedTasks(
  scenario: Scenario,
  taskIds: Map<string, string>,
  connection: StubConnection,
): Promise<ScenarioActual['tasks']> {
  const tasks: ScenarioActual['tasks'] = new Map();
  for (const name of Object.keys(scenario.expect.tasks ?? {})) {
    const id = taskIds.get(name);
    const task = id === undefined ? undefined : await connection.findTask(id);
    if (task) tasks.set(name, task);
  }
  return tasks;
}

/** A badge's swimlane: its transcript and its taps and network changes, from the start. */
function laneOf(
  badge: Badge,
  transcript: Badge['transcript'],
  user: string,
  start: number,
  endMs: number,
  nameOf: Map<string, string>,
): BadgeLane {
  const clips = transcript.map((h) => ({
    at: Date.parse(h.at) - start,
    durationMs: h.duration_ms,
    kind: h.kind,
    text: h.text,
    ...(nameOf.has(h.task_id) ? { task: nameOf.get(h.task_id)! } : {}),
    ...(h.repeat === undefined ? {} : { repeat: h.repeat }),
    ...(h.cause === undefined ? {} : { cause: h.cause }),
    ...(h.cut ? { cut: h.cut } : {}),
  }));
  const taps: number[] = [];
  const offline: BadgeLane['offline'] = [];
  // A badge is offline until it is first welcomed (one told offline at the start never is).
  let offlineSince: number | undefined = 0;
  for (const { at, kind } of badge.activity) {
    const ms = Date.parse(at) - start;
    if (kind === 'tap') taps.push(ms);
    else if (kind === 'offline') offlineSince ??= ms;
    else if (offlineSince !== undefined) {
      if (ms > offlineSince) offline.push({ from: Math.max(0, offlineSince), to: ms });
      offlineSince = undefined;
    }
  }
  if (offlineSince !== undefined && endMs > offlineSince)
    offline.push({ from: Math.max(0, offlineSince), to: endMs });
  return { device: badge.deviceId, user, clips, taps, offline };
}

/**
 * What the stub knows of the devices a scenario expects something of. A badge's state report
 * (its battery) is telemetry the stub does not answer, so nothing settles on it: wait for
 * each device to be as expected, told by the stub, all together at most DEVICE_REPORT_WAIT_MS
 * of real time (decision DF8); then read them once, and the expectation names what differs.
 */
async function deviceFacts(
  expected: NonNullable<Scenario['expect']['devices']>,
  account: ScenarioAccount,
  connection: StubConnection,
): Promise<Map<string, DeviceFacts>> {
  const deadline = performance.now() + DEVICE_REPORT_WAIT_MS;
  for (const [ref, facts] of Object.entries(expected)) {
    const { id } = account.resolve(ref, `expect.devices.${ref}`);
    const timeoutMs = Math.max(0, deadline - performance.now());
    await connection.waitForDevice(id, { ...facts, timeoutMs });
  }
  return new Map(
    (await connection.devices()).map((d): [string, DeviceFacts] => [
      d.device_id,
      {
        online: d.online,
        battery_level: d.battery_level,
        battery_status: d.battery_status,
        battery_low: d.battery_low,
      },
    ]),
  );
}

/** The longest a device expectation waits (real ms) for a badge's report to reach the stub. */
const DEVICE_REPORT_WAIT_MS = 2_000;

function missingGroup(
  place: (path: string) => string,
  account: FixtureAccount,
  group: string,
): never {
  throw new ScenarioError(
    `badge-sim: ${place('badges.group')}: badges.group: ${noGroup(account, group)}`,
  );
}

/** The stub's control API; a refusal is a ScenarioError, reported with the scenario. */
class ScenarioStubControl extends StubControlClient {
  constructor(
    private readonly stubUrl: string,
    controlToken?: string,
    send?: typeof fetch,
  ) {
    super(stubUrl, { controlToken, ...(send ? { fetch: send } : {}) });
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
