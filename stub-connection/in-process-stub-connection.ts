/**
 * A stub started in this process (`startStub`): badges share its virtual clock, and a fleet
 * waits on its device gateway directly. What a test reads of the stub (settings, devices,
 * tasks) still goes over its control API on the real port, as for any other stub.
 */
import type {
  JournalFilter,
  StubControlClient,
  WaitForEventOptions,
} from '../client/control-client.ts';
import type { CaPem } from '../client/trust.ts';
import { holdMessage } from '../clock/hold-message.ts';
import type { Fixtures } from '../fixtures/fixtures.schema.ts';
import type { DeviceWant, StubSettings } from '../protocol/control-api.schema.ts';
import type { FaultRequest } from '../protocol/faults.schema.ts';
import type { FrameSocket } from '../protocol/frame-socket.ts';
import type { StubHandle } from '../server-stub/start-stub.ts';
import type { BadgeClock, StubConnection } from './stub-connection.ts';

export class InProcessStubConnection implements StubConnection {
  readonly url: string;
  readonly devicesUrl: string;
  readonly ca: CaPem | undefined;
  /** @internal */
  readonly dialDevice: (() => FrameSocket) | undefined;
  /** Both ends of each badge's socket are in this process, or none with `dialDevice`. */
  get socketsPerBadge(): number {
    return this.dialDevice ? 0 : 2;
  }
  readonly #stub: StubHandle;
  readonly #control: () => StubControlClient;
  readonly #ownsStub: boolean;

  /**
   * `control`: the control client of this stub (made on first use: a fleet never needs one);
   * `ownsStub`: `close()` stops the stub too; `inProcessDevices`: badges connect to the
   * gateway without a socket (decision SP5), not over WebSocket.
   */
  constructor(
    stub: StubHandle,
    options: {
      control: () => StubControlClient;
      ownsStub?: boolean;
      /** @internal */
      inProcessDevices?: boolean;
    },
  ) {
    this.#stub = stub;
    this.url = stub.url;
    this.devicesUrl = stub.devicesUrl;
    this.ca = stub.tls?.caPem;
    this.dialDevice = options.inProcessDevices
      ? () => stub.app.gateway.connectInProcess()
      : undefined;
    let control: StubControlClient | undefined;
    this.#control = () => {
      control ??= options.control();
      return control;
    };
    this.#ownsStub = options.ownsStub ?? false;
  }

  settings(): Promise<StubSettings> {
    return this.#control().settings();
  }

  async fixtures(): Promise<Fixtures> {
    return this.#stub.core.fixtures;
  }

  async prepare(fixtures: Fixtures): Promise<void> {
    await this.#control().setClock('virtual');
    await this.#control().loadFixtures(fixtures);
  }

  async now(): Promise<number> {
    return this.#stub.core.clock.now();
  }

  async advance(ms: number): Promise<void> {
    await this.#stub.core.clock.advanceBy(ms);
  }

  settle(): Promise<boolean> {
    return this.#stub.app.gateway.quiet();
  }

  onHold(listener: (message: string) => void): () => void {
    return this.#stub.app.gateway.onHold((hold) => listener(holdMessage(hold)));
  }

  vanished(deviceId: string): void {
    this.#stub.app.gateway.vanished(deviceId);
  }

  tap(deviceId: string) {
    return this.#control().tap(deviceId);
  }

  devices() {
    return this.#control().devices();
  }

  async waitForDevice(
    deviceId: string,
    { timeoutMs, ...want }: DeviceWant & { timeoutMs: number },
  ): Promise<boolean> {
    const outcome = await this.#stub.app.gateway.deviceWaiters.wait(deviceId, want, { timeoutMs });
    return outcome === 'now';
  }

  transcript(deviceId: string) {
    return this.#control().transcript(deviceId);
  }

  findTask(taskId: string) {
    return this.#control().findTask(taskId);
  }

  invocations() {
    return this.#control().invocations();
  }

  waitForEvent(options: WaitForEventOptions) {
    return this.#control().waitForEvent(options);
  }

  addFault(fault: FaultRequest) {
    return this.#control().addFault(fault);
  }

  faults() {
    return this.#control().faults();
  }

  removeFault(id: string) {
    return this.#control().removeFault(id);
  }

  clearFaults() {
    return this.#control().clearFaults();
  }

  // Through the control API, as the other reads: a filter is refused as the route refuses it.
  journal(filter?: JournalFilter) {
    return this.#control().journal(filter);
  }

  async badgeClock(): Promise<BadgeClock> {
    const clock = this.#stub.core.clock;
    return {
      clock,
      advanceBy: async (ms) => {
        await clock.advanceBy(ms);
      },
      dispose: () => {},
    };
  }

  async close(): Promise<void> {
    if (this.#ownsStub) await this.#stub.close();
  }
}
