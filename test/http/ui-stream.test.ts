/**
 * Issue 16, the live stream behind the dashboard, over a real port: `GET /_stub/stream` sends a
 * snapshot, then what changes; it is locked like the rest of the control API; a client that
 * does not read gets merged updates, never an unbounded queue; and the badges the stub runs
 * (`badges: 'all'`) can be taken offline and brought back.
 */
import { once } from 'node:events';
import { connect } from 'node:net';
import { describe, expect, test } from 'vitest';
import { StubControlClient } from '../../client/control-client.ts';
import { ServiceError } from '../../client/service-client.ts';
import { generateFixtures } from '../../fixtures/generate-fixtures.ts';
import { startStub } from '../../index.ts';
import type { LiveSnapshot, LiveUpdate } from '../../protocol/live-stream.schema.ts';
import {
  STREAM_CLIENTS_MAX,
  STREAM_PENDING_EVENTS_MAX,
  STREAM_TASKS_MAX,
} from '../../protocol/live-stream.schema.ts';
import { LiveFeed } from '../../server-stub/live-feed.ts';
import { startFleet } from '../../simulator/fleet.ts';
import { RIVERSIDE, request, serviceClient } from '../support/http.ts';

const ADA = '350000000000001';
const LENA = '350000000000003';
const HEADER = 'X-Badge-Sim-Control-Token';
/** A transport guard: how long a test waits for a message that should come at once. */
const GUARD_MS = 5_000;

type Message = { name: 'snapshot'; data: LiveSnapshot } | { name: 'update'; data: LiveUpdate };

/** Opens the stream and reads its messages as they come; `next` waits for one that matches. */
async function openStream(url: string, headers: Record<string, string> = {}) {
  const abort = new AbortController();
  const response = await fetch(`${url}/_stub/stream`, { headers, signal: abort.signal });
  const messages: Message[] = [];
  let wake: () => void = () => {};
  let ended = false;
  void (async () => {
    if (!response.body) return;
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const name = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (name && data) messages.push({ name, data: JSON.parse(data) } as Message);
          wake();
        }
      }
    } catch {
      // Aborted by the test.
    }
    ended = true;
    wake();
  })();
  let read = 0;
  return {
    response,
    messages,
    /** The next message (after those already taken) that `match` accepts. */
    async next(match: (m: Message) => boolean = () => true): Promise<Message> {
      const deadline = performance.now() + GUARD_MS;
      for (;;) {
        while (read < messages.length) {
          const message = messages[read++]!;
          if (match(message)) return message;
        }
        if (ended) throw new Error('the stream ended');
        const left = deadline - performance.now();
        if (left <= 0) throw new Error(`no matching message within ${GUARD_MS} ms`);
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, left).unref();
        });
      }
    },
    close: () => abort.abort(),
  };
}

const isUpdate = (m: Message): m is Extract<Message, { name: 'update' }> => m.name === 'update';

