import { type ClockMode, formatTimestamp, VirtualClock } from '../clock/clock.ts';
import type { FixtureDevice, Fixtures } from '../fixtures/fixtures.schema.ts';
import { checkFixtures } from '../fixtures/load-fixtures.ts';
import type {
  EnvironmentName,
  StubKept,
  WorkflowInvocation,
} from '../protocol/control-api.schema.ts';
import { IdSource } from '../protocol/ids.ts';
import { RECORDING_LIMIT_DEFAULT } from '../protocol/recording.schema.ts';
import type { WorkflowInvoked } from '../protocol/trigger-api.schema.ts';
import { AlertEngine } from './engine/alert-engine.ts';
import { type Device, Directory } from './engine/directory.ts';
import { EngineError } from './engine/engine-error.ts';
import { EventWaiters } from './engine/event-waiters.ts';
import { EVENT_RETENTION_MS } from './engine/retention.ts';
import { exchangeRefreshToken, type TokenExchange } from './engine/token-exchange.ts';
import { TokenStore } from './engine/tokens.ts';
import { type InvocationRequest, invocableWorkflow, readInvocation } from './engine/workflows.ts';
import { FaultTable } from './faults.ts';
import { RequestJournal } from './journal.ts';
import { SessionRecorder } from './recorder.ts';
import { resolveSettings, type StubSettings, type StubSettingsInput } from './settings.ts';
import { traceAlert } from './trace-alerts.ts';

export type { WorkflowInvocation };

/** Invocations are kept as long as events (7 days), and at most this many (H3). */
const INVOCATION_RETENTION_MS = EVENT_RETENTION_MS;
const INVOCATIONS_CAP = 10_000;

export interface StubCoreOptions {
  fixtures: Fixtures;
  /**
   * Seed of task and event ids and issued tokens: the same seed gives the same ids, run after
   * run and after each reset. Without one they are random, new in each process and after
   * each reset (in every clock mode).
   */
  seed?: number;
  settings?: StubSettingsInput;
  clockMode?: ClockMode;
  clockScale?: number;
  /** Start of virtual time, ms since epoch (default 2026-01-01T00:00:00Z). */
  startTime?: number;
  /** Record the session from the start (`/_stub/recording`, `--record`; RS1). */
  record?: boolean;
  /** Records the session recording keeps at most (default RECORDING_LIMIT_DEFAULT, RS2). */
  recordingLimit?: number;
}

/**
 * Everything the stub knows, without HTTP: settings, the one clock, the fixtures and the
 * engine. The routes are thin adapters over it; tests may use it directly.
 */
export class StubCore {
  /** The settings as given; `settings` adds what the fixtures and defaults fill in. */
  readonly #givenSettings: StubSettingsInput;
  #settings: StubSettings;
  readonly clock: VirtualClock;
  readonly ids: IdSource;
  readonly engine: AlertEngine;
  /** Requests waiting for an analytic event (`GET /_stub/events/await`). */
  readonly eventWaiters: EventWaiters;
  #tokens: TokenStore;
  /** Faults on the emulated APIs (`/_stub/faults`): emptied by a reset. */
  #faults: FaultTable;
  /** What the emulated APIs received and answered (`/_stub/journal`); emptied by a reset. */
  #journal = this.#newJournal();
  /** Everything that happens, in order (`/_stub/recording`, `--record`); begins again on a reset. */
  readonly recorder: SessionRecorder;
  #invocations: WorkflowInvocation[] = [];
  /** Invocations dropped past INVOCATIONS_CAP since the last reset (`kept()`). */
  #invocationsDropped = 0;
  #fixtures: Fixtures;
  #devices = new Map<string, FixtureDevice>();
  readonly #clockListeners = new Set<() => void>();
  readonly #resetListeners = new Set<() => void>();

