/**
 * The device gateway: virtual badges connect here over WebSocket (on the stub's own port, at
 * DEVICE_WS_PATH). It keeps a registry of connected badges and their live state, delivers the
 * engine's plays, stops and speech to them, and feeds their taps back to the engine.
 *
 * It also keeps the virtual clock honest across the wire: every frame sent waits for the
 * badge's `handled`, and the clock's settle hook waits until none is outstanding, so a timer
 * fires only once the badges have answered everything the previous one caused. A badge that
 * holds the clock longer than `badgeAnswerTimeoutMs` (real time) is counted unresponsive: the
 * clock goes on without it, and what it has not answered no longer holds the clock, until it
 * answers again.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Static } from 'typebox';
import { WebSocketServer } from 'ws';
import type { TimerId } from '../protocol/clock.ts';
import type { DeviceFacts } from '../protocol/control-api.schema.ts';
import { sendCorked } from '../protocol/corked-send.ts';
import {
  type BadgeFrame,
  ButtonFrame,
  CLOSE_CODES,
  DEVICE_PROTOCOL_VERSION,
  DEVICE_WS_PATH,
  HandledFrame,
  HelloFrame,
  type OutgoingStubFrame,
  StateFrame,
  WakeFrame,
} from '../protocol/device-frames.schema.ts';
import { type FrameSocket, SOCKET_STATE } from '../protocol/frame-socket.ts';
import { type FrameOpening, numbered } from '../protocol/numbered-frame.ts';
import { fieldPath, type ValidateFunction, validatorOf } from '../protocol/validator.ts';
import { CommandFrames } from './command-frames.ts';
import { batteryOf } from './device-info.ts';
import type { DeviceLiveState } from './device-live-state.ts';
import { DeviceWaiters } from './device-waiters.ts';
import type { DeviceCommand } from './engine/alert-engine.ts';
import { EngineError } from './engine/engine-error.ts';
import { refuseOnSocket } from './http-errors.ts';
import { InProcessSocket } from './in-process-socket.ts';
import { tapRecord } from './recorder.ts';
import type { StubCore } from './stub-core.ts';

/** A badge that held the virtual clock past the bound: the clock went on without it. */
export interface ClockHold {
  deviceId: string;
  user: string;
  /** Real time the clock waited for it. */
  waitedMs: number;
  /** The bound it ran past (`badgeAnswerTimeoutMs`). */
  boundMs: number;
}

/** Bounds of `badgeAnswerTimeoutMs`: at least 1 ms, at most 60 s (below every HTTP timeout). */
export const BADGE_ANSWER_TIMEOUT_MIN_MS = 1;
export const BADGE_ANSWER_TIMEOUT_MAX_MS = 60_000;

/** The longest delay `setTimeout` keeps; a longer one fires after 1 ms. */
const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/** A delay `setTimeout` takes as given: from 0 to 2^31 − 1 ms. */
function timerDelay(ms: number): number {
  return Math.min(Math.max(0, ms), MAX_TIMER_DELAY_MS);
}

/** Throws a RangeError naming `badgeAnswerTimeoutMs` unless it is from 1 ms to 60 s. */
export function checkBadgeAnswerTimeout(ms: number): number {
  if (!(ms >= BADGE_ANSWER_TIMEOUT_MIN_MS && ms <= BADGE_ANSWER_TIMEOUT_MAX_MS)) {
    throw new RangeError(
      `badge-sim: badgeAnswerTimeoutMs must be from ${BADGE_ANSWER_TIMEOUT_MIN_MS} to ${BADGE_ANSWER_TIMEOUT_MAX_MS} ms (1 ms to 60 s), got ${ms}`,
    );
  }
  return ms;
}

export interface DeviceGatewayOptions {
  /** Real time a new connection has to say hello (a transport guard, not domain time). */
  helloTimeoutMs?: number;
  /** Real time the clock waits for one badge's answer; the stub setting by default. */
  answerTimeoutMs?: number;
  /** Real time a connection being cut off has to take its close frame before it is dropped. */
  cutOffGraceMs?: number;
}

/**
 * One validator a frame type. A Map, never a plain object: the type is whatever a client sent,
 * and `validators["valueOf"]` on an object literal is Object.prototype's function.
 */
const validators: ReadonlyMap<string, ValidateFunction> = new Map<
  BadgeFrame['type'],
  ValidateFunction
