/**
 * Slow HTTP clients are cut off (docs/decisions.md I9): one that connects and sends nothing,
 * one that sends its headers a byte at a time, one that sends its body a byte at a time.
 * A normal keep-alive client and a connected WebSocket badge are not. The timeouts are real
 * transport time, set small (a few hundred ms) for the test.
 */
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import { startStub } from '../../server-stub/start-stub.ts';
import { request, serviceClient } from '../support/http.ts';

const TIMEOUTS = { headersMs: 300, requestMs: 600, keepAliveMs: 300, stalledAnswerMs: 300 };
/** Well past every timeout above: a client still connected then was not cut off. */
const PAST = 1_500;

/** A raw TCP client; `closedWithin` resolves to whether the server closed it in time. */
async function rawSocket(port: number) {
  const socket = connect({ host: '127.0.0.1', port });
  await once(socket, 'connect');
  let received = '';
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => {
    received += chunk;
  });
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return {
    socket,
    received: () => received,
    closedWithin: (ms: number) =>
      Promise.race([closed.then(() => true), sleep(ms).then(() => false)]),
  };
}

/** Writes `text` one byte every `everyMs`, until done or the socket is closed. */
async function dribble(socket: Socket, text: string, everyMs: number) {
  for (const byte of text) {
    if (socket.destroyed || socket.writableEnded) return;
    socket.write(byte);
    await sleep(everyMs);
  }
}

