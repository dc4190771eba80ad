/**
 * A badge that reconnects with its old session: its network vanished without a close, so the
 * stub still holds the old (half-open) socket when the new one says hello. Over real sockets:
 * raw clients for the stub's side, virtual badges for the badge's side.
 */
import { once } from 'node:events';
import { describe, expect, test, vi } from 'vitest';
import WebSocket from 'ws';
import { CLOSE_CODES } from '../../protocol/device-frames.schema.ts';
import { startStub } from '../../server-stub/start-stub.ts';
import { startFleet } from '../../simulator/fleet.ts';
import { controlClient, RIVERSIDE, request, serviceClient } from '../support/http.ts';

const ADA = '350000000000001';

/** A raw badge that answers every frame with `handled` (while it reads) and keeps them. */
async function rawBadge(devicesUrl: string) {
  const ws = new WebSocket(devicesUrl);
  const frames: any[] = [];
  let closed: number | undefined;
  ws.on('message', (data) => {
    const frame = JSON.parse(String(data));
    frames.push(frame);
    if (frame.type !== 'handled' && frame.type !== 'error')
      ws.send(JSON.stringify({ type: 'handled', seq: frame.seq }));
  });
  ws.on('close', (code) => {
    closed = code;
  });
  await once(ws, 'open');
  ws.send(
    JSON.stringify({ type: 'hello', seq: 0, protocol: 1, device_id: ADA, key: 'badge-key-0001' }),
  );
  await vi.waitFor(() => expect(frames.some((f) => f.type === 'welcome')).toBe(true));
  return { ws, frames, closed: () => closed };
}

describe('a hello for a device whose old connection is still held', () => {
  test('a half-open old connection is replaced at once: the new socket hears the open alert, and what the old one owed holds no clock', async () => {
    await using stub = await startStub();
    const gateway = stub.app.gateway;
    const old = await rawBadge(stub.devicesUrl);
    const alert = (
      await serviceClient(stub).alert({ notification: 'Code blue', groups: ['Nurses'] })
    ).body;
    await vi.waitFor(() => expect(old.frames.some((f) => f.type === 'play')).toBe(true));
    // The network vanishes: the old socket reads nothing more, and nobody closes it.
    old.ws.pause();
    const advancing = request(`${stub.controlUrl}/clock/advance`, {
      method: 'POST',
      body: { by: '1s' },
    });
    // The clock frame of that advance now waits on a socket that will never answer.
    await vi.waitFor(() => expect(gateway.connectionStats()[0]?.pending).toBe(1));

    const started = performance.now();
    const fresh = await rawBadge(stub.devicesUrl);
    expect(gateway.connectionStats()).toEqual([{ deviceId: ADA, pending: 0, responsive: true }]);
    const advanced = await advancing;
    expect(advanced.body).toMatchObject({ held_by: [], unresponsive: [] });
    expect(performance.now() - started).toBeLessThan(1_500); // the bound is 2 s
    await vi.waitFor(() =>
      expect(fresh.frames).toContainEqual(
        expect.objectContaining({ type: 'play', task_id: alert.task_id }),
      ),
    );
    expect(gateway.liveState(ADA)).toMatchObject({ online: true, lastDisconnect: null });

    // The device acknowledges on its new connection, as itself.
    fresh.ws.send(JSON.stringify({ type: 'button', seq: 1, taps: 'single' }));
    const auth = { authorization: `ServiceApiKey ${RIVERSIDE.key}` };
    await vi.waitFor(async () => {
      const events = (
        await request<any[]>(`${stub.url}/subscribers/${RIVERSIDE.id}/api/v1/events`, {
          headers: auth,
        })
      ).body;
      expect(events.filter((e) => e.content.type === 'acknowledged')).toEqual([
        expect.objectContaining({ content: { type: 'acknowledged', device: 'Ada Mensah' } }),
      ]);
    });
    old.ws.terminate();
    fresh.ws.close();
  });

  test('a live old connection is replaced too: it is closed with 4003 and the new one holds the device', async () => {
    await using stub = await startStub();
    const old = await rawBadge(stub.devicesUrl);
    const fresh = await rawBadge(stub.devicesUrl);
    await vi.waitFor(() => expect(old.closed()).toBe(CLOSE_CODES.replaced));
    expect(fresh.closed()).toBeUndefined();
    expect(stub.app.gateway.connected()).toEqual([ADA]);
    expect((await controlClient(stub).devices()).body).toContainEqual(
      expect.objectContaining({ device_id: ADA, online: true }),
    );
    fresh.ws.close();
  });
});

