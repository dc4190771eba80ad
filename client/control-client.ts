/**
 * A client of the stub's control API (`/_stub`): what a test suite uses to set a stub up,
 * move its clock and look inside it. It works the same against an embedded stub, a
 * `badge-sim stub` process and the container. A refused call throws ServiceError with the
 * status and the body. A stub whose control API is locked wants its control token: give it
 * as `controlToken` and every call sends it in the `X-Badge-Sim-Control-Token` header.
 */
import type { Fixtures } from '../fixtures/fixtures.schema.ts';
import {
  type AwaitedEvent,
  type ClockAdvance,
  type ClockAdvanced,
  type ClockView,
  CONTROL_PREFIX,
  controlTokenHeaders,
  controlTokenProblem,
  DEVICE_WANT_FIELDS,
  type DeviceAwaited,
  type DeviceView,
  type DeviceWant,
  type EnvironmentName,
  type GenerateRequest,
  type Health,
  type RefreshTokenIssued,
  type RefreshTokenRequest,
  type Revoked,
  type Settled,
  type StubSettings,
  type TapResult,
  type TaskView,
  type TranscriptEntryView,
  type WorkflowInvocation,
} from '../protocol/control-api.schema.ts';
import { EventStreamParser } from '../protocol/event-stream.ts';
import type { FaultRequest, FaultsCleared, FaultView } from '../protocol/faults.schema.ts';
import {
  JOURNAL_PAGE_MAX,
  type JournalCleared,
  type JournalEntry,
  type JournalPage,
  type JournalQuery,
} from '../protocol/journal.schema.ts';
import type { DeviceSwitched, LiveSnapshot, LiveUpdate } from '../protocol/live-stream.schema.ts';
import type { Recording, RecordingCleared } from '../protocol/recording.schema.ts';
import type { AnalyticEvent } from '../protocol/service-api.schema.ts';
import { readBody, ServiceError } from './service-client.ts';
import { type SnapshotOptions, snapshotQuery, type WorldSnapshot } from './snapshot-query.ts';
import { type CaPem, fetchTrusting } from './trust.ts';

/** A message of the live stream (`StubControlClient.stream`). */
export type LiveMessage =
  | { name: 'snapshot'; data: LiveSnapshot }
  | { name: 'update'; data: LiveUpdate };

export interface StubControlClientOptions {
  /** The control token of a locked stub (`--control-token`); sent with every call. */
  controlToken?: string;
  /** PEM of a CA to trust besides Node's: an `https://` stub's own (`StubHandle.tls.caPem`). */
  ca?: CaPem;
  /** Sends with this fetch instead of the global one (it then decides what to trust; `ca` is not used). */
  fetch?: typeof fetch;
}

/** What `waitForEvent` waits for, and how long (`GET /_stub/events/await`). */
export interface WaitForEventOptions {
  /** The event type: `start`, `acknowledged`, `timed_out` or `end`. */
  type?: AnalyticEvent['content']['type'];
  /** A task id (`task_id` of the POST that created it). */
  task?: string;
  /** The badge that acknowledged: its user (as events name it) or its device id. */
  device?: string;
  /** The account; default: every account. */
  subscriberId?: string;
  /** The oldest event that answers (ISO 8601); default: every event still kept. */
  oldest?: string;
  /** How long to wait in real time (`'200ms'`, `'5s'`, ms): default 5 s, at most 60 s. */
  timeout?: string | number;
  /**
   * On the virtual clock: move the clock on, timer by timer, up to the event. `true` moves it
   * at most 1 h; a duration (`'10m'`, ms) sets that bound.
   */
  advance?: boolean | string | number;
}

/** Which journal entries `journal` lists (`GET /_stub/journal`); `fault` as a boolean. */
export type JournalFilter = Omit<JournalQuery, 'fault'> & { fault?: boolean };

/**
 * Every journal entry that matches, page after page, from anything that lists journal pages
 * (a `StubControlClient`, a `StubConnection`).
 */
