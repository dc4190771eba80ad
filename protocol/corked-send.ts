import type { Socket } from 'node:net';
import type WebSocket from 'ws';

const corked = new WeakSet<Socket>();

/**
 * Sends on a WebSocket with its TCP socket corked until the end of the tick, so the frames
 * one connection sends in the same tick (a badge's state report and its `handled`) leave in
 * one write instead of one system call each. At 10,000 badges that is most of the cost.
 */
export function sendCorked(ws: WebSocket, data: string): void {
  // ws keeps its socket private; corking it is the only way to coalesce writes.
  const socket = (ws as unknown as { _socket?: Socket })._socket;
  if (socket && !corked.has(socket)) {
    corked.add(socket);
    socket.cork();
    // nextTick runs once this tick's promise jobs are done: every frame they sent is in.
    process.nextTick(() => {
      corked.delete(socket);
      socket.uncork();
    });
  }
  ws.send(data);
}