>([
  ['hello', validatorOf(HelloFrame)],
  ['button', validatorOf(ButtonFrame)],
  ['state', validatorOf(StateFrame)],
  ['wake', validatorOf(WakeFrame)],
  ['handled', validatorOf(HandledFrame)],
]);

/**
 * The most frames one badge is tracked for at a time (what the clock waits for). A badge that
 * owes more has the oldest forgotten: it answers in order, so the newest still hold the clock.
 */
export const MAX_TRACKED_FRAMES = 1024;

/** Writes to badges per turn of the event loop, at most (decision D12). */
export const FLUSH_CHUNK = 512;

/** What the gateway holds for one connection (for tests and diagnostics). */
export interface ConnectionStats {
  deviceId: string | undefined;
  /** Frames sent and tracked that it has not handled yet: at most MAX_TRACKED_FRAMES. */
  pending: number;
  responsive: boolean;
}

class Connection {
  deviceId: string | undefined;
  /** The fleet session its hello named (decision D13); undefined: none named. */
  session: string | undefined;
  #seq = 0;
  /**
   * Frames sent that the badge has not handled yet and that hold the clock: only while it is
   * responsive (counted unresponsive, it owes nothing), and at most MAX_TRACKED_FRAMES.
   */
  readonly pending = new Set<number>();
  /** While false, frames sent to it are not tracked: they do not hold the clock. */
  responsive = true;
  /**
   * Its badge, in this process, said the network vanished under this socket (`vanished`):
   * it will answer nothing, so the clock does not wait the bound for it.
   */
  silent = false;
  /** Real time (performance.now) of its last answer, or of the first frame it now owes. */
  owingSince = 0;
  /** Error frames sent in the current one-second window (real time), for the flood guard. */
  badFrames = 0;
  badFramesSince = 0;
  /** Called with the bytes queued when the badge does not read what it is sent. */
  onTooSlow: (queued: number) => void = () => {};
  /** Whether writes wait for the gateway's next flush (real and scaled time) or go at once. */
  deferWrites: () => boolean = () => false;
  /** Called when the first write is queued, so the gateway flushes it soon. */
  onQueued: (connection: Connection) => void = () => {};
  readonly #outbox: (string | (() => string))[] = [];
  #outboxHead = 0;
  helloTimer: NodeJS.Timeout | undefined;
  wakeTimer: TimerId | undefined;
  /**
   * The last instant the stub told this badge (welcome `now`, a `clock` frame): a wake at or
   * before it asks for nothing new. Unset after a reset (the clock went back).
   */
  told: number | undefined;

  constructor(
    readonly ws: FrameSocket,
    readonly maxQueuedBytes: number,
  ) {}

  get open(): boolean {
    return this.ws.readyState === SOCKET_STATE.OPEN;
  }

  /** Frames sent so far: the seqs below it are the stub's. */
  get sent(): number {
    return this.#seq;
  }

  /**
   * Sends a frame numbered by this side; a `track`ed frame awaits the badge's `handled`. A
   * command's frame comes serialised already (its opening, shared by a fan-out's devices).
   */
  send(frame: OutgoingStubFrame | FrameOpening, track: boolean): void {
    const seq = this.#seq++;
    if (track) {
      if (this.pending.size === 0) this.owingSince = performance.now();
      // Full: forget the oldest (the caller counted the clock's wait unchanged).
      if (this.pending.size >= MAX_TRACKED_FRAMES)
        this.pending.delete(this.pending.values().next().value!);
      this.pending.add(seq);
    }
    if (typeof frame === 'string') this.#queue(numbered(frame, seq));
    else this.#queue(() => JSON.stringify({ ...frame, seq }));
  }

  /** Answers a badge's frame: processed, and everything it caused has been sent. */
  handled(seq: number): void {
    this.#queue(`{"type":"handled","seq":${seq}}`);
  }

  /** Writes waiting for the gateway's next flush (decision D12), in order. */
  get queued(): number {
    return this.#outbox.length - this.#outboxHead;
  }

  /**
   * Writes what is queued, at most `max` writes (every one when not given), in order; stops
   * when the socket is no longer open. Returns how many it took from the queue.
   */
  flush(max = Number.POSITIVE_INFINITY): number {
    let taken = 0;
    while (taken < max && this.#outboxHead < this.#outbox.length) {
      const data = this.#outbox[this.#outboxHead]!;
      this.#outbox[this.#outboxHead++] = '';
      taken++;
      if (this.open) this.#write(typeof data === 'string' ? data : data());
    }
    if (this.#outboxHead === this.#outbox.length) {
      this.#outbox.length = 0;
      this.#outboxHead = 0;
    }
    return taken;
  }

