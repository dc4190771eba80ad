/**
 * The device gateway: virtual badges connect here over WebSocket (on the stub's own port, at
 * DEVICE_WS_PATH). It keeps a registry of connected badges and their live state, delivers the
 * engine's plays, stops and speech to them, and feeds their taps back to the engine. It
 * composes the parts of that work: the handshake (device-handshake.ts), frame validation
 * (frame-validation.ts), the clock-hold accounting that keeps the virtual clock honest across
 * the wire (clock-holds.ts), and delivery: frames to badges (device-connection.ts, each badge's
 * queue; frame-delivery.ts, flushes in chunks; badge-clock.ts, the clock as badges are told it;
 * command-frames.ts), and what badges report (badge-reports.ts).
 */
import type { Server } from 'node:http';
import { WebSocketServer } from 'ws';
import type { DeviceFacts } from '../protocol/control-api.schema.ts';
import { CLOSE_CODES, DEVICE_PROTOCOL_VERSION } from '../protocol/device-frames.schema.ts';
import type { FrameSocket } from '../protocol/frame-socket.ts';
import { BadgeClock } from './badge-clock.ts';
import { pressButton, reportState } from './badge-reports.ts';
import { type ClockHold, ClockHolds, checkBadgeAnswerTimeout } from './clock-holds.ts';
import { CommandFrames } from './command-frames.ts';
import { Connection, type ConnectionStats, CutOffSockets } from './device-connection.ts';
import { type Hello, helloRefusal, takeUpgrades, welcomeLiveState } from './device-handshake.ts';
import type { DeviceLiveState } from './device-live-state.ts';
import { DeviceLiveStates } from './device-live-states.ts';
import { DeviceWaiters } from './device-waiters.ts';
import type { DeviceCommand } from './engine/alert-engine.ts';
import { FlushQueue } from './frame-delivery.ts';
import { FrameProblem, readBadgeFrame } from './frame-validation.ts';
import { InProcessSocket } from './in-process-socket.ts';
import { resumesSeamlessly } from './snapshot/world-snapshot.ts';
import type { StubCore } from './stub-core.ts';
import { timerDelay } from './timer-delay.ts';

// The bounds of its option, where the command line has always read them.
export { BADGE_ANSWER_TIMEOUT_MAX_MS, BADGE_ANSWER_TIMEOUT_MIN_MS } from './clock-holds.ts';

export interface DeviceGatewayOptions {
  /** Real time a new connection has to say hello (a transport guard, not domain time). */
  helloTimeoutMs?: number;
  /** Real time the clock waits for one badge's answer; the stub setting by default. */
  answerTimeoutMs?: number;
  /** Real time a connection being cut off has to take its close frame before it is dropped. */
  cutOffGraceMs?: number;
}

export class DeviceGateway {
  readonly #core: StubCore;
  readonly #wss: WebSocketServer;
  readonly #connections = new Map<string, Connection>();
  readonly #all = new Set<Connection>();
  /** Sockets cut off (4003, 4008, 4009) whose close has not finished yet. */
  readonly #cutOffSockets: CutOffSockets;
  readonly #liveStates: DeviceLiveStates;
  readonly #helloTimeoutMs: number;
  readonly #unsubscribe: (() => void)[] = [];
  readonly #deviceListeners = new Set<(deviceId: string, online?: boolean) => void>();
  /** What the virtual clock waits for: the frames badges have not handled yet. */
  readonly #holds: ClockHolds;
  /** The clock as badges are told it, and their wakes. */
  readonly #badgeClock: BadgeClock;
  /** Writes queued in real and scaled time, flushed in chunks (decision D12). */
  readonly #flushQueue = new FlushQueue();
  /** The engine's commands as frames, serialised once for a fan-out's devices. */
  readonly #commandFrames = new CommandFrames();
  /** Waits for a device to be as asked, told of each connect, close and state report. */
  readonly deviceWaiters = new DeviceWaiters((deviceId) => this.facts(deviceId));