describe('GET /_stub/stream', () => {
  test('a snapshot first: clock, accounts and groups, every device with its groups, no task yet', async () => {
    await using stub = await startStub({ seed: 1 });
    const stream = await openStream(stub.url);
    expect(stream.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const first = await stream.next();
    stream.close();
    expect(first.name).toBe('snapshot');
    const snapshot = first.data as LiveSnapshot;
    expect(snapshot.clock).toMatchObject({ mode: 'virtual', now: '2026-01-01T00:00:00.000000Z' });
    expect(snapshot.accounts.map((a) => a.subscriber_id)).toEqual(['100001', '100002']);
    expect(snapshot.devices).toHaveLength(8);
    expect(snapshot.devices.find((d) => d.device_id === LENA)).toMatchObject({
      user: 'Lena Ortiz',
      groups: ['Nurses', 'Pharmacy'],
      online: false,
      state: null,
      heard: null,
      run_by_stub: false,
    });
    expect(snapshot.tasks).toEqual([]);
    expect(JSON.stringify(snapshot)).not.toContain(RIVERSIDE.key);
  });

  test('an alert sent over HTTP arrives as its start event, the alerting task and what each device plays; a tap as acknowledged', async () => {
    await using stub = await startStub({ seed: 1 });
    const stream = await openStream(stub.url);
    await stream.next();
    const sent = await serviceClient(stub).alert({
      notification: 'Code blue',
      groups: ['Nurses'],
      quorum: 1,
    });
    const taskId = sent.body.task_id as string;
    const started = await stream.next((m) => isUpdate(m) && m.data.events.length > 0);
    const update = started.data as LiveUpdate;
    expect(update.events[0]).toMatchObject({
      subscriber_id: RIVERSIDE.id,
      event: { content: { type: 'start' }, task: { id: taskId } },
    });
    expect(update.tasks?.[0]).toMatchObject({
      task_id: taskId,
      state: 'alerting',
      quorum: 1,
      timeout_at: '2026-01-01T00:05:00.000000Z',
    });
    expect(update.devices.find((d) => d.device_id === ADA)?.heard).toMatchObject({
      kind: 'play',
      text: 'Code blue',
      task_id: taskId,
    });
    await request(`${stub.controlUrl}/devices/${ADA}/tap`, { method: 'POST' });
    const acked = await stream.next(
      (m) => isUpdate(m) && m.data.events.some((e) => e.event.content.type === 'acknowledged'),
    );
    stream.close();
    const after = acked.data as LiveUpdate;
    expect(after.events.map((e) => e.event.content)).toContainEqual({
      type: 'acknowledged',
      device: 'Ada Mensah',
    });
    expect(after.tasks?.[0]).toMatchObject({
      state: 'ended',
      outcome: 'quorum',
      acknowledgements: 1,
    });
    expect(after.devices.find((d) => d.device_id === ADA)?.heard).toBeNull();
  });

  test('a clock advance is told with the new now; a reset sends a new snapshot', async () => {
    await using stub = await startStub({ seed: 1 });
    const stream = await openStream(stub.url);
    await stream.next();
    await request(`${stub.controlUrl}/clock/advance`, { method: 'POST', body: { by: '30s' } });
    const moved = await stream.next(isUpdate);
    expect(moved.data.clock.now).toBe('2026-01-01T00:00:30.000000Z');
    await request(`${stub.controlUrl}/reset`, { method: 'POST' });
    const again = await stream.next((m) => m.name === 'snapshot');
    stream.close();
    expect(again.data.clock.now).toBe('2026-01-01T00:00:00.000000Z');
  });

  test(`tasks: the alerting ones newest first, then the newest ended, at most ${STREAM_TASKS_MAX}`, async () => {
    await using stub = await startStub({ seed: 1 });
    const api = serviceClient(stub);
    const ids: string[] = [];
    for (let i = 0; i < STREAM_TASKS_MAX + 5; i++) {
      const sent = await api.alert({ notification: `n${i}`, groups: ['Security'], name: `a${i}` });
      ids.push(sent.body.task_id);
    }
    await api.cancel(ids[0]!);
    await api.cancel(ids[1]!);
    const snapshot = await new StubControlClient(stub.url).liveSnapshot();
    expect(snapshot.tasks).toHaveLength(STREAM_TASKS_MAX);
    const alerting = ids.slice(2).reverse();
    expect(snapshot.tasks.map((t) => t.task_id)).toEqual(alerting.slice(0, STREAM_TASKS_MAX));
    await using few = await startStub({ seed: 1 });
    const fewApi = serviceClient(few);
    const first = (await fewApi.alert({ notification: 'x', groups: ['Security'], name: 'x' })).body;
    const second = (await fewApi.alert({ notification: 'y', groups: ['Security'], name: 'y' }))
      .body;
    const third = (await fewApi.alert({ notification: 'z', groups: ['Security'], name: 'z' })).body;
    await fewApi.cancel(first.task_id);
    await fewApi.cancel(third.task_id);
    const tasks = (await new StubControlClient(few.url).liveSnapshot()).tasks;
    expect(tasks.map((t) => [t.task_id, t.state])).toEqual([
      [second.task_id, 'alerting'],
      [third.task_id, 'ended'],
      [first.task_id, 'ended'],
    ]);
  });

  test('a stub stopping ends the streams still open, and its close does not wait for them', async () => {
    const stub = await startStub();
    const stream = await openStream(stub.url);
    await stream.next();
    await stub.close();
    await expect(stream.next()).rejects.toThrow('the stream ended');
  });

  test('?once=true sends the snapshot and ends', async () => {
    await using stub = await startStub();
    const response = await fetch(`${stub.controlUrl}/stream?once=true`);
    const text = await response.text();
    expect(text).toMatch(/^event: snapshot\ndata: \{.*\}\n\n$/s);
    // HEAD answers the headers and ends: it subscribes to nothing.
    const head = await fetch(`${stub.controlUrl}/stream`, { method: 'HEAD' });
    expect(head.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(stub.app.feed.subscribers).toBe(0);
  });

  test('locked: without the header or with a wrong one 401 naming the header; the token is never in what is sent', async () => {
    const token = 'stream-test-control-token';
    await using stub = await startStub({ controlToken: token });
    for (const headers of [{}, { [HEADER]: 'wrong' }] as Record<string, string>[]) {
      const refused = await request(`${stub.controlUrl}/stream`, { headers });
      expect(refused.status).toBe(401);
      expect(refused.body.field).toBe('x-badge-sim-control-token');
    }
    const response = await fetch(`${stub.controlUrl}/stream?once=true`, {
      headers: { [HEADER]: token },
    });
    expect(response.status).toBe(200);
    expect(await response.text()).not.toContain(token);
    // The page itself is open: it holds no secret and asks for the token.
    expect((await fetch(`${stub.controlUrl}/ui/`)).status).toBe(200);
  });

  test(`at most ${STREAM_CLIENTS_MAX} streams at once: one more is 429 too_many_streams`, async () => {
    await using stub = await startStub();
    const streams = await Promise.all(
      Array.from({ length: STREAM_CLIENTS_MAX }, () => openStream(stub.url)),
    );
    await Promise.all(streams.map((s) => s.next()));
    const refused = await request(`${stub.controlUrl}/stream`);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 'too_many_streams' });
    for (const s of streams) s.close();
  });
});

