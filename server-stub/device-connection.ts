/**
 * One badge's connection as the gateway holds it: the frames it owes (what the clock waits
 * for), its writes queued for the next flush (decision D12), its timers and flood counts.
 */
import type { TimerId } from '../clock/clock.ts';
import { sendCorked } from '../protocol/corked-send.ts';
import type { OutgoingStubFrame } from '../protocol/device-frames.schema.ts';
import { type FrameSocket, SOCKET_STATE } from '../protocol/frame-socket.ts';
import { type FrameOpening, numbered } from '../protocol/numbered-frame.ts';
import { timerDelay } from './timer-delay.ts';

/**
 * The most frames one badge is tracked for at a time (what the clock waits for). A badge that
 * owes more has the oldest forgotten: it answers in order, so the newest still hold the clock.
 */
export const MAX_TRACKED_FRAMES = 1024;

/** What the gateway holds for one connection (for tests and diagnostics). */
export interface ConnectionStats {
  deviceId: string | undefined;
  /** Frames sent and tracked that it has not handled yet: at most MAX_TRACKED_FRAMES. */
  pending: number;
  responsive: boolean;
}

export class Connection {
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
  #badFrames = 0;
  #badFramesSince = 0;
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

  /**
   * Counts an error frame about to be sent in the current one-second window (real time);
   * whether that makes more than `limit`: a flood of bad frames is not answered frame for frame.
   */
  overBadFrameLimit(limit: number): boolean {
    const now = performance.now();
    if (now - this.#badFramesSince >= 1_000) {
      this.#badFramesSince = now;
      this.#badFrames = 0;
    }
    return ++this.#badFrames > limit;
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

/**
 * Sockets cut off whose close has not finished yet: a peer that does not take its close frame
 * within the grace (real time) is dropped (terminate); all are dropped when the gateway closes.
 */
export class CutOffSockets {
  readonly #sockets = new Set<FrameSocket>();
  readonly #graceMs: number;

  constructor(graceMs: number) {
    this.#graceMs = graceMs;
  }

  add(ws: FrameSocket): void {
    this.#sockets.add(ws);
    const grace = setTimeout(() => ws.terminate(), timerDelay(this.#graceMs));
    grace.unref();
    ws.once('close', () => {
      clearTimeout(grace);
      this.#sockets.delete(ws);
    });
  }

  terminateAll(): void {
    for (const ws of this.#sockets) ws.terminate();
  }
}
