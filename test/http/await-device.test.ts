/**
 * GET /_stub/devices/{device_id}/await over a real port: answered at once when the device is
 * already as asked, on its connect or close, 408 at the real-time bound; bounded, released on
 * reset, and part of the locked control API.
 */
import { once } from 'node:events';
import { describe, expect, test, vi } from 'vitest';
import WebSocket from 'ws';
import { StubControlClient } from '../../client/control-client.ts';
import { MAX_DEVICE_WAITERS } from '../../server-stub/device-waiters.ts';
import { startStub } from '../../server-stub/start-stub.ts';
import { controlClient, request } from '../support/http.ts';

const ADA = '350000000000001';
const START = Date.parse('2026-01-01T00:00:00Z');

/** A badge on a raw socket, welcomed; `hello` adds to its hello (a battery level, …). */
async function connectAda(devicesUrl: string, hello: object = {}): Promise<WebSocket> {
  const ws = new WebSocket(devicesUrl);
  await once(ws, 'open');
  const welcomed = new Promise((resolve) =>
    ws.on('message', (data) => {
      if (JSON.parse(String(data)).type === 'welcome') resolve(undefined);
    }),
  );
  ws.send(
    JSON.stringify({
      type: 'hello',
      seq: 0,
      protocol: 1,
      device_id: ADA,
      key: 'badge-key-0001',
      ...hello,
    }),
  );
  await welcomed;
  return ws;
}

/**
 * Sends a `state` frame, then a wake the stub answers at once: once its `handled` is back,
 * the stub has read the state frame too (frames are read in order; a state is not answered).
 */
async function reportState(ws: WebSocket, seq: number, report: object): Promise<void> {
  const handled = new Promise((resolve) => {
    const onMessage = (data: WebSocket.RawData) => {
      const frame = JSON.parse(String(data));
      if (frame.type !== 'handled' || frame.seq !== seq + 1) return;
      ws.off('message', onMessage);
      resolve(undefined);
    };
    ws.on('message', onMessage);
  });
  ws.send(JSON.stringify({ type: 'state', seq, state: 'idle', ...report }));
  ws.send(JSON.stringify({ type: 'wake', seq: seq + 1, at: 0 }));
  await handled;
}

