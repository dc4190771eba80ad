/**
 * The wire of one badge: a WebSocket to the stub's device gateway. The only place in the
 * simulator that imports ws. It numbers what it sends, answers what it receives with
 * `handled` once the badge has dealt with it, and counts what the stub has not yet handled,
 * so the clock can wait for a quiet wire.
 */
import WebSocket from 'ws';
import { type CaPem, wsTrusting } from '../client/trust.ts';
import { sendCorked } from '../protocol/corked-send.ts';
import {
  BroadcastFrame,
  ClockFrame,
  ErrorFrame,
  HandledFrame,
  type OutgoingBadgeFrame,
  PlayFrame,
  SpeakFrame,
  StopFrame,
  type StubFrame,
  WelcomeFrame,
} from '../protocol/device-frames.schema.ts';
import type { FrameSocket } from '../protocol/frame-socket.ts';
import { type FrameOpening, frameOpening, numbered } from '../protocol/numbered-frame.ts';
import { type ValidateFunction, validatorOf } from '../protocol/validator.ts';

export interface LinkHandlers {
  /** A valid frame from the stub. Resolve when the badge has dealt with it. */
  frame(frame: StubFrame): void | Promise<void>;
  /** The socket opened (say hello now). */
  opened(): void;
  /** The socket closed, by either side. */
  closed(code: number, reason: string): void;
  /** The stub sent something this badge cannot read. */
  invalid?(text: string, problem: string): void;
}

/** A Map, not an object literal: the type is whatever the other side sent (`valueOf`, …). */
const validators: ReadonlyMap<string, ValidateFunction> = new Map([
  ['welcome', validatorOf(WelcomeFrame)],
  ['play', validatorOf(PlayFrame)],
  ['broadcast', validatorOf(BroadcastFrame)],
  ['stop', validatorOf(StopFrame)],
  ['speak', validatorOf(SpeakFrame)],
  ['clock', validatorOf(ClockFrame)],
  ['error', validatorOf(ErrorFrame)],
  ['handled', validatorOf(HandledFrame)],
]);

/**
 * The openings of frames that cannot change (frozen: the badge machine's state reports, one
 * object a state for every badge), each serialised the first time it is sent.
 */
const frozenOpenings = new WeakMap<object, FrameOpening>();

function openingOf(frame: OutgoingBadgeFrame): FrameOpening {
  const known = frozenOpenings.get(frame);
  if (known !== undefined) return known;
  const opening = frameOpening(frame);
  if (Object.isFrozen(frame)) frozenOpenings.set(frame, opening);
  return opening;
}

/**
 * How long a badge waits for the stub to answer its WebSocket upgrade (real ms, a transport
 * guard: decision F10). A stub that takes the connection and never answers would otherwise
 * hold the badge in `connecting` for ever, and every settle of its fleet's clock until its guard. Generous:
 * 19,000 badges, 256 connecting at a time, were all online in 13 s (bench:fleet), about 0.2 s
 * an upgrade.
 */
export const HANDSHAKE_TIMEOUT_MS = 10_000;

/** Counts frames not yet handled across many links, and wakes waiters at zero. */
export class Outstanding {
  #count = 0;
  #waiters: (() => void)[] = [];

  get count(): number {
    return this.#count;
  }

  add(n = 1): void {
    this.#count += n;
  }

  done(n = 1): void {
    this.#count -= n;
    if (this.#count <= 0) {
      this.#count = 0;
      const waiters = this.#waiters;
      this.#waiters = [];
      for (const resolve of waiters) resolve();
    }
  }

