/**
 * A stub by URL (`badge-sim stub`, the container, or one in this process reached over HTTP),
 * through its control API. Its clock is the authority: a fleet's badges run on a
 * `FollowerClock` that follows the `welcome` and `clock` frames and asks the stub (`wake`) for
 * a `clock` frame when its next timer is due, so a badge's "acknowledge after 12 s" fires at
 * 12 s of a jump.
 */
import type {
  JournalFilter,
  StubControlClient,
  WaitForEventOptions,
} from '../client/control-client.ts';
import { ServiceError } from '../client/service-client.ts';
import type { CaPem } from '../client/trust.ts';
import { type ClockMode, type TimerId, VirtualClock } from '../clock/clock.ts';
import { holdMessage } from '../clock/hold-message.ts';
import type { Fixtures } from '../fixtures/fixtures.schema.ts';
import {
  DEVICE_WANT_FIELDS,
  type DeviceWant,
  type StubSettings,
} from '../protocol/control-api.schema.ts';
import { DEVICE_WS_PATH, type StubFrame } from '../protocol/device-frames.schema.ts';
import type { FaultRequest } from '../protocol/faults.schema.ts';
import type { BadgeClock, StubConnection, WakeMessenger } from './stub-connection.ts';

export interface HttpStubConnectionOptions {
  /** The CA the stub's certificate chains to, if not one Node trusts. */
  ca?: CaPem;
  /**
   * The error for a stub that cannot be reached (the network failed: refused, reset); `code`
   * is the network's code. By default the fetch error itself.
   */
  unreachable?: (code: string, error: unknown) => Error;
}

export class HttpStubConnection implements StubConnection {
  readonly url: string;
  readonly devicesUrl: string;
  readonly ca: CaPem | undefined;
  readonly socketsPerBadge = 1;
  readonly #control: StubControlClient;
  readonly #unreachable: HttpStubConnectionOptions['unreachable'];
  readonly #holdListeners = new Set<(message: string) => void>();
  #settings: Promise<StubSettings> | undefined;

  /** `control` speaks to the stub at `url`; its refusals are the errors this connection throws. */
  constructor(url: string, control: StubControlClient, options: HttpStubConnectionOptions = {}) {
    this.url = url.replace(/\/+$/, '');
    this.devicesUrl = `${this.url.replace(/^http/, 'ws')}${DEVICE_WS_PATH}`;
    this.ca = options.ca;
    this.#control = control;
    this.#unreachable = options.unreachable;
  }

  settings(): Promise<StubSettings> {
    this.#settings ??= this.#reach(() => this.#control.settings());
    return this.#settings;
  }

  fixtures(): Promise<Fixtures> {
    return this.#reach(() => this.#control.fixtures());
  }

  async prepare(fixtures: Fixtures): Promise<void> {
    await this.#reach(() => this.#control.setClock('virtual'));
    await this.#reach(() => this.#control.loadFixtures(fixtures));
    this.#settings = undefined;
  }