describe('GET /_stub/devices/{device_id}/await', () => {
  test('a device already as asked answers at once, with the clock', async () => {
    await using stub = await startStub();
    const res = await request(`${stub.controlUrl}/devices/${ADA}/await?online=false&timeout=0`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      device_id: ADA,
      online: false,
      battery_level: null,
      battery_status: null,
      battery_low: false,
      now: '2026-01-01T00:00:00.000000Z',
      now_ms: START,
    });
  });

  test('a device whose battery is already as asked answers at once, with its view', async () => {
    await using stub = await startStub();
    const ws = await connectAda(stub.devicesUrl, {
      battery_level: 40,
      battery_status: 'discharging',
    });
    const res = await request(
      `${stub.controlUrl}/devices/${ADA}/await?online=true&battery_level=40&battery_status=discharging&battery_low=false&timeout=0`,
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      device_id: ADA,
      online: true,
      battery_level: 40,
      battery_status: 'discharging',
      battery_low: false,
      now: '2026-01-01T00:00:00.000000Z',
      now_ms: START,
    });
    ws.close();
  });

  test('a wait for a battery is answered by the state frame that reports it, not by another', async () => {
    await using stub = await startStub();
    const presence = stub.app.gateway.deviceWaiters;
    const ws = await connectAda(stub.devicesUrl, { battery_level: 60 });
    const level = request(`${stub.controlUrl}/devices/${ADA}/await?battery_level=20`);
    const low = request(
      `${stub.controlUrl}/devices/${ADA}/await?online=true&battery_low=true&battery_status=discharging`,
    );
    await vi.waitFor(() => expect(presence.size).toBe(2));

    await reportState(ws, 1, { battery_level: 21, battery_status: 'discharging' });
    expect(presence.size).toBe(2);
    await reportState(ws, 3, { battery_level: 20, battery_status: 'discharging' });
    const answers = await Promise.all([level, low]);
    for (const answer of answers) {
      expect(answer).toMatchObject({
        status: 200,
        body: {
          device_id: ADA,
          online: true,
          battery_level: 20,
          battery_status: 'discharging',
          battery_low: true,
        },
      });
    }
    expect(presence.size).toBe(0);
    ws.close();
  });

  test('a wait for online is answered by the hello, a wait for offline by the close', async () => {
    await using stub = await startStub();
    const presence = stub.app.gateway.deviceWaiters;
    const online = request(`${stub.controlUrl}/devices/${ADA}/await?online=true`);
    await vi.waitFor(() => expect(presence.size).toBe(1));
    const ws = await connectAda(stub.devicesUrl);
    expect((await online).body).toMatchObject({ device_id: ADA, online: true });

    const offline = new StubControlClient(stub.url).waitForDevice(ADA, {
      online: false,
      timeout: '5s',
    });
    await vi.waitFor(() => expect(presence.size).toBe(1));
    ws.close();
    expect(await offline).toMatchObject({ device_id: ADA, online: false });
    expect(presence.size).toBe(0);
  });

  test('none within the timeout is 408 naming timeout, and the waiter is gone', async () => {
    await using stub = await startStub();
    const res = await request(`${stub.controlUrl}/devices/${ADA}/await?online=true&timeout=50ms`);
    expect(res.status).toBe(408);
    expect(res.body).toMatchObject({ statusCode: 408, code: 'await_timeout', field: 'timeout' });
    expect(stub.app.gateway.deviceWaiters.size).toBe(0);

    const ws = await connectAda(stub.devicesUrl, { battery_level: 60 });
    const battery = await request(
      `${stub.controlUrl}/devices/${ADA}/await?battery_level=15&battery_low=true&timeout=50ms`,
    );
    expect(battery).toMatchObject({
      status: 408,
      body: {
        code: 'await_timeout',
        field: 'timeout',
        message: `device '${ADA}' was not battery_level=15, battery_low=true within 50ms (real time)`,
      },
    });
    expect(stub.app.gateway.deviceWaiters.size).toBe(0);
    ws.close();
  });

  test.each([
    ['an unknown device', 'nope', 'online=true', 404, 'unknown_device', 'device_id'],
    ['a built-in name as device', 'valueOf', 'online=true', 404, 'unknown_device', 'device_id'],
    ['__proto__ as device', '__proto__', 'online=true', 404, 'unknown_device', 'device_id'],
    ['no online', ADA, '', 400, undefined, 'online'],
    ['no condition, only a timeout', ADA, 'timeout=1s', 400, 'invalid_field', 'online'],
    ['battery_level=101', ADA, 'battery_level=101', 400, 'invalid_field', 'battery_level'],
    ['battery_level=-1', ADA, 'battery_level=-1', 400, 'invalid_field', 'battery_level'],
    ['battery_level=1.5', ADA, 'battery_level=1.5', 400, 'invalid_field', 'battery_level'],
    ['battery_level=1e2', ADA, 'battery_level=1e2', 400, 'invalid_field', 'battery_level'],
    ['battery_level=valueOf', ADA, 'battery_level=valueOf', 400, 'invalid_field', 'battery_level'],
    [
      'battery_level given twice',
      ADA,
      'battery_level=1&battery_level=2',
      400,
      'invalid_field',
      'battery_level',
    ],
    [
      'an empty battery_level',
      ADA,
      'online=true&battery_level=',
      400,
      'invalid_field',
      'battery_level',
    ],
    [
      'battery_status=__proto__',
      ADA,
      'battery_status=__proto__',
      400,
      'invalid_field',
      'battery_status',
    ],
    ['battery_low=yes', ADA, 'battery_low=yes', 400, 'invalid_field', 'battery_low'],
    ['online=yes', ADA, 'online=yes', 400, undefined, 'online'],
    ['a timeout past 60 s', ADA, 'online=true&timeout=61s', 400, 'invalid_field', 'timeout'],
    [
      'a timeout that is no duration',
      ADA,
      'online=true&timeout=soon',
      400,
      'invalid_field',
      'timeout',
    ],
  ])('%s is refused naming the field', async (_what, device, query, status, code, field) => {
    await using stub = await startStub();
    const res = await request(`${stub.controlUrl}/devices/${device}/await?${query}`);
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ statusCode: status, field, ...(code ? { code } : {}) });
    expect(stub.app.gateway.deviceWaiters.size).toBe(0);
  });

  test('a reset ends a wait with 409, and a client that goes away releases its waiter', async () => {
    await using stub = await startStub();
    const presence = stub.app.gateway.deviceWaiters;
    const waiting = request(`${stub.controlUrl}/devices/${ADA}/await?online=true`);
    await vi.waitFor(() => expect(presence.size).toBe(1));
    await controlClient(stub).reset();
    expect(await waiting).toMatchObject({ status: 409, body: { code: 'wait_interrupted' } });

    const gone = new AbortController();
    const abandoned = fetch(`${stub.controlUrl}/devices/${ADA}/await?online=true`, {
      signal: gone.signal,
    }).catch(() => undefined);
    await vi.waitFor(() => expect(presence.size).toBe(1));
    gone.abort();
    await abandoned;
    await vi.waitFor(() => expect(presence.size).toBe(0));
  });

  test('a stub that stops ends a wait with 409 at once, not at its timeout', async () => {
    const stub = await startStub();
    const waiting = request(`${stub.controlUrl}/devices/${ADA}/await?online=true&timeout=60s`);
    await vi.waitFor(() => expect(stub.app.gateway.deviceWaiters.size).toBe(1));
    const started = performance.now();
    await stub.close();
    expect(await waiting).toMatchObject({ status: 409, body: { code: 'wait_interrupted' } });
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  test(`waits past ${MAX_DEVICE_WAITERS} at once are refused with 429`, async () => {
    await using stub = await startStub();
    const presence = stub.app.gateway.deviceWaiters;
    const held = Array.from({ length: MAX_DEVICE_WAITERS }, () =>
      presence.wait(ADA, { online: true }, { timeoutMs: 10_000 }),
    );
    const res = await request(`${stub.controlUrl}/devices/${ADA}/await?online=true`);
    expect(res).toMatchObject({ status: 429, body: { code: 'too_many_waiters' } });
    expect(presence.size).toBe(MAX_DEVICE_WAITERS);
    presence.interruptAll('reset');
    await Promise.all(held);
    expect(presence.size).toBe(0);
  });

  test('a locked control API refuses a wait without its token', async () => {
    await using stub = await startStub({ controlToken: 'a-control-token-of-some-length' });
    const res = await request(`${stub.controlUrl}/devices/${ADA}/await?online=false`);
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ code: 'missing_control_token' });
  });
});
