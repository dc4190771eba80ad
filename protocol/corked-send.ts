import type { Socket } from 'node:net';
import type { FrameSocket } from './frame-socket.ts';

/**
 * At most this many sockets stay corked at once. A fan-out writes to thousands of sockets in
 * one synchronous loop: uncorking them only at the end of the tick would hold every frame back
 * until the last one is written, and the receiving process would sit idle meanwhile. Flushing
 * every 64 sockets lets the receiver start on the first frames while the sender writes the rest.
 */
const MAX_CORKED_SOCKETS = 64;

let corked = new Set<Socket>();
let flushQueued = false;

/**
 * Sends on a WebSocket with its TCP socket corked until the end of the tick, so the frames
 * one connection sends in the same tick (a badge's state report and its `handled`) leave in
 * one write instead of one system call each. At 10,000 badges that is most of the cost.
 *
 * A peer that does not read makes everything sent to it wait in this process's memory. With
 * `maxQueuedBytes`, nothing is sent once that much is queued (`ws.bufferedAmount`: written but
 * not yet taken by the kernel), and the answer is false: the caller cuts such a peer off. So
 * one connection never holds more than the cap plus one frame.
 */
export function sendCorked(
  ws: FrameSocket,
  data: string,
  maxQueuedBytes = Number.POSITIVE_INFINITY,
): boolean {
  if (ws.bufferedAmount > maxQueuedBytes) return false;
  // ws keeps its socket private; corking it is the only way to coalesce writes. An in-process
  // socket has none, and nothing to coalesce.
  const socket = (ws as unknown as { _socket?: Socket })._socket;
  if (socket && !corked.has(socket)) {
    corked.add(socket);
    socket.cork();
    if (!flushQueued) {
      flushQueued = true;
      // nextTick runs once this tick's promise jobs are done: every frame they sent is in.
      process.nextTick(flushAtTickEnd);
    }
  }
  ws.send(data);
  if (corked.size >= MAX_CORKED_SOCKETS) uncorkAll();
  return true;
}

function flushAtTickEnd(): void {
  flushQueued = false;
  uncorkAll();
}

function uncorkAll(): void {
  // A fresh set first: a socket corked again while these flush belongs to the next batch.
  const sockets = corked;
  corked = new Set();
  for (const socket of sockets) socket.uncork();
}