export async function allJournalEntries(
  source: { journal(filter: JournalFilter): Promise<JournalPage> },
  filter: Omit<JournalFilter, 'after' | 'limit'> = {},
): Promise<JournalEntry[]> {
  const entries: JournalEntry[] = [];
  let after: number | undefined;
  do {
    const page = await source.journal({ ...filter, after, limit: JOURNAL_PAGE_MAX });
    entries.push(...page.entries);
    after = page.next ?? undefined;
  } while (after !== undefined);
  return entries;
}

export class StubControlClient {
  readonly #base: string;
  readonly #headers: Record<string, string>;
  readonly #fetch: typeof fetch;

  /** `stubUrl`: the stub's base URL (`http://127.0.0.1:8080`), without `/_stub`. */
  constructor(stubUrl: string, options: StubControlClientOptions = {}) {
    this.#base = `${stubUrl.replace(/\/+$/, '')}${CONTROL_PREFIX}`;
    if (options.controlToken !== undefined) {
      const problem = controlTokenProblem(options.controlToken);
      if (problem) throw new TypeError(`badge-sim: controlToken ${problem}`);
    }
    this.#headers = controlTokenHeaders(options.controlToken);
    this.#fetch = options.fetch ?? fetchTrusting(options.ca);
  }

  health(): Promise<Health> {
    return this.#call('GET', '/health');
  }

  /** Back to the loaded fixtures: no tasks, events or transcripts; ids restart from the seed. */
  reset(): Promise<Health> {
    return this.#call('POST', '/reset');
  }

  settings(): Promise<StubSettings> {
    return this.#call('GET', '/settings');
  }

  fixtures(): Promise<Fixtures> {
    return this.#call('GET', '/fixtures');
  }

  /** Replaces the fixtures (and resets); a refusal names the field. */
  loadFixtures(fixtures: Fixtures): Promise<unknown> {
    return this.#call('PUT', '/fixtures', fixtures);
  }

  generateFixtures(request: GenerateRequest): Promise<Fixtures> {
    return this.#call('POST', '/fixtures/generate', request);
  }

  clock(): Promise<ClockView> {
    return this.#call('GET', '/clock');
  }

  setClock(mode: 'virtual' | 'real' | 'scaled', scale?: number): Promise<ClockView> {
    return this.#call('PUT', '/clock', scale === undefined ? { mode } : { mode, scale });
  }

  /** Moves a virtual clock on (`'30s'`, `'2h'`, ms) or to an instant; due timers fire in order. */
  advance(by: string | number | { to: string }): Promise<ClockAdvanced> {
    const body: ClockAdvance = typeof by === 'object' ? by : { by };
    return this.#call('POST', '/clock/advance', body);
  }

  /** Waits until every frame sent to a badge has been handled. */
  settle(): Promise<Settled> {
    return this.#call('POST', '/settle');
  }

  devices(): Promise<DeviceView[]> {
    return this.#call('GET', '/devices');
  }

  transcript(deviceId: string): Promise<TranscriptEntryView[]> {
    return this.#call('GET', `/devices/${encodeURIComponent(deviceId)}/transcript`);
  }

  /**
   * Waits until the stub sees the device as asked: `online` (its hello accepted) or not (its
   * connection closed), a `battery_level`, `battery_status` or `battery_low` (its reports, as
   * `devices()` shows them); every field given must hold, at least one is needed. At once
   * when it already is. `timeout`: real time (`'200ms'`, `'5s'`, ms), default 5 s, at most
   * 60 s; none in time throws a ServiceError with status 408.
   */
  waitForDevice(
    deviceId: string,
    want: DeviceWant & { timeout?: string | number },
  ): Promise<DeviceAwaited> {
    const query = new URLSearchParams();
    for (const field of DEVICE_WANT_FIELDS) {
      if (want[field] !== undefined) query.set(field, String(want[field]));
    }
    if (want.timeout !== undefined) query.set('timeout', String(want.timeout));
    return this.#call('GET', `/devices/${encodeURIComponent(deviceId)}/await?${query}`);
  }

