/**
 * Two connected ends of a WebSocket in one process (decision SP5): what a scenario run in the
 * stub's process links its badges with. Frames are the same JSON text the wire carries and
 * reach the same gateway and link code; what is left out is the socket, the upgrade, the
 * framing and the event-loop turns between them, most of a virtual-clock scenario's cost.
 *
 * What each end sends is delivered to the other in order, in a microtask after the send (never
 * during it), as ws delivers after a read; a close goes behind what was sent before it. A
 * paused end (a badge whose network vanished) holds what reaches it, and the sender counts it
 * as `bufferedAmount`, as a socket's unread bytes.
 */
import { EventEmitter } from 'node:events';
import { type FrameSocket, SOCKET_STATE } from '../protocol/frame-socket.ts';

type Delivery = { text: string } | { close: number; reason: string };

const ABNORMAL_CLOSURE = 1006;

export class InProcessSocket extends EventEmitter implements FrameSocket {
  readyState: number = SOCKET_STATE.CONNECTING;
  #peer!: InProcessSocket;
  readonly #inbox: Delivery[] = [];
  #inboxBytes = 0;
  #draining = false;
  #paused = false;
  #closeEmitted = false;

  /** A connected pair: `[badge end, stub end]`. The badge end says `open` in a microtask. */
  static pair(): [InProcessSocket, InProcessSocket] {
    const badge = new InProcessSocket();
    const stub = new InProcessSocket();
    badge.#peer = stub;
    stub.#peer = badge;
    stub.readyState = SOCKET_STATE.OPEN;
    queueMicrotask(() => {
      if (badge.readyState !== SOCKET_STATE.CONNECTING) return;
      badge.readyState = SOCKET_STATE.OPEN;
      badge.emit('open');
    });
    return [badge, stub];
  }

  get bufferedAmount(): number {
    return this.#peer.#inboxBytes;
  }

  send(data: string): void {
    if (this.readyState === SOCKET_STATE.CONNECTING)
      throw new Error('WebSocket is not open: readyState 0 (CONNECTING)');
    if (this.readyState !== SOCKET_STATE.OPEN) return;
    this.#peer.#take({ text: data });
  }

  close(code = 1005, reason = ''): void {
    if (this.readyState === SOCKET_STATE.CONNECTING) {
      this.terminate();
      return;
    }
    if (this.readyState !== SOCKET_STATE.OPEN) return;
    this.readyState = SOCKET_STATE.CLOSING;
    this.#peer.#take({ close: code, reason });
  }

  terminate(): void {
    if (this.readyState === SOCKET_STATE.CLOSED) return;
    this.readyState = SOCKET_STATE.CLOSED;
    this.#peer.#take({ close: ABNORMAL_CLOSURE, reason: '' });
    queueMicrotask(() => this.#emitClose(ABNORMAL_CLOSURE, ''));
  }

  pause(): void {
    this.#paused = true;
  }

  #take(delivery: Delivery): void {
    this.#inbox.push(delivery);
    if ('text' in delivery) this.#inboxBytes += delivery.text.length;
    if (!this.#draining && !this.#paused) {
      this.#draining = true;
      queueMicrotask(() => this.#drain());
    }
  }

  #drain(): void {
    while (!this.#paused && this.#inbox.length > 0) {
      const delivery = this.#inbox.shift()!;
      if ('text' in delivery) {
        this.#inboxBytes -= delivery.text.length;
        if (this.readyState === SOCKET_STATE.OPEN) this.emit('message', delivery.text, false);
        continue;
      }
      // The other side closed: this side answers the handshake and both are closed.
      const { close, reason } = delivery;
      const wasOpen = this.readyState === SOCKET_STATE.OPEN;
      this.readyState = SOCKET_STATE.CLOSED;
      if (wasOpen && close !== ABNORMAL_CLOSURE) this.#peer.#take({ close, reason });
      this.#emitClose(close, reason);
    }
    this.#draining = false;
  }

  #emitClose(code: number, reason: string): void {
    if (this.#closeEmitted) return;
    this.#closeEmitted = true;
    this.readyState = SOCKET_STATE.CLOSED;
    this.#inbox.length = 0;
    this.#inboxBytes = 0;
    this.emit('close', code, reason);
  }
}