  /** Resolves when nothing is outstanding, or after `guardMs` of real time at most. */
  quiet(guardMs: number): Promise<void> {
    if (this.#count === 0) return Promise.resolve();
    return new Promise((resolve) => {
      // A transport guard in real time: a stub that never answers must not hang a test.
      const guard = setTimeout(done, guardMs);
      function done() {
        clearTimeout(guard);
        resolve();
      }
      this.#waiters.push(done);
    });
  }
}

/** How a badge reconnects after an unexpected close (real ms: a transport concern). */
export interface ReconnectOptions {
  /** The first delay (before jitter); each failed attempt doubles it. */
  initialMs: number;
  /** The cap of the doubling. */
  maxMs: number;
}

export const DEFAULT_RECONNECT: ReconnectOptions = { initialMs: 100, maxMs: 5_000 };

/**
 * Bounded exponential backoff with equal jitter: attempt n waits a delay drawn from
 * [b/2, b], b = min(maxMs, initialMs · 2^n). Half the delay is certain, so a thousand badges
 * never hammer a stub that is down; the other half is drawn, so they do not come back in step.
 */
export class Backoff {
  #attempt = 0;

  constructor(
    readonly options: ReconnectOptions,
    readonly random: () => number = Math.random,
  ) {}

  /** The next delay (ms), and the one after grows until the cap. */
  next(): number {
    const base = Math.min(this.options.maxMs, this.options.initialMs * 2 ** this.#attempt);
    if (base < this.options.maxMs) this.#attempt++;
    return Math.round(base / 2 + (this.random() * base) / 2);
  }

  /** Connected again: the next drop starts from `initialMs`. */
  reset(): void {
    this.#attempt = 0;
  }
}

export class BadgeLink {
  #ws: FrameSocket | undefined;
  /** The socket the network vanished under (`vanish`): paused, never written, not closed. */
  #silent: FrameSocket | undefined;
  #seq = 0;
  readonly #pending = new Set<number>();
  /** Frames from the stub are dealt with one at a time, in order; this is the one in hand. */
  #inbox: Promise<void> | undefined;
  /**
   * Whether to answer the stub's frames with `handled`. Only a virtual clock waits for them;
   * in real or scaled time the answer (a write each) would cost a fleet and help nobody.
   */
  answerFrames = true;

  constructor(
    readonly url: string,
    readonly handlers: LinkHandlers,
    readonly outstanding: Outstanding,
    /** A CA to trust besides Node's, for a `wss://` stub with its own CA. */
    readonly ca?: CaPem,
    readonly handshakeTimeoutMs = HANDSHAKE_TIMEOUT_MS,
    /** Connects without a socket to a stub in this process (decision SP5), instead of `url`. */
    readonly dial?: () => FrameSocket,
  ) {}

  get isOpen(): boolean {
    return this.#ws?.readyState === WebSocket.OPEN;
  }