  /**
   * Closes the socket; what is queued goes first (an error frame before a refusal), unless the
   * badge is cut off for reading too slowly or for being replaced: then it is dropped.
   */
  close(code: number, reason: string, options: { drop?: boolean } = {}): void {
    if (options.drop) {
      this.#outbox.length = 0;
      this.#outboxHead = 0;
    } else this.flush();
    this.ws.close(code, reason);
  }

  /**
   * A frame's text is made when it is written, not when it is queued: the fan-out to 10,000
   * badges then costs the request that caused it one closure a badge.
   */
  #queue(data: string | (() => string)): void {
    if (this.queued === 0 && !this.deferWrites()) {
      this.#write(typeof data === 'string' ? data : data());
      return;
    }
    this.#outbox.push(data);
    if (this.queued === 1) this.onQueued(this);
  }

  #write(data: string): void {
    if (!sendCorked(this.ws, data, this.maxQueuedBytes)) this.onTooSlow(this.ws.bufferedAmount);
  }
}

export class DeviceGateway {
  readonly #core: StubCore;
  readonly #wss: WebSocketServer;
  readonly #connections = new Map<string, Connection>();
  readonly #all = new Set<Connection>();
  /** Sockets cut off (4003, 4008, 4009) whose close has not finished yet. */
  readonly #cutOffSockets = new Set<FrameSocket>();
  readonly #live = new Map<string, DeviceLiveState>();
  readonly #helloTimeoutMs: number;
  readonly #answerTimeoutMs: number;
  readonly #cutOffGraceMs: number;
  readonly #unsubscribe: (() => void)[] = [];
  readonly #holdListeners = new Set<(hold: ClockHold) => void>();
  readonly #deviceListeners = new Set<(deviceId: string) => void>();
  /** Frames sent to responsive badges and not handled yet: what the clock waits for. */
  #outstanding = 0;
  /** Connections whose badge said they vanished (`vanished`), until they close. */
  readonly #silent = new Set<Connection>();
  /** Real time (performance.now) of the last `handled` from any badge. */
  #lastAnswer = 0;
  #waiters: (() => void)[] = [];
  /** Connections with writes queued, in the order they queued them (decision D12). */
  #toFlush: Connection[] = [];
  #flushScheduled = false;
  /** The engine's commands as frames, serialised once for a fan-out's devices. */
  readonly #commandFrames = new CommandFrames();
  /** Waits for a device to be as asked, told of each connect, close and state report. */
  readonly deviceWaiters = new DeviceWaiters((deviceId) => this.facts(deviceId));

  constructor(core: StubCore, options: DeviceGatewayOptions = {}) {
    this.#core = core;
    this.#helloTimeoutMs = options.helloTimeoutMs ?? 10_000;
    this.#answerTimeoutMs = checkBadgeAnswerTimeout(
      options.answerTimeoutMs ?? core.settings.badgeAnswerTimeoutMs,
    );
    this.#cutOffGraceMs = options.cutOffGraceMs ?? 5_000;
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