  /** Presses a device's talk button, as if by hand. */
  tap(deviceId: string): Promise<TapResult> {
    return this.#call('POST', `/devices/${encodeURIComponent(deviceId)}/tap`);
  }

  tasks(): Promise<TaskView[]> {
    return this.#call('GET', '/tasks');
  }

  /** Takes a badge the stub runs (`badge-sim stub --badges`) off the network; 409 for others. */
  takeOffline(deviceId: string): Promise<DeviceSwitched> {
    return this.#call('POST', `/devices/${encodeURIComponent(deviceId)}/offline`);
  }

  /** Brings back a badge the stub runs (`badge-sim stub --badges`); 409 for others. */
  bringBack(deviceId: string): Promise<DeviceSwitched> {
    return this.#call('POST', `/devices/${encodeURIComponent(deviceId)}/online`);
  }

  /** What the dashboard shows now: clock, devices, tasks, the newest events (`/stream?once=true`). */
  async liveSnapshot(): Promise<LiveSnapshot> {
    for await (const message of this.stream({ once: true })) {
      if (message.name === 'snapshot') return message.data;
    }
    throw this.refusal(502, undefined, `GET ${CONTROL_PREFIX}/stream: it ended without a snapshot`);
  }

  /**
   * The live stream: a snapshot, then updates as things change (and a snapshot again after a
   * reset), until `signal` aborts or the stub stops. `once` ends it after the snapshot.
   */
  async *stream(
    options: { signal?: AbortSignal; once?: boolean } = {},
  ): AsyncGenerator<LiveMessage> {
    const response = await this.#fetch(`${this.#base}/stream${options.once ? '?once=true' : ''}`, {
      headers: this.#headers,
      signal: options.signal,
    });
    if (!response.ok || !response.body)
      throw this.refusal(response.status, await readBody(response), `GET ${CONTROL_PREFIX}/stream`);
    const parser = new EventStreamParser();
    const decoder = new TextDecoder();
    for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
      for (const { name, data } of parser.push(decoder.decode(chunk, { stream: true }))) {
        if (name === 'snapshot' || name === 'update')
          yield { name, data: JSON.parse(data) } as LiveMessage;
      }
    }
  }

  task(taskId: string): Promise<TaskView> {
    return this.#call('GET', `/tasks/${encodeURIComponent(taskId)}`);
  }

  /** One task, or undefined when the stub does not know it (never created, or forgotten 7 days after it ended). */
  async findTask(taskId: string): Promise<TaskView | undefined> {
    const response = await this.#fetch(`${this.#base}/tasks/${encodeURIComponent(taskId)}`, {
      headers: this.#headers,
    });
    const answer = await readBody(response);
    if (response.status === 404) return undefined;
    if (!response.ok)
      throw this.refusal(response.status, answer, `GET ${CONTROL_PREFIX}/tasks/${taskId}`);
    return answer as TaskView;
  }

  /**
   * The first analytic event that matches, as soon as there is one (one already recorded
   * answers at once), with the account and the clock's now. No match in time throws a
   * ServiceError with status 408.
   */
  waitForEvent(options: WaitForEventOptions = {}): Promise<AwaitedEvent> {
    const query = new URLSearchParams();
    const add = (name: string, value: string | number | undefined) => {
      if (value !== undefined) query.set(name, String(value));
    };
    add('type', options.type);
    add('task', options.task);
    add('device', options.device);
    add('subscriber_id', options.subscriberId);
    add('oldest', options.oldest);
    add('timeout', options.timeout);
    if (options.advance !== undefined && options.advance !== false) {
      add('advance', 'true');
      if (options.advance !== true) add('advance_max', options.advance);
    }
    const search = query.size > 0 ? `?${query}` : '';
    return this.#call('GET', `/events/await${search}`);
  }

  /**
   * Adds a fault on the emulated APIs (a status answer, latency, a reset connection or a
   * stalled body) for the requests it matches; answers it as stored, with its id.
   */
  addFault(fault: FaultRequest): Promise<FaultView> {
    return this.#call('POST', '/faults', fault);
  }

  /** Every fault, oldest first, with how many requests each applied to and has left. */
  faults(): Promise<FaultView[]> {
    return this.#call('GET', '/faults');
  }

  /** Removes a fault (a ServiceError 404 when there is none with that id); answers it. */
  removeFault(id: string): Promise<FaultView> {
    return this.#call('DELETE', `/faults/${encodeURIComponent(id)}`);
  }

  /** Removes every fault (a reset does too). */
  clearFaults(): Promise<FaultsCleared> {
    return this.#call('DELETE', '/faults');
  }

  /**
   * One page of the request journal: what the emulated APIs received and answered, oldest
   * first, secrets masked. Give the page's `next` as `after` for the next one.
   */
  journal(filter: JournalFilter = {}): Promise<JournalPage> {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(filter))
      if (value !== undefined) query.set(name, String(value));
    const search = query.size > 0 ? `?${query}` : '';
    return this.#call('GET', `/journal${search}`);
  }

  /** Every journal entry that matches, page after page (at most the journal's cap). */
  allJournal(filter: Omit<JournalFilter, 'after' | 'limit'> = {}): Promise<JournalEntry[]> {
    return allJournalEntries(this, filter);
  }

  /** Empties the request journal; answers how many entries it held. */
  clearJournal(): Promise<JournalCleared> {
    return this.#call('DELETE', '/journal');
  }

  /**
   * The session recording so far (`GET /_stub/recording`): what `badge-sim record` turns into a
   * scenario, as JSON.
   */
  recording(): Promise<Recording> {
    return this.#call('GET', '/recording');
  }

  /**
   * Starts recording afresh (`POST /_stub/recording`): from the fixtures and badges as they are
   * now; answers how many records the recording held before.
   */
  startRecording(): Promise<RecordingCleared> {
    return this.#call('POST', '/recording');
  }

  /** Stops recording and empties it; answers how many records it held. */
  stopRecording(): Promise<RecordingCleared> {
    return this.#call('DELETE', '/recording');
  }

  invocations(): Promise<WorkflowInvocation[]> {
    return this.#call('GET', '/workflows/invocations');
  }

  /**
   * A new refresh token for a user of an account (it never expires; keep it out of logs). The
   * user is what oauth2/validate answers: `user-<subscriber id>` unless given.
   */
  async issueRefreshToken(
    subscriberId: string,
    environment: EnvironmentName = 'pro',
    user: Pick<RefreshTokenRequest, 'user_id' | 'email'> = {},
  ): Promise<string> {
    const request: RefreshTokenRequest = { subscriber_id: subscriberId, environment, ...user };
    const answer = await this.#call<RefreshTokenIssued>('POST', '/tokens/refresh', request);
    return answer.refresh_token;
  }

  revokeRefreshToken(refreshToken: string): Promise<Revoked> {
    return this.#call('POST', '/tokens/revoke', { refresh_token: refreshToken });
  }

  /** The whole world now, one document to give back with `restore` (WS1–WS19). */
  snapshot(options: SnapshotOptions = {}): Promise<WorldSnapshot> {
    return this.#call('GET', `/snapshot${snapshotQuery(options)}`);
  }
  /** Puts a world back (taken of this stub or another), all or nothing: 400 naming the field. */
  restore(snapshot: WorldSnapshot): Promise<Health> {
    return this.#call('PUT', '/snapshot', snapshot);
  }

  /** The error a refused call throws (a subclass can throw its own kind). */
  protected refusal(status: number, body: unknown, what: string): Error {
    return new ServiceError(status, body, what);
  }

  async #call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await this.#fetch(`${this.#base}${path}`, {
      method,
      headers:
        body === undefined
          ? this.#headers
          : { ...this.#headers, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer = await readBody(response);
    if (!response.ok)
      throw this.refusal(response.status, answer, `${method} ${CONTROL_PREFIX}${path}`);
    return answer as T;
  }
}