describe('a client that does not read', () => {
  test(`gets changes merged: at most ${STREAM_PENDING_EVENTS_MAX} events wait for it, the rest are counted as dropped`, async () => {
    await using stub = await startStub({ seed: 1 });
    const feed = new LiveFeed(stub.core, stub.app.gateway);
    const sent: { name: string; data: string }[] = [];
    let reads = false;
    feed.subscribe({
      write: (name, data) => sent.push({ name, data }),
      writable: () => reads,
      end: () => {},
    });
    const api = serviceClient(stub);
    const alerts = STREAM_PENDING_EVENTS_MAX + 20;
    for (let i = 0; i < alerts; i++) {
      const sentAlert = await api.alert({
        notification: `n${i}`,
        groups: ['Security'],
        name: `a${i}`,
      });
      expect(sentAlert.status).toBe(200);
    }
    feed.flush();
    expect(sent.map((m) => m.name)).toEqual(['snapshot']);
    reads = true;
    feed.flush();
    feed.close();
    const update = JSON.parse(sent[1]!.data) as LiveUpdate;
    expect(update.events).toHaveLength(STREAM_PENDING_EVENTS_MAX);
    expect(update.events_dropped).toBe(20);
    expect(update.events.at(-1)?.event.task.name).toBe(`a${alerts - 1}`);
    // Devices are merged: each changed device once, however many plays it was sent.
    expect(update.devices.map((d) => d.device_id).sort()).toEqual([
      '350000000000005',
      'VIRTDESK01',
    ]);
  });
});

describe('a client that never reads', () => {
  test('is dropped once it has taken nothing for the stalled-answer time, a stream and a one-off snapshot alike', async () => {
    // A snapshot larger than the socket buffers, so what a silent client is sent stays queued.
    const fixtures = generateFixtures({ seed: 5, devicesPerAccount: 20_000 });
    await using stub = await startStub({
      fixtures,
      settings: { httpTimeouts: { stalledAnswerMs: 300 } },
    });
    const { port } = new URL(stub.url);
    const connections = () =>
      new Promise<number>((resolve) => stub.app.server.getConnections((_, n) => resolve(n)));
    for (const query of ['', '?once=true']) {
      const socket = connect(Number(port), '127.0.0.1');
      await once(socket, 'connect');
      socket.write(`GET /_stub/stream${query} HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n`);
      // Never read (a paused socket does not even see the close): the stub lets it go after
      // 0.3 s, and holds neither its connection nor, for a stream, its place.
      socket.pause();
      await expect.poll(connections, { timeout: 10_000 }).toBe(1);
      await expect.poll(connections, { timeout: 10_000 }).toBe(0);
      expect(stub.app.feed.subscribers).toBe(0);
      socket.destroy();
    }
    expect((await fetch(`${stub.controlUrl}/health`)).status).toBe(200);
  });
});