describe('slow HTTP clients are cut off', () => {
  test('the timeouts are settings, shown by GET /_stub/settings', async () => {
    await using stub = await startStub({ timeouts: TIMEOUTS });
    const res = await request(`${stub.controlUrl}/settings`);
    expect(res.body.httpTimeouts).toEqual(TIMEOUTS);
    await using defaults = await startStub();
    expect((await request(`${defaults.controlUrl}/settings`)).body.httpTimeouts).toEqual({
      headersMs: 10_000,
      requestMs: 30_000,
      keepAliveMs: 5_000,
      stalledAnswerMs: 30_000,
    });
  });

  test('a client that asks for a large answer and never reads it is dropped, not held for ever', async () => {
    // 40,000 devices: GET /_stub/devices answers several MB, more than the socket buffers hold.
    const devices = Array.from({ length: 40_000 }, (_, i) => ({
      id: String(350_000_000_000_000 + i),
      user: `Worker number ${i} of the night shift`,
    }));
    await using stub = await startStub({
      timeouts: TIMEOUTS,
      fixtures: {
        accounts: [
          {
            subscriber_id: '100001',
            api_keys: ['stalled-answer-key-0001'],
            groups: [{ id: '1', name: 'All', members: [devices[0]!.id] }],
            devices,
          },
        ],
      },
    });
    const client = await rawSocket(stub.port);
    client.socket.write('GET /_stub/devices HTTP/1.1\r\nHost: x\r\n\r\n');
    client.socket.pause(); // reads nothing more: the answer stalls in the buffers
    // A paused client does not see the close: ask the server how many connections it holds.
    const connections = () =>
      new Promise<number>((resolve) =>
        stub.app.server.getConnections((_error, count) => resolve(count)),
      );
    await sleep(100);
    expect(await connections()).toBe(1);
    await expect.poll(connections, { timeout: 5_000, interval: 100 }).toBe(0);
    client.socket.destroy();
  });

  test('a client that connects and sends nothing is disconnected', async () => {
    await using stub = await startStub({ timeouts: TIMEOUTS });
    const client = await rawSocket(stub.port);
    expect(await client.closedWithin(PAST)).toBe(true);
  });

  test('a client that sends its headers a byte every 100 ms is disconnected', async () => {
    await using stub = await startStub({ timeouts: TIMEOUTS });
    const client = await rawSocket(stub.port);
    const headers = `GET /_stub/health HTTP/1.1\r\nHost: x\r\nX-Slow: ${'a'.repeat(100)}\r\n\r\n`;
    void dribble(client.socket, headers, 100);
    expect(await client.closedWithin(PAST)).toBe(true);
    // Cut before it could finish its request: it never got an answer of 200.
    expect(client.received()).not.toMatch(/^HTTP\/1\.1 200/);
  });

  test('a client that sends its body a byte every 100 ms is disconnected', async () => {
    await using stub = await startStub({ timeouts: TIMEOUTS });
    const client = await rawSocket(stub.port);
    const body = JSON.stringify({ by: '1s', padding: undefined }).padEnd(60, ' ');
    client.socket.write(
      `POST /_stub/clock/advance HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    void dribble(client.socket, body, 100);
    expect(await client.closedWithin(PAST)).toBe(true);
    // The advance never happened.
    expect((await request(`${stub.controlUrl}/clock`)).body.now).toBe(
      '2026-01-01T00:00:00.000000Z',
    );
  });

  test('a normal keep-alive client is served, request after request, and closed when idle', async () => {
    await using stub = await startStub({ timeouts: TIMEOUTS });
    const client = await rawSocket(stub.port);
    for (let i = 0; i < 4; i++) {
      client.socket.write('GET /_stub/health HTTP/1.1\r\nHost: x\r\n\r\n');
      await expect.poll(() => client.received().split('HTTP/1.1 200').length - 1).toBe(i + 1);
      // Within the keep-alive timeout: the same connection serves the next request.
      await sleep(100);
    }
    expect(client.socket.destroyed).toBe(false);
    // Idle after its last answer: closed once the keep-alive timeout has passed.
    expect(await client.closedWithin(PAST)).toBe(true);
  });

  test('a connected WebSocket badge stays connected past every timeout', async () => {
    await using stub = await startStub({ timeouts: TIMEOUTS });
    const ws = new WebSocket(stub.devicesUrl);
    const frames: { type: string }[] = [];
    ws.on('message', (data) => frames.push(JSON.parse(String(data))));
    let closed = false;
    ws.on('close', () => {
      closed = true;
    });
    await once(ws, 'open');
    ws.send(
      JSON.stringify({
        seq: 0,
        type: 'hello',
        protocol: 1,
        device_id: '350000000000001',
        key: 'badge-key-0001',
      }),
    );
    await expect.poll(() => frames.some((f) => f.type === 'welcome')).toBe(true);
    await sleep(PAST);
    expect(closed).toBe(false);
    const devices = await request<{ device_id: string; online: boolean }[]>(
      `${stub.controlUrl}/devices`,
    );
    expect(devices.body.find((d) => d.device_id === '350000000000001')?.online).toBe(true);
    ws.close();
  });

  test('an answer that takes longer than every timeout is still sent (a slow badge holds an advance)', async () => {
    const SHORT = { headersMs: 100, requestMs: 100, keepAliveMs: 100 };
    await using stub = await startStub({ clock: 'virtual', timeouts: SHORT });
    // A badge that answers each frame after 150 ms: every timer of the alert holds the clock.
    const ws = new WebSocket(stub.devicesUrl);
    ws.on('message', (data) => {
      const frame = JSON.parse(String(data)) as { type: string; seq: number };
      if (frame.type === 'handled' || frame.type === 'error') return;
      setTimeout(() => ws.send(JSON.stringify({ type: 'handled', seq: frame.seq })), 150);
    });
    await once(ws, 'open');
    ws.send(
      JSON.stringify({
        seq: 0,
        type: 'hello',
        protocol: 1,
        device_id: '350000000000001',
        key: 'badge-key-0001',
      }),
    );
    await expect
      .poll(async () => {
        const devices = await request<{ device_id: string; online: boolean }[]>(
          `${stub.controlUrl}/devices`,
        );
        return devices.body.find((d) => d.device_id === '350000000000001')?.online;
      })
      .toBe(true);
    const alert = await serviceClient(stub).alert({
      notification: 'Slow badge',
      groups: ['Nurses'],
      timeout: 60,
    });
    expect(alert.status).toBe(200);
    const started = performance.now();
    const advanced = await request<{ held_by: unknown[] }>(`${stub.controlUrl}/clock/advance`, {
      method: 'POST',
      body: { by: '2m' },
    });
    const took = performance.now() - started;
    // Longer than every timeout, and answered all the same; the badge held the clock, in time.
    expect(took).toBeGreaterThan(3 * 100);
    expect(advanced.status).toBe(200);
    expect(advanced.body.held_by).toEqual([]);
    ws.close();
  });
});

/** The last HTTP answer in raw text: its status line, headers and JSON body. */
function lastAnswer(raw: string) {
  const at = [...raw.matchAll(/HTTP\/1\.1 \d{3} /g)].at(-1)?.index ?? 0;
  const [head = '', body = ''] = raw.slice(at).split('\r\n\r\n');
  return { status: Number(head.slice(9, 12)), head: head.toLowerCase(), body: JSON.parse(body) };
}

describe("what Node refuses before a route is in the stub's error shape", () => {
  test.each([
    [
      'a silent client gets 408 request_timeout',
      () => '',
      408,
      { code: 'request_timeout', field: 'request', error: 'Request Timeout' },
    ],
    [
      'a 20 KB header gets 431 headers_too_large',
      () => `GET /_stub/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      431,
      { code: 'headers_too_large', field: 'headers' },
    ],
    [
      'a 100 KB URL gets 431 headers_too_large',
      () => `GET /_stub/health?q=${'a'.repeat(100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
      431,
      { code: 'headers_too_large', field: 'headers' },
    ],
    [
      'a Content-Length shorter than the body gets 400 bad_request for what follows',
      () =>
        'POST /_stub/clock/advance HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5\r\n\r\n{"by":"1s"}',
      400,
      { code: 'bad_request', field: 'request' },
    ],
    [
      'bytes that are not HTTP get 400 bad_request',
      () => 'HELLO THERE\r\n\r\n',
      400,
      { code: 'bad_request', field: 'request' },
    ],
  ])('%s, with a field and Connection: close', async (_name, text, status, fields) => {
    await using stub = await startStub({ timeouts: TIMEOUTS });
    const client = await rawSocket(stub.port);
    const sent = text();
    if (sent) client.socket.write(sent);
    expect(await client.closedWithin(PAST)).toBe(true);
    const answer = lastAnswer(client.received());
    expect(answer.status).toBe(status);
    expect(answer.head).toContain('connection: close');
    expect(answer.head).toContain('content-type: application/json');
    expect(answer.body).toMatchObject({ statusCode: status, ...fields });
    expect(answer.body.message).toEqual(expect.any(String));
  });
});
