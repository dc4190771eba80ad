/**
 * A badge's link to the stub over a real socket: a server that takes the TCP connection but
 * never answers the WebSocket upgrade (decision F10).
 */
import { once } from 'node:events';
import { createServer, type Socket } from 'node:net';
import { describe, expect, test, vi } from 'vitest';
import type { OutgoingBadgeFrame } from '../protocol/device-frames.schema.ts';
import { type FrameSocket, SOCKET_STATE } from '../protocol/frame-socket.ts';
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

describe('what a link sends', () => {
  /** A socket that is open and keeps what is sent on it. */
  function recordingSocket(): FrameSocket & { sent: string[] } {
    const socket = {
      sent: [] as string[],
      readyState: SOCKET_STATE.OPEN,
      bufferedAmount: 0,
      send: (data: string) => socket.sent.push(data),
      close() {},
      terminate() {},
      pause() {},
      on: () => socket,
      once: () => socket,
      removeAllListeners: () => socket,
    };
    return socket as unknown as FrameSocket & { sent: string[] };
  }

  test('every frame is JSON.stringify of the frame with its seq, a frozen one serialised once and a changed one anew', () => {
    const socket = recordingSocket();
    const link = new BadgeLink(
      'ws://127.0.0.1:1/devices',
      {} as never,
      new Outstanding(),
      undefined,
      1000,
      () => socket,
    );
    link.open();
    const report = Object.freeze({ type: 'state', state: 'playing' } as const);
    const moving: OutgoingBadgeFrame = { type: 'state', state: 'idle', battery_level: 80 };
    const frames: OutgoingBadgeFrame[] = [
      { type: 'hello', protocol: 1, device_id: 'b-"1"\n', battery_level: 50, app_version: 'x' },
      { type: 'button', taps: 'single', task_id: undefined },
      report,
      moving,
      report,
    ];
    const expected: string[] = [];
    frames.forEach((frame, seq) => {
      link.send(frame);
      expected.push(JSON.stringify({ ...frame, seq }));
    });
    moving.battery_level = 79;
    link.send(moving);
    expected.push(JSON.stringify({ ...moving, seq: frames.length }));
    expect(socket.sent).toEqual(expected);
    expect(socket.sent[5]).toContain('"battery_level":79');
  });
});