  /** Takes WebSocket upgrades for DEVICE_WS_PATH on a server; other upgrades get 404. */
  attach(server: Server): void {
    server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      const path = (request.url ?? '').split('?')[0];
      if (path !== DEVICE_WS_PATH) {
        // Node hands every request with an Upgrade header here, not to the routes (curl
        // --http2 sends `Upgrade: h2c`): say plainly what to change.
        refuseOnSocket(
          socket,
          400,
          'upgrade_not_supported',
          `this stub upgrades only ${DEVICE_WS_PATH} (to a WebSocket); send ${request.method} ${path} without an Upgrade header (curl: --http1.1)`,
          'upgrade',
        );
        return;
      }
      this.#wss.handleUpgrade(request, socket, head, (ws) =>
        this.#wss.emit('connection', ws, request),
      );
    });
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
    return this.#live.get(deviceId) ?? emptyLiveState();
  }

  /** What the stub shows of a device (`GET /_stub/devices`): online, battery. */
  facts(deviceId: string): DeviceFacts {
    const live = this.liveState(deviceId);
    return { online: live.online, ...batteryOf(live, this.#core.deviceFixture(deviceId)) };
  }

  /** Like `settled`; resolves to whether there was anything to wait for. */
  async quiet(): Promise<boolean> {
    if (this.#outstanding === 0) return false;
    await this.settled();
    return true;
  }

  /**
   * Resolves once every frame sent to a responsive badge has been handled. When no badge has
   * answered anything for `badgeAnswerTimeoutMs` of this wait, the badges that still owe frames
   * are counted unresponsive (listeners of `onHold` hear of it) and the wait ends without them.
   * Progress of any badge keeps the wait going: a busy process answering thousands of badges
   * one after another is slow, not silent.
   */
  async settled(): Promise<void> {
    const start = performance.now();
    // What a connection known to be silent owes would only run out the bound: not waited for.
    for (const connection of this.#silent)
      if (connection.responsive && connection.pending.size > 0) this.#unresponsive(connection, 0);
    while (this.#outstanding > 0) {
      const now = performance.now();
      const deadline = Math.max(start, this.#lastAnswer) + this.#answerTimeoutMs;
      if (deadline <= now) {
        for (const connection of this.#all) {
          if (!connection.responsive || connection.pending.size === 0) continue;
          this.#unresponsive(connection, now - Math.max(start, connection.owingSince));
        }
        return;
      }
      await this.#quietOr(deadline - now);
    }
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
    connection.silent = true;
    this.#silent.add(connection);
  }

  /** Listens for badges the clock went on without; returns a function that stops listening. */
  onHold(listener: (hold: ClockHold) => void): () => void {
    this.#holdListeners.add(listener);
    return () => this.#holdListeners.delete(listener);
  }

  /**
   * Listens for each connect, close and state report of a device (the live stream); returns
   * a function that stops listening.
   */
  onDeviceChange(listener: (deviceId: string) => void): () => void {
    this.#deviceListeners.add(listener);
    return () => this.#deviceListeners.delete(listener);
  }

  /** A device connected, closed or reported its state: its waiters and listeners look again. */
  #changed(deviceId: string): void {
    this.deviceWaiters.changed(deviceId);
    for (const listener of this.#deviceListeners) listener(deviceId);
  }

  /** Resolves when nothing is outstanding or after `ms` (real time), whichever comes first. */
  #quietOr(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const guard = setTimeout(() => {
        this.#waiters = this.#waiters.filter((w) => w !== done);
        resolve();
      }, timerDelay(ms));
      const done = () => {
        clearTimeout(guard);
        resolve();
      };
      this.#waiters.push(done);
    });
  }

  /** The badge held the clock past the bound: its frames stop holding it until it answers. */
  #unresponsive(connection: Connection, waitedMs: number): void {
    connection.responsive = false;
    // What it owes no longer holds the clock, and what it is sent from now on is not tracked.
    this.#outstanding -= connection.pending.size;
    connection.pending.clear();
    this.#wakeIfQuiet();
    const id = connection.deviceId;
    if (id === undefined) return;
    const live = this.#liveOf(id);
    live.responsive = false;
    live.unresponsiveSince = this.#core.clock.now();
    const hold: ClockHold = {
      deviceId: id,
      user: this.#core.directory.device(id)?.user ?? id,
      waitedMs: Math.round(waitedMs),
      boundMs: this.#answerTimeoutMs,
    };
    for (const listener of this.#holdListeners) listener(hold);
  }

  /** Closes every badge connection (1001) and stops listening to the engine. */
  async close(): Promise<void> {
    for (const off of this.#unsubscribe) off();
    this.deviceWaiters.interruptAll('closing');
    for (const connection of this.#all) connection.close(CLOSE_CODES.shutdown, 'stub stopping');
    await new Promise<void>((resolve) => this.#wss.close(() => resolve()));
    for (const connection of this.#all) connection.ws.terminate();
    for (const ws of this.#cutOffSockets) ws.terminate();
  }

  #accept(ws: FrameSocket): void {
    const connection = new Connection(ws, this.#core.settings.badgeMaxQueuedBytes);
    connection.onTooSlow = (queued) =>
      this.#cutOff(connection, CLOSE_CODES.tooSlow, `too slow: ${queued} bytes queued`, {
        drop: true,
      });
    connection.onQueued = (queuedOn) => this.#scheduleFlush(queuedOn);
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
    if (isBinary) {
      this.#sendError(connection, 'invalid_frame', 'frames are JSON text, not binary');
      return;
    }
    let frame: unknown;
    try {
      frame = JSON.parse(text);
    } catch {
      this.#sendError(connection, 'invalid_json', 'the frame is not valid JSON');
      return;
    }
    const type =
      typeof frame === 'object' && frame !== null && Object.hasOwn(frame, 'type')
        ? (frame as { type: unknown }).type
        : undefined;
    const validate = typeof type === 'string' ? validators.get(type) : undefined;
    if (!validate) {
      this.#sendError(
        connection,
        'unknown_frame',
        `unknown frame type ${JSON.stringify(type) ?? 'none'}; expected one of ${[...validators.keys()].join(', ')}`,
        'type',
        readableSeq(frame),
      );
      return;
    }
    if (!validate(frame)) {
      const error = validate.errors![0]!;
      const field = fieldPath(error) || undefined;
      this.#sendError(
        connection,
        'invalid_frame',
        `${type}: ${field ?? 'frame'} ${error.message}`,
        field,
        readableSeq(frame),
      );
      return;
    }
    const valid = frame as BadgeFrame;
    if (valid.type === 'handled') {
      this.#handled(connection, valid.seq);
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
    } else if (valid.type === 'button') this.#button(connection, connection.deviceId, valid);
    else if (valid.type === 'state') this.#state(connection.deviceId, valid);
    else if (valid.type === 'wake') this.#wake(connection, valid.at);
    // A state report is telemetry: nothing waits for it, so it is not answered.
    if (connection.open && valid.type !== 'state') connection.handled(valid.seq);
  }

  #hello(connection: Connection, hello: Static<typeof HelloFrame>): void {
    const refuse = (code: string, message: string, field: string) => {
      this.#sendError(connection, code, message, field, hello.seq);
      connection.close(CLOSE_CODES.refused, code);
    };
    if (connection.deviceId !== undefined) {
      this.#sendError(
        connection,
        'already_connected',
        `this connection is already device ${connection.deviceId}`,
        'device_id',
        hello.seq,
      );
      return;
    }
    if (hello.protocol !== DEVICE_PROTOCOL_VERSION) {
      refuse(
        'unsupported_protocol',
        `this stub speaks device protocol ${DEVICE_PROTOCOL_VERSION}, not ${hello.protocol}`,
        'protocol',
      );
      return;
    }
    const device = this.#core.directory.device(hello.device_id);
    if (!device) {
      refuse('unknown_device', `no device '${hello.device_id}' in the fixtures`, 'device_id');
      return;
    }
    const expectedKey = this.#core.deviceKey(hello.device_id);
    if (expectedKey !== undefined && hello.key !== expectedKey) {
      refuse('invalid_key', `wrong or missing device key for device '${hello.device_id}'`, 'key');
      return;
    }
    const previous = this.#connections.get(device.id);
    // Two fleets (shards) never share a device (decision D13): a device online in one fleet's
    // session is refused to any other hello, one naming no session too; the same session takes
    // its old connection over.
    if (previous?.session !== undefined && previous.session !== hello.session) {
      this.#sendError(
        connection,
        'device_claimed',
        `device '${device.id}' is online in another fleet's session; give each fleet its own devices (badge-sim devices --shard i/n)`,
        'session',
        hello.seq,
      );
      connection.close(CLOSE_CODES.claimed, 'device_claimed');
      return;
    }
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
    const live = this.#liveOf(device.id);
    const now = this.#now();
    live.online = true;
    live.responsive = true;
    live.unresponsiveSince = null;
    live.lastConnect = now;
    live.state = 'idle';
    if (hello.battery_level !== undefined) live.batteryLevel = hello.battery_level;
    if (hello.battery_status !== undefined) live.batteryStatus = hello.battery_status;
    if (hello.location) live.location = { ...hello.location, timestamp: now };
    if (hello.app_version) live.appVersion = hello.app_version;
    const clock = this.#core.clock.state;
    connection.told = now;
    this.#send(connection, {
      type: 'welcome',
      protocol: DEVICE_PROTOCOL_VERSION,
      device_id: device.id,
      user: device.user,
      now,
      mode: clock.mode,
      scale: clock.scale,
    });
    this.#core.engine.resume(device.id);
    // A replacing hello may bring a new battery reading: its waiters look again too.
    this.#changed(device.id);
  }

  #button(connection: Connection, deviceId: string, button: Static<typeof ButtonFrame>): void {
    // Only a single tap acknowledges, as on the real badge; other taps are ignored here.
    if (button.taps !== 'single') return;
    try {
      const outcome = button.task_id
        ? this.#core.engine.acknowledge(deviceId, button.task_id)
        : this.#core.engine.tap(deviceId);
      this.#core.recorder.add('tap', { device: deviceId, via: 'badge', ...tapRecord(outcome) });
    } catch (error) {
      if (!(error instanceof EngineError)) throw error;
      this.#core.recorder.add('tap', { device: deviceId, via: 'badge', refused: error.code });
      this.#sendError(connection, error.code, error.message, error.field, button.seq);
    }
  }

  #state(deviceId: string, state: Static<typeof StateFrame>): void {
    const live = this.#liveOf(deviceId);
    live.state = state.state;
    const level = live.batteryLevel;
    const status = live.batteryStatus;
    if (state.battery_level !== undefined) live.batteryLevel = state.battery_level;
    if (state.battery_status !== undefined) live.batteryStatus = state.battery_status;
    // Only a new reading is worth a record: badges report their state on every play.
    if (level !== live.batteryLevel || status !== live.batteryStatus)
      this.#core.recorder.add('battery', {
        device: deviceId,
        level: live.batteryLevel,
        status: live.batteryStatus,
      });
    if (state.location) live.location = { ...state.location, timestamp: this.#core.clock.now() };
    this.#changed(deviceId);
  }

  /**
   * A new wake replaces the previous one. A wake at or before the last instant this badge was
   * told asks for a time it already knows: answered (`handled`), and nothing is sent or set.
   * Else a badge that answers every clock frame with a wake at that frame's `now` would have
   * the stub send clock frames at one instant for ever, holding an advance (W8).
   */
  #wake(connection: Connection, at: number): void {
    const clock = this.#core.clock;
    clock.clearTimer(connection.wakeTimer);
    connection.wakeTimer = undefined;
    if (connection.told !== undefined && at <= connection.told) return;
    connection.wakeTimer = clock.setTimer(at - clock.now(), () => {
      connection.wakeTimer = undefined;
      if (connection.open) this.#sendClock(connection);
    });
  }

  /** The stub's clock as frames tell it: whole ms (a running clock reads fractions). */
  #now(): number {
    return Math.floor(this.#core.clock.now());
  }

  #sendClock(connection: Connection): void {
    const { mode, scale } = this.#core.clock.state;
    const now = this.#now();
    connection.told = now;
    this.#send(connection, { type: 'clock', now, mode, scale });
  }

  /** After a jump or a mode switch, every badge learns the stub's clock. */
  #announceClock(): void {
    for (const connection of this.#connections.values()) this.#sendClock(connection);
  }

  #deliver(deviceId: string, command: DeviceCommand): void {
    const connection = this.#connections.get(deviceId);
    if (!connection) return; // Not connected: the badge does not hear it (the transcript says it was sent).
    this.#core.recorder.sent(deviceId, command);
    this.#send(connection, this.#commandFrames.opening(command, this.#now()));
  }

  /**
   * In real and scaled time, writes are flushed after the code that queued them has returned
   * (decision D12): a POST that reaches 10,000 badges answers once the engine has done its
   * part, and the frames go out in chunks of FLUSH_CHUNK, each connection's in order, letting
   * the event loop breathe (other requests, badges' frames) between chunks. On the virtual
   * clock they go at once: nothing waits on the wall clock there, and scenarios see the fan-out
   * exactly as before.
   */
  #scheduleFlush(connection: Connection): void {
    this.#toFlush.push(connection);
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    setImmediate(() => this.#flush());
  }

  #flush(): void {
    this.#flushScheduled = false;
    let budget = FLUSH_CHUNK;
    let i = 0;
    for (; i < this.#toFlush.length && budget > 0; i++) {
      const connection = this.#toFlush[i]!;
      budget -= connection.flush(budget);
      // Not all of it written: it goes to the back of the line.
      if (connection.queued > 0) this.#toFlush.push(connection);
    }
    this.#toFlush = this.#toFlush.slice(i);
    if (this.#toFlush.length > 0 && !this.#flushScheduled) {
      this.#flushScheduled = true;
      setImmediate(() => this.#flush());
    }
  }

  /** Sends a frame the clock waits on until the badge has handled it. */
  #send(connection: Connection, frame: OutgoingStubFrame | FrameOpening): void {
    // Only a virtual clock waits for badges; in real or scaled time they do not answer. Nor
    // does it wait for a badge counted unresponsive.
    const track = this.#core.clock.mode === 'virtual' && connection.responsive;
    // A full `pending` forgets its oldest for this one: the count the clock waits on stays.
    if (track && connection.pending.size < MAX_TRACKED_FRAMES) this.#outstanding++;
    connection.send(frame, track);
  }

  #handled(connection: Connection, seq: number): void {
    if (connection.pending.delete(seq)) {
      this.#lastAnswer = connection.owingSince = performance.now();
      this.#settleBy(1);
      return;
    }
    // An unresponsive badge owes nothing tracked: a `handled` for any frame the stub sent it
    // (not tracked, or forgotten) is an answer, and it is responsive again: frames sent from
    // now on hold the clock again (bounded again). A seq the stub never sent changes nothing.
    if (connection.responsive || seq >= connection.sent) return;
    connection.responsive = true;
    connection.owingSince = performance.now();
    if (connection.deviceId !== undefined) {
      const live = this.#liveOf(connection.deviceId);
      live.responsive = true;
      live.unresponsiveSince = null;
    }
  }

  #settleBy(count: number): void {
    this.#outstanding -= count;
    this.#wakeIfQuiet();
  }

  #wakeIfQuiet(): void {
    if (this.#outstanding === 0) {
      const waiters = this.#waiters;
      this.#waiters = [];
      for (const resolve of waiters) resolve();
    }
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
    const { ws } = connection;
    connection.close(code, reason, options);
    this.#cutOffSockets.add(ws);
    const grace = setTimeout(() => ws.terminate(), timerDelay(this.#cutOffGraceMs));
    grace.unref();
    ws.once('close', () => {
      clearTimeout(grace);
      this.#cutOffSockets.delete(ws);
    });
    this.#closed(connection);
  }

  #closed(connection: Connection): void {
    // Once: a cut-off connection is counted closed before its socket is.
    if (!this.#all.delete(connection)) return;
    this.#silent.delete(connection);
    clearTimeout(connection.helloTimer);
    this.#core.clock.clearTimer(connection.wakeTimer);
    const owed = connection.responsive ? connection.pending.size : 0;
    connection.pending.clear();
    if (owed > 0) this.#settleBy(owed);
    const id = connection.deviceId;
    if (id === undefined || this.#connections.get(id) !== connection) return;
    this.#connections.delete(id);
    this.#core.recorder.add('close', { device: id });
    const live = this.#liveOf(id);
    live.online = false;
    live.responsive = true;
    live.unresponsiveSince = null;
    live.lastDisconnect = this.#core.clock.now();
    this.#changed(id);
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
    const now = performance.now();
    if (now - connection.badFramesSince >= 1_000) {
      connection.badFramesSince = now;
      connection.badFrames = 0;
    }
    const limit = this.#core.settings.badgeMaxBadFramesPerSecond;
    if (++connection.badFrames > limit) {
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

  #liveOf(deviceId: string): DeviceLiveState {
    let live = this.#live.get(deviceId);
    if (!live) {
      const fixture = this.#core.deviceFixture(deviceId);
      live = emptyLiveState();
      live.batteryLevel = fixture?.battery_level ?? null;
      live.location = fixture?.location
        ? { ...fixture.location, timestamp: this.#core.clock.now() }
        : null;
      this.#live.set(deviceId, live);
    }
    return live;
  }

  #forgetLiveState(): void {
    for (const [id, live] of this.#live) if (!live.online) this.#live.delete(id);
    // The clock went back to its start and dropped every timer, wakes among them.
    for (const connection of this.#all) {
      connection.told = undefined;
      connection.wakeTimer = undefined;
    }
  }
}

function emptyLiveState(): DeviceLiveState {
  return {
    online: false,
    lastConnect: null,
    lastDisconnect: null,
    state: null,
    batteryLevel: null,
    batteryStatus: null,
    location: null,
    appVersion: null,
    responsive: true,
    unresponsiveSince: null,
  };
}

/** The `seq` of a frame refused whole, when it is one (a non-negative safe integer). */
function readableSeq(frame: unknown): number | undefined {
  if (typeof frame !== 'object' || frame === null || !Object.hasOwn(frame, 'seq')) return undefined;
  const { seq } = frame as { seq: unknown };
  return typeof seq === 'number' && Number.isSafeInteger(seq) && seq >= 0 ? seq : undefined;
}