  open(): void {
    if (this.#ws) return;
    // The stub writes JSON it made itself; a frame that is not UTF-8 fails JSON.parse or the
    // schema anyway, so ws need not scan every byte of every frame first.
    const ws: FrameSocket =
      this.dial?.() ??
      new WebSocket(this.url, {
        perMessageDeflate: false,
        skipUTF8Validation: true,
        // Past it ws aborts the attempt: 'error', then 'close' 1006, a failed connect (F2).
        handshakeTimeout: this.handshakeTimeoutMs,
        ...wsTrusting(this.ca),
      });
    this.#ws = ws;
    // Connecting is outstanding work too: the clock waits until the socket opens or fails.
    this.outstanding.add();
    let connecting = true;
    const connected = () => {
      if (!connecting) return;
      connecting = false;
      this.outstanding.done();
    };
    ws.on('open', () => {
      this.handlers.opened();
      connected();
    });
    ws.on('message', (data) => this.#receive(String(data)));
    ws.on('close', (code, reason) => {
      connected();
      if (this.#ws !== ws) return;
      this.#ws = undefined;
      this.outstanding.done(this.#pending.size);
      this.#pending.clear();
      this.handlers.closed(code, String(reason));
    });
    // Errors end in 'close'; without a listener ws would throw.
    ws.on('error', () => undefined);
  }

  /**
   * Closes on purpose. The socket is let go at once, so a badge told to come back before the
   * close handshake ends opens a new one; nothing it had in flight is waited for.
   */
  close(): void {
    this.dropSilent();
    const ws = this.#ws;
    if (!ws) return;
    this.#ws = undefined;
    this.outstanding.done(this.#pending.size);
    this.#pending.clear();
    if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
    else ws.close(1000, 'badge went offline');
  }

  /**
   * The network vanishes without a close (out of Wi-Fi range): the socket stops reading, so
   * the stub's frames and pings go unanswered, and is never written to again, but it is not
   * closed, so the stub still holds it (half-open). The link lets it go: a new `open()` makes
   * a new socket, and what was in flight on the old one is no longer waited for. The silent
   * socket is destroyed by `dropSilent()` (once the stub has welcomed the new one, so it has
   * replaced the old by then), by the next vanish, or by `close()`.
   */
  vanish(): void {
    const ws = this.#ws;
    if (!ws) return;
    this.#ws = undefined;
    this.outstanding.done(this.#pending.size);
    this.#pending.clear();
    this.dropSilent();
    if (ws.readyState === WebSocket.CONNECTING) {
      ws.terminate();
      return;
    }
    ws.pause();
    // What it had buffered is never heard: ws would still deliver it when the socket closes.
    ws.removeAllListeners('message');
    this.#silent = ws;
  }

  /** Destroys the socket the network vanished under, if any (the stub sees it close then). */
  dropSilent(): void {
    this.#silent?.terminate();
    this.#silent = undefined;
  }

  /**
   * Sends a frame; the stub's `handled` for it is awaited by the fleet's settle. A `state`
   * report is telemetry: the stub does not answer it and nothing waits for it.
   */
  send(frame: OutgoingBadgeFrame): boolean {
    if (!this.isOpen) return false;
    const seq = this.#seq++;
    if (frame.type !== 'state') {
      this.#pending.add(seq);
      this.outstanding.add();
    }
    sendCorked(this.#ws!, numbered(openingOf(frame), seq));
    return true;
  }

  #receive(text: string): void {
    let frame: StubFrame;
    try {
      frame = JSON.parse(text);
    } catch {
      this.handlers.invalid?.(text, 'not JSON');
      return;
    }
    const type = (frame as { type?: unknown } | null)?.type;
    const validate = typeof type === 'string' ? validators.get(type) : undefined;
    if (!validate?.(frame)) {
      this.handlers.invalid?.(
        text,
        validate ? (validate.errors?.[0]?.message ?? 'invalid') : 'unknown type',
      );
      return;
    }
    if (frame.type === 'handled') {
      // Counted at once, not queued behind the inbox: a `clock` frame being dealt with there
      // waits for exactly these. What the stub sent meanwhile is the stub's to wait for.
      if (this.#pending.delete(frame.seq)) this.outstanding.done();
      return;
    }
    const ws = this.#ws;
    // Something is still being dealt with: this frame waits its turn.
    if (this.#inbox) {
      this.#track(
        this.#inbox.then(() => this.#handle(frame, text)),
        ws,
        frame.seq,
        text,
      );
      return;
    }
    // The common case costs no promise and no closure: a frame the badge deals with at once.
    const result = this.#handle(frame, text);
    if (result) this.#track(result, ws, frame.seq, text);
    else this.#answer(ws, frame.seq);
  }

  #handle(frame: StubFrame, text: string): void | Promise<void> {
    try {
      return this.handlers.frame(frame);
    } catch (error) {
      this.handlers.invalid?.(text, String(error));
    }
  }

  /** Answers a frame on the socket it came on, if that is still this link's and open. */
  #answer(ws: FrameSocket | undefined, seq: number): void {
    // Answer even errors: the stub's clock waits for every frame it sent.
    if (this.answerFrames && ws && ws === this.#ws && ws.readyState === WebSocket.OPEN) {
      sendCorked(ws, `{"type":"handled","seq":${seq}}`);
    }
  }

  /** A frame dealt with later: the next frame waits for it, and it is answered when done. */
  #track(work: Promise<void>, ws: FrameSocket | undefined, seq: number, text: string): void {
    const next = work
      .catch((error) => this.handlers.invalid?.(text, String(error)))
      .then(() => this.#answer(ws, seq));
    this.#inbox = next;
    void next.then(() => {
      if (this.#inbox === next) this.#inbox = undefined;
    });
  }
}