describe('a virtual badge that vanishes', () => {
  test('the stub still sees it online; what it sends meanwhile is never heard; back on a new socket the badge hears the open alert again and acknowledges', async () => {
    await using stub = await startStub({ settings: { badgeAnswerTimeoutMs: 100 } });
    await using fleet = await startFleet({ stub, group: 'Nurses' });
    await fleet.waitUntilConnected();
    const badge = fleet.badge(ADA);
    const alert = (
      await serviceClient(stub).alert({ notification: 'Code blue', groups: ['Nurses'] })
    ).body;
    await fleet.advanceBy(1_000);
    expect(badge.openAlerts).toEqual([alert.task_id]);

    badge.vanish();
    expect(badge.online).toBe(false);
    await fleet.advanceBy(60_000); // the repeats at 30 s and 60 s go to the silent socket
    expect(stub.app.gateway.liveState(ADA).online).toBe(true); // half-open: nobody told it

    badge.comeBack();
    await vi.waitFor(() => expect(badge.online).toBe(true));
    expect(stub.app.gateway.connectionStats().filter((c) => c.deviceId === ADA)).toHaveLength(1);
    await fleet.advanceBy(1_000);
    expect(badge.openAlerts).toEqual([alert.task_id]);
    // Heard: the first play, then the replay on the new connection; nothing buffered on the old.
    expect(badge.transcript.map((entry) => entry.at)).toEqual([
      '2026-01-01T00:00:00.000000Z',
      '2026-01-01T00:01:01.000000Z',
    ]);
    badge.tap();
    await fleet.advanceBy(1_000);
    expect(stub.core.engine.task(alert.task_id)?.devices).toContainEqual(
      expect.objectContaining({ device_id: ADA, status: 'acknowledged' }),
    );
    expect(stub.app.gateway.liveState(ADA)).toMatchObject({ online: true, lastDisconnect: null });
  });
});

describe('a badge in the same process as its stub vanishes (decision SP2)', () => {
  test('the stub is told: the clock does not wait the answer bound for it, and the hold is told as after the bound', async () => {
    // A bound longer than the test's own timeout: waiting it out would fail the test.
    await using stub = await startStub({ settings: { badgeAnswerTimeoutMs: 60_000 } });
    await using fleet = await startFleet({ stub, group: 'Nurses' });
    await fleet.waitUntilConnected();
    const holds: { deviceId: string; waitedMs: number; boundMs: number }[] = [];
    stub.app.gateway.onHold((hold) => holds.push(hold));
    await serviceClient(stub).alert({ notification: 'Code blue', groups: ['Nurses'] });
    await fleet.advanceBy(1_000);

    fleet.badge(ADA).vanish();
    await fleet.advanceBy(60_000); // the repeats at 30 s and 60 s go to the silent socket

    expect(holds).toEqual([{ deviceId: ADA, user: 'Ada Mensah', waitedMs: 0, boundMs: 60_000 }]);
    // Still half-open, as the stub was not told it closed: online, counted unresponsive.
    expect(stub.app.gateway.liveState(ADA)).toMatchObject({ online: true, responsive: false });
    fleet.badge(ADA).comeBack();
    await vi.waitFor(() => expect(fleet.badge(ADA).online).toBe(true));
    expect(stub.app.gateway.liveState(ADA)).toMatchObject({ online: true, responsive: true });
  }, 30_000);
});