describe('badges the stub runs (badges: all)', () => {
  test('are online with a machine state, can be taken offline and brought back; others are 409, unknown ones 404', async () => {
    await using stub = await startStub({ badges: 'all' });
    const snapshot = (await (await fetch(`${stub.controlUrl}/stream?once=true`)).text()).split(
      'data: ',
    )[1]!;
    const ada = (JSON.parse(snapshot) as LiveSnapshot).devices.find((d) => d.device_id === ADA);
    expect(ada).toMatchObject({ online: true, state: 'idle', run_by_stub: true });
    const off = await request(`${stub.controlUrl}/devices/${ADA}/offline`, { method: 'POST' });
    expect(off).toMatchObject({ status: 200, body: { device_id: ADA, online: false } });
    const gone = await request(`${stub.controlUrl}/devices/${ADA}/await?online=false&timeout=5s`);
    expect(gone.status).toBe(200);
    await request(`${stub.controlUrl}/devices/${ADA}/online`, { method: 'POST' });
    const back = await request(`${stub.controlUrl}/devices/${ADA}/await?online=true&timeout=5s`);
    expect(back.status).toBe(200);
    const unknown = await request(`${stub.controlUrl}/devices/__proto__/offline`, {
      method: 'POST',
    });
    expect(unknown).toMatchObject({
      status: 404,
      body: { code: 'unknown_device', field: 'device_id' },
    });
  });

  test('badges of a fleet elsewhere are shown as the gateway knows them: online, their state, not switchable', async () => {
    await using stub = await startStub({ seed: 1 });
    await using fleet = await startFleet({ stub: stub.url, group: 'Dock Crew' });
    await fleet.waitUntilConnected();
    const { devices } = await new StubControlClient(stub.url).liveSnapshot();
    const kai = devices.find((d) => d.user === 'Kai Tanaka');
    expect(kai).toMatchObject({ online: true, state: 'idle', run_by_stub: false });
    expect(devices.find((d) => d.device_id === ADA)).toMatchObject({ online: false, state: null });
  });

  test('a stub without badges of its own answers 409 not_run_by_stub', async () => {
    await using stub = await startStub();
    const refused = await request(`${stub.controlUrl}/devices/${ADA}/offline`, { method: 'POST' });
    expect(refused).toMatchObject({
      status: 409,
      body: { code: 'not_run_by_stub', field: 'device_id' },
    });
  });
});

describe('StubControlClient', () => {
  test('liveSnapshot, stream (an alert comes as an update), takeOffline and bringBack', async () => {
    const token = 'client-stream-control-token';
    await using stub = await startStub({ badges: 'Dock Crew', controlToken: token, seed: 1 });
    const control = new StubControlClient(stub.url, { controlToken: token });
    const snapshot = await control.liveSnapshot();
    expect(snapshot.devices.filter((d) => d.run_by_stub).map((d) => d.user)).toEqual([
      'Kai Tanaka',
      'Mia Novak',
    ]);
    const abort = new AbortController();
    const messages = control.stream({ signal: abort.signal });
    expect((await messages.next()).value?.name).toBe('snapshot');
    await serviceClient(stub, { id: '100002', key: 'demo-api-key-harbour-0002' }).alert({
      notification: 'Forklift',
      groups: ['Dock Crew'],
    });
    let update: LiveUpdate | undefined;
    for await (const message of messages) {
      if (message.name === 'update' && message.data.events.length > 0) {
        update = message.data;
        break;
      }
    }
    abort.abort();
    expect(update?.events[0]?.event.content.type).toBe('start');
    expect(await control.takeOffline('350000000000101')).toEqual({
      device_id: '350000000000101',
      online: false,
    });
    expect(await control.bringBack('350000000000101')).toEqual({
      device_id: '350000000000101',
      online: true,
    });
    const refused = await control.takeOffline(ADA).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ServiceError);
    expect((refused as ServiceError).status).toBe(409);
  });
});
