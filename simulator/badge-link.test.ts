/**
 * A badge's link to the stub over a real socket: a server that takes the TCP connection but
 * never answers the WebSocket upgrade (decision F10).
 */
import { once } from 'node:events';
import { createServer, type Socket } from 'node:net';
import { describe, expect, test, vi } from 'vitest';
import { BadgeLink, HANDSHAKE_TIMEOUT_MS, Outstanding } from './transport.ts';

describe('a stub that never answers the upgrade', () => {
  test('the connect fails after the handshake timeout (1006), and the clock stops waiting for it', async () => {
    const sockets: Socket[] = [];
    const server = createServer((socket) => {
      sockets.push(socket); // Read, never written: the upgrade is never answered.
      socket.on('error', () => undefined);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as { port: number };
    try {
      const outstanding = new Outstanding();
      const closes: number[] = [];
      let opened = false;
      const link = new BadgeLink(
        `ws://127.0.0.1:${port}/devices`,
        {
          frame: () => undefined,
          opened: () => {
            opened = true;
          },
          closed: (code) => closes.push(code),
        },
        outstanding,
        undefined,
        150,
      );
      link.open();
      // The server has the connection, and the connect is outstanding work for the clock.
      await vi.waitFor(() => expect(sockets).toHaveLength(1));
      expect(outstanding.count).toBe(1);
      expect(closes).toEqual([]);
      await vi.waitFor(() => expect(closes).toEqual([1006]), { timeout: 5_000 });
      expect(opened).toBe(false);
      expect(link.isOpen).toBe(false);
      expect(outstanding.count).toBe(0);
      await outstanding.quiet(0);
    } finally {
      for (const socket of sockets) socket.destroy();
      server.close();
    }
  });

  test('a link made without a timeout of its own uses the default', () => {
    const link = new BadgeLink('ws://127.0.0.1:1/devices', {} as never, new Outstanding());
    expect(link.handshakeTimeoutMs).toBe(HANDSHAKE_TIMEOUT_MS);
    expect(HANDSHAKE_TIMEOUT_MS).toBe(10_000);
  });
});
