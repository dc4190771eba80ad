/**
 * One way to talk to a stub, whichever kind it is: what the scenario runner, a fleet and the
 * vitest fixtures need of it. Two implementations:
 *
 * - `InProcessStubConnection` (in-process-stub-connection.ts): a stub started in this process;
 *   badges share its virtual clock, and the clock waits on its gateway directly;
 * - `HttpStubConnection` (http-stub-connection.ts): any stub by URL (`badge-sim stub`, the
 *   container), through its control API; badges run on a clock that follows the stub's.
 *
 * This file declares the shape only: importing it loads neither fastify nor an HTTP client.
 */

import type { Static } from 'typebox';
import type { JournalFilter, WaitForEventOptions } from '../client/control-client.ts';
import type { CaPem } from '../client/trust.ts';
import type { VirtualClock } from '../clock/clock.ts';
import type { Fixtures } from '../fixtures/fixtures.schema.ts';
import type {
  AwaitedEvent,
  DeviceView,
  DeviceWant,
  StubSettings,
  TapResult,
  TaskView,
  TranscriptEntryView,
  WorkflowInvocation,
} from '../protocol/control-api.schema.ts';
import type { StubFrame } from '../protocol/device-frames.schema.ts';
import type { FaultRequest, FaultsCleared, FaultView } from '../protocol/faults.schema.ts';
import type { FrameSocket } from '../protocol/frame-socket.ts';
import type { JournalPage } from '../protocol/journal.schema.ts';
import type { StubHandle } from '../server-stub/start-stub.ts';

/**
 * What a fleet may be given to reach its stub: a stub started in this process (its handle), the
 * base URL of a running one, or a connection already made. Named here, below the simulator, so
 * that a fleet's options never name the server's types themselves.
 */
export type StubTarget = StubHandle | string | StubConnection;

export interface StubConnection {
  /** The stub's base URL (service, trigger and control APIs). */
  readonly url: string;
  /** Where virtual badges connect (`ws://` or `wss://`). */
  readonly devicesUrl: string;
  /** The CA a client of this stub trusts besides Node's, if it has one of its own. */
  readonly ca: CaPem | undefined;
  /**
   * Connects a badge without a socket, when the stub runs in this process and the caller asked
   * for it (decision SP5); otherwise badges connect to `devicesUrl`. The scenario runner's
   * own: not part of the published types.
   * @internal
   */
  readonly dialDevice?: () => FrameSocket;
  /**
   * Files of this process each badge's connection holds: 1 for a socket to a stub elsewhere
   * (the default), 2 for one to a stub in this process (both ends are here), 0 for a badge that
   * dials without a socket. A fleet checks its size against the process's limit with it (SC2).
   */
  readonly socketsPerBadge?: number;

  settings(): Promise<StubSettings>;
  fixtures(): Promise<Fixtures>;
  /** Replaces the fixtures (the stub resets) and puts the clock on virtual time. */
  prepare(fixtures: Fixtures): Promise<void>;

  /** The stub's time (ms since epoch). */
  now(): Promise<number>;
  /** Moves the stub's clock on by `ms`, without a fleet (a fleet moves time with its `BadgeClock`). */
  advance(ms: number): Promise<void>;
  /** Waits until the stub has no frame out to a badge unhandled; true when it had to wait. */
  settle(): Promise<boolean>;
  /**
   * Hears each badge the clock went on without (it did not answer within the bound), as the
   * message the control API gives. Returns the function that stops listening.
   */
  onHold(listener: (message: string) => void): () => void;

  /**
   * A badge of the fleet vanished from the network (its socket silent, not closed): a stub in
   * this process is told, so its clock does not wait the answer bound for it (decision SP2).
   * Absent for a stub in another process: it learns as a real service would, by the bound.
   */
  vanished?(deviceId: string): void;

  /** Presses a device's talk button through the control API, as if by hand. */
  tap(deviceId: string): Promise<Static<typeof TapResult>>;
  /** The devices as the stub sees them: online, responsive, … */
  devices(): Promise<Static<typeof DeviceView>[]>;
  /**
   * Resolves true once the stub sees the device as `want`ed (online or not, a battery level,
   * status or low, as `devices()` shows them; at once if it already does), false when
   * `timeoutMs` of real time pass first: told by the gateway, not polled. A `want` of no field
   * asks nothing: true at once.
   */
  waitForDevice(deviceId: string, want: DeviceWant & { timeoutMs: number }): Promise<boolean>;
  transcript(deviceId: string): Promise<Static<typeof TranscriptEntryView>[]>;
  /** A task, or undefined when the stub does not know it (never created, or forgotten). */
  findTask(taskId: string): Promise<Static<typeof TaskView> | undefined>;
  invocations(): Promise<WorkflowInvocation[]>;
  /**
   * The first analytic event that matches, as soon as there is one (`advance` moves the
   * virtual clock to it); no match in time throws a ServiceError with status 408.
   */
  waitForEvent(options: WaitForEventOptions): Promise<AwaitedEvent>;
  /**
   * One page of the request journal (`GET /_stub/journal`): what the emulated APIs received
   * and answered, oldest first; the page's `next` as `after` gives the next one.
   */
  journal(filter?: JournalFilter): Promise<JournalPage>;

  /** Adds a fault on the stub's emulated APIs (`POST /_stub/faults`). */
  addFault(fault: FaultRequest): Promise<FaultView>;
  faults(): Promise<FaultView[]>;
  /** Removes a fault by id; a ServiceError 404 when there is none. */
  removeFault(id: string): Promise<FaultView>;
  clearFaults(): Promise<FaultsCleared>;

  /** The clock a fleet's badges run on, and how a fleet moves time (see `BadgeClock`). */
  badgeClock(messengers: () => readonly WakeMessenger[]): Promise<BadgeClock>;

  /** Ends the connection; a stub the connection started is stopped. */
  close(): Promise<void>;
}

/** A badge the clock can ask the stub through for a `clock` frame when its next timer is due. */
export interface WakeMessenger {
  readonly online: boolean;
  requestWake(at: number): boolean;
}

/** The clock of a fleet's badges and how the fleet moves domain time on it. */
export interface BadgeClock {
  readonly clock: VirtualClock;
  /** A `welcome` or `clock` frame of the stub; undefined when the badges share the stub's clock. */
  readonly follow?: (frame: Extract<StubFrame, { type: 'welcome' | 'clock' }>) => Promise<void>;
  /** The time a stub frame carries; undefined when the badges share the stub's clock. */
  readonly catchUp?: (at: number) => Promise<void> | undefined;
  /** Moves the stub and the badges on by `ms`; `settled` waits until both sides are quiet. */
  advanceBy(ms: number, settled: () => Promise<void>): Promise<void>;
  dispose(): void;
}
