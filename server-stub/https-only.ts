import type { Server, Socket } from 'node:net';
import { refuseOnSocket } from './http-errors.ts';

/**
 * Lets only TLS reach the TLS server: the first byte of a connection says which it is (22, a
 * TLS handshake record). Anything else, a plain `http://` or `ws://` client, is answered
 * 400 `https_required` in the stub's error shape, in plain HTTP it can read, and closed. A
 * connection that sends nothing is dropped after `silentMs`, as a plain stub would.
 */
export function refusePlainHttp(server: Server, silentMs: number): void {
  const tlsListeners = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  server.on('connection', (socket: Socket) => {
    const ignore = () => undefined;
    socket.on('error', ignore);
    socket.setTimeout(silentMs, () => socket.destroy());
    socket.once('readable', () => {
      const first: Buffer | null = socket.read(1);
      if (first === null) {
        socket.destroy();
        return;
      }
      socket.unshift(first);
      socket.setTimeout(0);
      socket.off('error', ignore);
      if (first[0] === 0x16) {
        for (const listener of tlsListeners) listener.call(server, socket);
        return;
      }
      // Read and drop what it sends, so closing does not reset the answer away.
      socket.on('error', ignore);
      socket.resume();
      refuseOnSocket(
        socket,
        400,
        'https_required',
        'this port speaks HTTPS only (badge-sim stub --tls): use https:// (wss:// for badges) with the same host and port',
        'url',
      );
    });
  });
}