  constructor(core: StubCore, options: DeviceGatewayOptions = {}) {
    this.#core = core;
    this.#liveStates = new DeviceLiveStates(core);
    this.#helloTimeoutMs = options.helloTimeoutMs ?? 10_000;
    const answerTimeoutMs = checkBadgeAnswerTimeout(
      options.answerTimeoutMs ?? core.settings.badgeAnswerTimeoutMs,
    );
    this.#holds = new ClockHolds(core.clock, answerTimeoutMs, {
      all: this.#all,
      unresponsive: (connection, waitedMs) =>
        this.#unresponsive(connection, waitedMs, answerTimeoutMs),
      responsive: (connection) => {
        if (connection.deviceId !== undefined)
          this.#liveStates.markResponsive(connection.deviceId, true);
      },
    });
    this.#badgeClock = new BadgeClock(core.clock, this.#holds);
    this.#cutOffSockets = new CutOffSockets(options.cutOffGraceMs ?? 5_000);
    this.#wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
    this.#wss.on('connection', (ws) => this.#accept(ws));
    this.#unsubscribe.push(
      core.engine.onDeliver((deviceId, command) => this.#deliver(deviceId, command)),
      core.clock.onSettle(() => this.quiet()),
      core.onClockChange(() => this.#announceClock()),
      // A new session of the recording begins with the badges connected already (RS4).
      core.recorder.onSession(() => {
        for (const device of this.#connections.keys())
          core.recorder.add('connect', { device, replaced: false, already: true });
      }),
      core.onReset(() => {
        this.#forgetLiveState();
        this.deviceWaiters.interruptAll('reset');
      }),
    );
  }

  /** Takes WebSocket upgrades for DEVICE_WS_PATH on a server; other upgrades get 400. */
  attach(server: Server): void {
    takeUpgrades(server, this.#wss);
  }

  /**
   * A badge in this process connecting without a socket (decision SP5): the badge's end of an
   * in-process pair whose other end this gateway serves as it serves an upgraded WebSocket.
   */
  connectInProcess(): FrameSocket {
    const [badgeEnd, stubEnd] = InProcessSocket.pair();
    this.#accept(stubEnd);
    return badgeEnd;
  }

  /** Ids of the badges connected now. */
  connected(): string[] {
    return [...this.#connections.keys()];
  }

  /** Ids of the connected badges counted unresponsive now, in order. */
  unresponsive(): string[] {
    const ids: string[] = [];
    for (const [id, connection] of this.#connections) if (!connection.responsive) ids.push(id);
    return ids.sort();
  }

  /** What the gateway holds for each connection, hello said or not. */
  connectionStats(): ConnectionStats[] {
    return [...this.#all].map((c) => ({
      deviceId: c.deviceId,
      pending: c.pending.size,
      responsive: c.responsive,
    }));
  }

  /** Live state of a device (offline and unknown until it first connects). */
  liveState(deviceId: string): DeviceLiveState {
    return this.#liveStates.get(deviceId);
  }

  /** What the stub shows of a device (`GET /_stub/devices`): online, battery. */
  facts(deviceId: string): DeviceFacts {
    return this.#liveStates.facts(deviceId);
  }

  /** Like `settled`; resolves to whether there was anything to wait for. */
  quiet(): Promise<boolean> {
    return this.#holds.quiet();
  }

  /**
   * Resolves once every frame sent to a responsive badge has been handled, or without the
   * badges that answered nothing for `badgeAnswerTimeoutMs` (clock-holds.ts).
   */
  settled(): Promise<void> {
    return this.#holds.settled();
  }

  /**
   * A badge in this process says the network vanished under its connection (the `vanish`
   * behaviour and step): the stub still holds the socket, half-open, and sees the device
   * online, as it was not told. But nothing will answer on it, so when the clock would wait
   * for it, it is counted unresponsive at once, as it would be after `badgeAnswerTimeoutMs`
   * of real time, and the same hold is told (decision SP2). Until its badge says hello again
   * on a new socket, which replaces this one.
   */
  vanished(deviceId: string): void {
    const connection = this.#connections.get(deviceId);
    if (!connection) return;
    this.#holds.silent(connection);
  }

  /** Listens for badges the clock went on without; returns a function that stops listening. */
  onHold(listener: (hold: ClockHold) => void): () => void {
    return this.#holds.onHold(listener);
  }

  /**
   * Listens for each connect, close and state report of a device (the live stream): `online`
   * is given when it went offline or came online (not for a state report, nor a hello that
   * replaces a connection the stub still held). Returns a function that stops listening.
   */
  onDeviceChange(listener: (deviceId: string, online?: boolean) => void): () => void {
    this.#deviceListeners.add(listener);
    return () => this.#deviceListeners.delete(listener);
  }

  /** A device connected, closed or reported its state: its waiters and listeners look again. */
  #changed(deviceId: string, online?: boolean): void {
    this.deviceWaiters.changed(deviceId);
    for (const listener of this.#deviceListeners) listener(deviceId, online);
  }

  /** The badge held the clock past the bound: the stub shows it unresponsive, since now. */
  #unresponsive(connection: Connection, waitedMs: number, boundMs: number): ClockHold | undefined {
    const id = connection.deviceId;
    if (id === undefined) return undefined;
    this.#liveStates.markResponsive(id, false);
    const user = this.#core.directory.device(id)?.user ?? id;
    return { deviceId: id, user, waitedMs: Math.round(waitedMs), boundMs };
  }

  /** Closes every badge connection (1001) and stops listening to the engine. */
  async close(): Promise<void> {
    for (const off of this.#unsubscribe) off();
    this.deviceWaiters.interruptAll('closing');
    for (const connection of this.#all) connection.close(CLOSE_CODES.shutdown, 'stub stopping');
    await new Promise<void>((resolve) => this.#wss.close(() => resolve()));
    for (const connection of this.#all) connection.ws.terminate();
    this.#cutOffSockets.terminateAll();
  }

  #accept(ws: FrameSocket): void {
    const connection = new Connection(ws, this.#core.settings.badgeMaxQueuedBytes);
    connection.onTooSlow = (queued) =>
      this.#cutOff(connection, CLOSE_CODES.tooSlow, `too slow: ${queued} bytes queued`, {
        drop: true,
      });
    connection.onQueued = (queuedOn) => this.#flushQueue.schedule(queuedOn);
    // On the virtual clock frames go at once, as the clock's settling has always seen them.
    connection.deferWrites = () => this.#core.clock.mode !== 'virtual';
    this.#all.add(connection);
    // Transport guard in real time, like any server's handshake timeout.
    connection.helloTimer = setTimeout(() => {
      this.#sendError(connection, 'hello_timeout', `no hello within ${this.#helloTimeoutMs} ms`);
      connection.close(CLOSE_CODES.helloTimeout, 'no hello');
    }, timerDelay(this.#helloTimeoutMs));
    ws.on('message', (data, isBinary) => this.#receive(connection, data.toString(), isBinary));
    ws.on('close', () => this.#closed(connection));
    ws.on('error', () => ws.terminate());
  }

  #receive(connection: Connection, text: string, isBinary: boolean): void {
    // Cut off or closing: what it still sends is not read.
    if (!connection.open) return;
    const valid = readBadgeFrame(text, isBinary);
    if (valid instanceof FrameProblem) {
      this.#sendError(connection, valid.code, valid.message, valid.field, valid.inReplyTo);
      return;
    }
    if (valid.type === 'handled') {
      this.#holds.handled(connection, valid.seq);
      return;
    }
    if (valid.type === 'hello') this.#hello(connection, valid);
    else if (connection.deviceId === undefined) {
      this.#sendError(
        connection,
        'hello_first',
        `say hello before sending ${valid.type}`,
        'type',
        valid.seq,
      );
    } else if (valid.type === 'button') {
      const refused = pressButton(this.#core, connection.deviceId, valid);
      if (refused)
        this.#sendError(connection, refused.code, refused.message, refused.field, valid.seq);
    } else if (valid.type === 'state') {
      const id = connection.deviceId;
      reportState(this.#core, this.#liveStates.of(id), id, valid);
      this.#changed(id);
    } else if (valid.type === 'wake') this.#badgeClock.wake(connection, valid.at);
    // A state report is telemetry: nothing waits for it, so it is not answered.
    if (connection.open && valid.type !== 'state') connection.handled(valid.seq);
  }

  #hello(connection: Connection, hello: Hello): void {
    const previous = this.#connections.get(hello.device_id);
    const refusal = helloRefusal(this.#core, connection, hello, previous);
    if (refusal) {
      this.#sendError(connection, refusal.code, refusal.message, refusal.field, hello.seq);
      if (refusal.closeCode !== undefined) connection.close(refusal.closeCode, refusal.code);
      return;
    }
    const device = this.#core.directory.device(hello.device_id)!;
    clearTimeout(connection.helloTimer);
    // The newer connection wins (decisions D6, HO1): the older is a socket the network
    // vanished under (half-open) or a second badge with this id. It is cut off at once: what
    // it owed no longer holds the clock, and a socket that reads nothing is dropped after the
    // grace instead of ws's 30 s close handshake.
    this.#core.recorder.add('connect', { device: device.id, replaced: previous !== undefined });
    if (previous) {
      this.#connections.delete(device.id);
      previous.deviceId = undefined;
      this.#cutOff(previous, CLOSE_CODES.replaced, 'replaced by a new connection', { drop: true });
    }
    connection.deviceId = device.id;
    connection.session = hello.session;
    this.#connections.set(device.id, connection);
    const now = this.#badgeClock.now();
    welcomeLiveState(this.#liveStates.of(device.id), hello, now);
    const clock = this.#core.clock.state;
    connection.told = now;
    this.#holds.send(connection, {
      type: 'welcome',
      protocol: DEVICE_PROTOCOL_VERSION,
      device_id: device.id,
      user: device.user,
      now,
      mode: clock.mode,
      scale: clock.scale,
    });
    // A badge restored from the snapshot this stub was restored from carries on (WS35).
    if (!resumesSeamlessly(this.#core, hello.resumes)) this.#core.engine.resume(device.id);
    // A replacing hello may bring a new battery reading: its waiters look again too.
    this.#changed(device.id, previous ? undefined : true);
  }

  /** After a jump or a mode switch, every badge learns the stub's clock. */
  #announceClock(): void {
    for (const connection of this.#connections.values()) this.#badgeClock.tell(connection);
  }

  #deliver(deviceId: string, command: DeviceCommand): void {
    const connection = this.#connections.get(deviceId);
    if (!connection) return; // Not connected: the badge does not hear it (the transcript says it was sent).
    this.#core.recorder.sent(deviceId, command);
    this.#holds.send(connection, this.#commandFrames.opening(command, this.#badgeClock.now()));
  }

  /**
   * Closes a connection the stub will not serve any more (it does not read, it floods, or a
   * newer one replaced it) and counts it closed at once, as any close: the badge offline,
   * unless a newer connection holds the device already. The close frame waits behind what is
   * queued; a peer that does not take it within the grace is dropped (terminate).
   */
  #cutOff(
    connection: Connection,
    code: number,
    reason: string,
    options: { drop?: boolean } = {},
  ): void {
    if (!connection.open) return;
    connection.close(code, reason, options);
    this.#cutOffSockets.add(connection.ws);
    this.#closed(connection);
  }

  #closed(connection: Connection): void {
    // Once: a cut-off connection is counted closed before its socket is.
    if (!this.#all.delete(connection)) return;
    clearTimeout(connection.helloTimer);
    this.#core.clock.clearTimer(connection.wakeTimer);
    this.#holds.closed(connection);
    const id = connection.deviceId;
    if (id === undefined || this.#connections.get(id) !== connection) return;
    this.#connections.delete(id);
    this.#core.recorder.add('close', { device: id });
    const live = this.#liveStates.of(id);
    live.online = false;
    live.responsive = true;
    live.unresponsiveSince = null;
    live.lastDisconnect = this.#core.clock.now();
    this.#changed(id, false);
  }

  #sendError(
    connection: Connection,
    code: string,
    message: string,
    field?: string,
    inReplyTo?: number,
  ): void {
    if (!connection.open) return;
    // A flood of bad frames is not answered frame for frame: past the limit, 4009.
    const limit = this.#core.settings.badgeMaxBadFramesPerSecond;
    if (connection.overBadFrameLimit(limit)) {
      this.#cutOff(
        connection,
        CLOSE_CODES.tooManyBadFrames,
        `too many bad frames: more than ${limit} in 1 s`,
      );
      return;
    }
    connection.send(
      {
        type: 'error',
        code,
        message,
        ...(field ? { field } : {}),
        ...(inReplyTo === undefined ? {} : { in_reply_to: inReplyTo }),
      },
      false,
    );
  }

  #forgetLiveState(): void {
    this.#liveStates.forgetOffline();
    // The clock went back to its start and dropped every timer, wakes among them.
    for (const connection of this.#all) {
      connection.told = undefined;
      connection.wakeTimer = undefined;
    }
  }
}