  constructor(options: StubCoreOptions) {
    this.#fixtures = checkFixtures(structuredClone(options.fixtures));
    this.#givenSettings = options.settings ?? {};
    this.#settings = resolveSettings(this.#givenSettings, this.#fixtures);
    this.#indexDevices();
    this.clock = new VirtualClock({ start: options.startTime ?? defaultStart(options.clockMode) });
    if (options.clockMode && options.clockMode !== 'virtual') {
      this.clock.setMode(options.clockMode, options.clockScale);
    }
    this.ids = new IdSource(options.seed);
    this.engine = new AlertEngine({
      clock: this.clock,
      ids: this.ids,
      directory: new Directory(this.#fixtures, this.settings.urnWord),
      cancelEvents: this.settings.cancelEvents,
      deferFanOut: () => this.clock.mode !== 'virtual',
    });
    this.eventWaiters = new EventWaiters(this.engine);
    this.#tokens = new TokenStore(this.clock, this.ids);
    this.#faults = new FaultTable(() => this.clock.now(), options.seed);
    this.#addFixtureTokens();
    this.recorder = new SessionRecorder(
      () => this.clock.now(),
      options.recordingLimit ?? RECORDING_LIMIT_DEFAULT,
    );
    if (options.record) this.startRecording();
    // Asked first: with no recording on, an event costs the recorder nothing (not even its record).
    this.engine.onEvent((subscriberId, event) => {
      if (!this.recorder.recording) return;
      this.recorder.add('event', { account: subscriberId, event });
      if (this.recorder.traced) traceAlert(this, event);
    });
    this.onClockChange(() => {
      const { mode, scale } = this.clock.state;
      // On the virtual clock nothing lags behind: what real time left to reach is reached now.
      if (mode === 'virtual') this.engine.drainFanOut();
      this.recorder.add('clock', { mode, scale });
    });
  }

  /** Starts the session recording afresh (what it held is removed and counted). */
  startRecording(): number {
    const removed = this.recorder.start();
    this.beginRecording('start');
    return removed;
  }

  /** A `session` record: the fixtures and the clock the recording (re)starts from. */
  beginRecording(reason: 'start' | 'reset' | 'fixtures'): void {
    const { mode, scale } = this.clock.state;
    // The settings that change what the engine does: a replay needs the same ones.
    const { cancelEvents, unknownFields } = this.#settings;
    this.recorder.begin(reason, this.#fixtures, { mode, scale }, { cancelEvents, unknownFields });
  }

  get tokens(): TokenStore {
    return this.#tokens;
  }

  get faults(): FaultTable {
    return this.#faults;
  }

  get journal(): RequestJournal {
    return this.#journal;
  }

  /** The settings in effect (the fixtures' client ids among them, under any given ones). */
  get settings(): StubSettings {
    return this.#settings;
  }

  get fixtures(): Fixtures {
    return this.#fixtures;
  }

  get directory(): Directory {
    return this.engine.directory;
  }

  /**
   * What the stub keeps at most, and dropped past a cap before its 7 days were up, since the
   * last reset (`GET /_stub/kept`; decisions H2, H3, H10, V8).
   */
  kept(): StubKept {
    const engine = this.engine.kept();
    const invocations = this.invocations.length;
    return {
      events: { cap_per_account: engine.events.cap, dropped: engine.events.dropped },
      ended_tasks: {
        cap: engine.endedTasks.cap,
        recipients_cap: engine.endedTasks.recipientsCap,
        kept: engine.endedTasks.kept,
        dropped: engine.endedTasks.dropped,
      },
      transcript_lines: {
        cap_per_device: engine.transcriptLines.cap,
        dropped: engine.transcriptLines.dropped,
      },
      invocations: { cap: INVOCATIONS_CAP, kept: invocations, dropped: this.#invocationsDropped },
    };
  }

  /**
   * Workflow invocations, oldest first (control API; `invokeWorkflow` appends to it): the
   * last 7 days, at most INVOCATIONS_CAP (H3). Each read first drops what expired or is over
   * the cap: usually one comparison.
   */
  get invocations(): WorkflowInvocation[] {
    const list = this.#invocations;
    const cutoff = this.clock.now() - INVOCATION_RETENTION_MS;
    let drop = Math.max(0, list.length - INVOCATIONS_CAP);
    this.#invocationsDropped += drop;
    // `at` is the formatted instant (microseconds); Date.parse keeps its milliseconds.
    while (drop < list.length && Date.parse(list[drop]!.at) < cutoff) drop++;
    if (drop === list.length && drop > 0) this.#invocations = [];
    else if (drop > 0) list.splice(0, drop);
    return this.#invocations;
  }

  /**
   * A device of an account, or an `unknown_device` refusal naming `field` (the request field
   * that named it).
   */
  accountDevice(subscriberId: string, deviceId: string, field: string): Device {
    const device = this.directory.device(deviceId);
    if (!device || device.subscriberId !== subscriberId) {
      throw new EngineError(
        'unknown_device',
        `no device '${deviceId}' in account ${subscriberId}`,
        field,
      );
    }
    return device;
  }

  /**
   * `oauth2/token` of an environment: the refresh token of a token request (any value: a form
   * or JSON) exchanged for an access and an id token, or the OAuth refusal and its status.
   */
  exchangeToken(environment: EnvironmentName, request: unknown): TokenExchange {
    return exchangeRefreshToken(this.tokens, this.settings, environment, request);
  }

  /**
   * Invokes an HTTP workflow of an account for one of its users (whose access the caller has
   * checked): the request is checked (`readInvocation`), then the workflow, the user and each
   * target; nothing changes on a refusal. The invocation is kept (`invocations`), and the
   * workflow's text, if it has one, is spoken on the user's badge and on every target, once
   * each.
   */
  invokeWorkflow(
    environment: EnvironmentName,
    subscriberId: string,
    workflowId: string,
    request: InvocationRequest,
  ): WorkflowInvoked {
    const { userId, actionArgs, targetDeviceIds } = readInvocation(request);
    const account = this.#fixtures.accounts.find((a) => a.subscriber_id === subscriberId);
    const workflow = invocableWorkflow(account?.workflows, subscriberId, workflowId);
    const user = this.accountDevice(subscriberId, userId, 'user_id');
    const targets = (targetDeviceIds ?? []).map((id, i) =>
      this.accountDevice(subscriberId, id, `target_device_ids[${i}]`),
    );
    const invocationId = `inv_${this.ids.taskId()}`;
    this.invocations.push({
      invocation_id: invocationId,
      environment,
      workflow_id: workflowId,
      subscriber_id: subscriberId,
      user_id: user.id,
      action: 'invoke',
      ...(actionArgs === undefined ? {} : { action_args: actionArgs }),
      ...(targetDeviceIds === undefined ? {} : { target_device_ids: targetDeviceIds }),
      at: formatTimestamp(this.clock.now()),
    });
    if (workflow.speak) {
      for (const id of new Set([user.id, ...targets.map((d) => d.id)]))
        this.engine.say(id, workflow.speak, invocationId);
    }
    return { status: 'invoked', invocation_id: invocationId };
  }

  /** The fixture record of a device: its key, initial battery and location, behaviour. */
  deviceFixture(deviceId: string): FixtureDevice | undefined {
    return this.#devices.get(deviceId);
  }

  /** The key a badge must show in its hello, if the fixtures give one. */
  deviceKey(deviceId: string): string | undefined {
    return this.#devices.get(deviceId)?.key;
  }

  /** Listens for jumps and mode switches of the clock made through the control API. */
  onClockChange(listener: () => void): () => void {
    this.#clockListeners.add(listener);
    return () => this.#clockListeners.delete(listener);
  }

  /** Tells the listeners the clock jumped or switched mode. */
  clockChanged(): void {
    for (const listener of this.#clockListeners) listener();
  }

  /** Listens for resets and fixture loads. */
  onReset(listener: () => void): () => void {
    this.#resetListeners.add(listener);
    return () => this.#resetListeners.delete(listener);
  }

  /** The instant of the snapshot it was last restored from, until a reset (WS35). */
  restoredAt: number | undefined;

  /**
   * Back to the loaded fixtures: no tasks, events or transcripts, ids from the first of the
   * seed (a fresh random start without one), tokens of a new generation (never one issued
   * before), no faults, an empty request journal (its ids go on counting), and a virtual clock
   * back at its start. A running clock keeps running.
   */
  reset(): void {
    this.restoredAt = undefined;
    this.engine.reset();
    this.clock.reset();
    this.#loadTokens();
    this.#invocations = [];
    this.#invocationsDropped = 0;
    this.faults.reset();
    this.journal.clear();
    this.beginRecording('reset');
    for (const listener of this.#resetListeners) listener();
  }

  /** Replaces the fixtures (checked first: a refused document changes nothing), then resets. */
  loadFixtures(fixtures: unknown): Fixtures {
    const checked = checkFixtures(structuredClone(fixtures));
    const settings = resolveSettings(this.#givenSettings, checked);
    this.#fixtures = checked;
    this.#settings = settings;
    this.#indexDevices();
    this.restoredAt = undefined;
    this.engine.reset(new Directory(checked, settings.urnWord));
    this.clock.reset();
    this.#loadTokens();
    this.#invocations = [];
    this.#invocationsDropped = 0;
    this.faults.reset();
    this.journal.clear();
    this.beginRecording('fixtures');
    for (const listener of this.#resetListeners) listener();
    return checked;
  }

  /**
   * As a new core with the same settings would be, given these fixtures (the loaded ones when
   * not given) and this seed: what `reset` does, and besides ids, fault draws and tokens from
   * the first of the seed (no reset generation in tokens: U3), a new request journal (ids
   * from 1), the session recording off and empty, the clock virtual at its start. For a stub
   * reused from one scenario to the next (scenarios/runner/scenario-stubs.ts, decision SP1): nothing
   * of the previous scenario is held by anyone, so nothing of it need stay unique.
   */
  renew({ fixtures, seed }: { fixtures?: Fixtures; seed?: number }): void {
    const checked = fixtures === undefined ? undefined : checkFixtures(structuredClone(fixtures));
    if (checked) {
      this.#fixtures = checked;
      this.#settings = resolveSettings(this.#givenSettings, checked);
      this.#indexDevices();
    }
    this.ids.reseed(seed);
    this.engine.reset(checked && new Directory(checked, this.#settings.urnWord));
    if (this.clock.mode !== 'virtual') this.clock.setMode('virtual');
    this.clock.reset();
    this.#tokens = new TokenStore(this.clock, this.ids);
    this.#addFixtureTokens();
    this.#invocations = [];
    this.#faults = new FaultTable(() => this.clock.now(), seed);
    this.#journal = this.#newJournal();
    this.recorder.stop();
    for (const listener of this.#resetListeners) listener();
  }

  #newJournal(): RequestJournal {
    return new RequestJournal(() => this.#settings.journalLimit);
  }

  /** Refresh tokens come from the fixtures; issued tokens do not survive a reset. */
  #loadTokens(): void {
    this.tokens.clear();
    this.#addFixtureTokens();
  }

  #addFixtureTokens(): void {
    for (const account of this.#fixtures.accounts) {
      for (const token of account.refresh_tokens ?? []) {
        this.tokens.addRefreshToken(
          token.token,
          account.subscriber_id,
          token.environment ?? 'pro',
          {
            userId: token.user_id,
            email: token.email,
          },
        );
      }
    }
  }

  #indexDevices(): void {
    this.#devices = new Map(
      this.#fixtures.accounts.flatMap((a) => a.devices.map((d) => [d.id, d])),
    );
  }
}

/** Real and scaled time start at the wall clock; virtual time at a fixed instant. */
function defaultStart(mode: ClockMode | undefined): number | undefined {
  // The one place wall time enters domain time: a running clock starts at "now".
  return mode === 'real' || mode === 'scaled' ? Date.now() : undefined;
}
