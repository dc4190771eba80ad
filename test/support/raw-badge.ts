import { once } from 'node:events';
import { expect, vi } from 'vitest';
import WebSocket from 'ws';

/**
 * A badge on a raw socket: says hello as a device (with `extra` fields, such as `resumes`),
 * answers every frame with `handled`, keeps every frame it got; resolves once welcomed.
 */
export async function rawBadge(
  devicesUrl: string,
  deviceId: string,
  key: string,
  extra: Record<string, unknown> = {},
): Promise<{ ws: WebSocket; frames: any[] }> {
  const ws = new WebSocket(devicesUrl);
  const frames: any[] = [];
  ws.on('message', (data) => {
    const frame = JSON.parse(String(data));
    frames.push(frame);
    if (frame.type !== 'handled' && frame.type !== 'error')
      ws.send(JSON.stringify({ type: 'handled', seq: frame.seq }));
  });
  await once(ws, 'open');
  ws.send(
    JSON.stringify({ type: 'hello', seq: 0, protocol: 1, device_id: deviceId, key, ...extra }),
  );
  await vi.waitFor(() => expect(frames.some((f) => f.type === 'welcome')).toBe(true));
  return { ws, frames };
}