  async now(): Promise<number> {
    return (await this.#reach(() => this.#control.clock())).now_ms;
  }

  async advance(ms: number): Promise<void> {
    const answer = await this.#reach(() => this.#control.advance(ms));
    for (const hold of answer.held_by ?? []) this.#heard(hold.message);
  }

  async settle(): Promise<boolean> {
    // A refusal (a stub without the route) leaves nothing to wait for; a stub gone is said.
    const settle = () =>
      this.#control
        .settle()
        .catch((error) => (error instanceof TypeError ? Promise.reject(error) : { waited: false }));
    return (await this.#reach(settle)).waited;
  }

  onHold(listener: (message: string) => void): () => void {
    this.#holdListeners.add(listener);
    return () => this.#holdListeners.delete(listener);
  }

  tap(deviceId: string) {
    return this.#reach(() => this.#control.tap(deviceId));
  }

  devices() {
    return this.#reach(() => this.#control.devices());
  }

  async waitForDevice(
    deviceId: string,
    { timeoutMs, ...want }: DeviceWant & { timeoutMs: number },
  ): Promise<boolean> {
    // The route refuses a wait that asks nothing; in process it is answered at once.
    if (!DEVICE_WANT_FIELDS.some((field) => want[field] !== undefined)) return true;
    try {
      await this.#reach(() =>
        this.#control.waitForDevice(deviceId, { ...want, timeout: Math.ceil(timeoutMs) }),
      );
      return true;
    } catch (error) {
      if (error instanceof ServiceError && error.status === 408) return false;
      throw error;
    }
  }

  transcript(deviceId: string) {
    return this.#reach(() => this.#control.transcript(deviceId));
  }

  findTask(taskId: string) {
    return this.#reach(() => this.#control.findTask(taskId));
  }

  invocations() {
    return this.#reach(() => this.#control.invocations());
  }

  waitForEvent(options: WaitForEventOptions) {
    return this.#reach(() => this.#control.waitForEvent(options));
  }

  addFault(fault: FaultRequest) {
    return this.#reach(() => this.#control.addFault(fault));
  }

  faults() {
    return this.#reach(() => this.#control.faults());
  }

  removeFault(id: string) {
    return this.#reach(() => this.#control.removeFault(id));
  }

  clearFaults() {
    return this.#reach(() => this.#control.clearFaults());
  }

  journal(filter?: JournalFilter) {
    return this.#reach(() => this.#control.journal(filter));
  }

  async badgeClock(messengers: () => readonly WakeMessenger[]): Promise<BadgeClock> {
    const follower = new FollowerClock(await this.#reach(() => this.#control.clock()), messengers);
    return {
      clock: follower,
      follow: (frame) => follower.follow(frame),
      catchUp: (at) => follower.catchUp(at),
      advanceBy: (ms, settled) => this.#advanceFollowing(follower, ms, settled),
      dispose: () => follower.dispose(),
    };
  }

  async close(): Promise<void> {}

  /**
   * The runner loop of docs/architecture.md (decision 2): the stub moves to the earlier of its
   * target and the fleet's next timer (wakes cover connected badges; this covers a fleet all
   * offline), the fleet catches up, both sides settle, and again.
   */
  async #advanceFollowing(
    follower: FollowerClock,
    ms: number,
    settled: () => Promise<void>,
  ): Promise<void> {
    await settled();
    const target = (await this.now()) + ms;
    for (let step = 0; step < 1_000_000; step++) {
      const next = follower.nextDueAt();
      const to = next !== null && next < target ? next : target;
      await this.#reach(() => this.#control.advance({ to: new Date(to).toISOString() }));
      await follower.catchUp(to);
      await settled();
      if (to >= target) break;
    }
    if (this.#holdListeners.size === 0) return;
    // The stub's device list tells who held the clock meanwhile.
    const bound = (await this.settings()).badgeAnswerTimeoutMs;
    for (const device of await this.devices()) {
      if (device.responsive !== false) continue;
      this.#heard(holdMessage({ deviceId: device.device_id, user: device.user, boundMs: bound }));
    }
  }

  #heard(message: string): void {
    for (const listener of this.#holdListeners) listener(message);
  }

  /** A call of the control API; a network failure becomes the `unreachable` error. */
  async #reach<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (!this.#unreachable || !(error instanceof TypeError)) throw error;
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw this.#unreachable(cause?.code ?? cause?.message ?? error.message, error);
    }
  }
}

/**
 * The fleet's clock when the stub's clock is the authority: a virtual clock that moves only to
 * where the stub's clock is, and that asks the stub to wake it when its next timer is due.
 */
class FollowerClock extends VirtualClock {
  #wakeAt: number | null = null;
  #messenger: WakeMessenger | undefined;
  #wakeQueued = false;

  constructor(
    stubClock: { now_ms: number; mode: ClockMode; scale: number },
    readonly messengers: () => readonly WakeMessenger[],
  ) {
    super({ start: stubClock.now_ms });
    if (stubClock.mode !== 'virtual') this.setMode(stubClock.mode, stubClock.scale);
  }

  override setTimer(delayMs: number, fire: () => void): TimerId {
    const id = super.setTimer(delayMs, fire);
    // Only a virtual stub clock needs waking; in real or scaled time it runs on its own, and
    // every clip of a fan-out would queue a microtask for nothing. `follow` asks for a wake
    // whenever the mode turns virtual, so no timer set meanwhile is missed.
    if (this.mode === 'virtual') this.#queueWake();
    return id;
  }

  /** Moves to `time` if it is ahead (the stub is already there). */
  catchUp(time: number): Promise<void> | undefined {
    // Most frames of a fan-out carry the same instant: nothing to do, and no promise for it.
    if (!(time > this.now())) return undefined;
    return this.catchUpTo(time).then(() => this.#queueWake());
  }

  /** A welcome or clock frame: catch up with the stub's time and mode. */
  async follow(frame: Extract<StubFrame, { type: 'welcome' | 'clock' }>): Promise<void> {
    if (frame.mode !== this.mode || (frame.mode === 'scaled' && frame.scale !== this.state.scale)) {
      this.setMode('virtual');
      await this.catchUpTo(frame.now);
      if (frame.mode !== 'virtual') this.setMode(frame.mode as ClockMode, frame.scale);
    } else {
      await this.catchUpTo(frame.now);
    }
    this.#queueWake();
  }

  /** After the timers change, tell the stub (through any open badge) when to wake us. */
  #queueWake(): void {
    if (this.#wakeQueued) return;
    this.#wakeQueued = true;
    queueMicrotask(() => {
      this.#wakeQueued = false;
      const next = this.nextDueAt();
      if (next === null || this.mode !== 'virtual') return;
      // Due at once (an ack after 0 s): the stub is already at this instant, and a wake for
      // an instant it has told us asks for nothing (W8). Run it here.
      if (next <= this.now()) {
        void this.runDue();
        return;
      }
      // The stub forgets a wake when the badge that asked drops: ask again through another.
      if (next === this.#wakeAt && this.#messenger?.online) return;
      const messenger = this.messengers().find((b) => b.online);
      if (messenger?.requestWake(next)) {
        this.#wakeAt = next;
        this.#messenger = messenger;
      }
    });
  }
}
