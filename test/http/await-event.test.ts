/**
 * GET /_stub/events/await over a real port: answered at once by a stored event, later by a
 * new one, 408 at the real-time bound, and on the virtual clock by advancing it to the event.
 */
import { describe, expect, test, vi } from 'vitest';
import { startStub } from '../../server-stub/start-stub.ts';
import { controlClient, HARBOUR, request, serviceClient } from '../support/http.ts';

const ADA = '350000000000001';
const START = Date.parse('2026-01-01T00:00:00Z');

describe('GET /_stub/events/await', () => {
  test('an event already recorded answers at once', async () => {
    await using stub = await startStub();
    const { body } = await serviceClient(stub).alert({ notification: 'x', groups: ['Nurses'] });
    const res = await request(
      `${stub.controlUrl}/events/await?type=start&task=${body.task_id}&timeout=0`,
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      event: { content: { type: 'start' }, task: { id: body.task_id } },
      subscriber_id: '100001',
      now_ms: START,
    });
    expect(stub.core.eventWaiters.size).toBe(0);
  });

  test('a wait is answered when the alert ends later (a cancel during the wait)', async () => {
    await using stub = await startStub();
    const api = serviceClient(stub);
    const { body } = await api.alert({ notification: 'x', groups: ['Nurses'] });
    const waiting = request(`${stub.controlUrl}/events/await?type=end&task=${body.task_id}`);
    await vi.waitFor(() => expect(stub.core.eventWaiters.size).toBe(1));
    expect((await api.cancel(body.task_id)).status).toBe(204);
    const res = await waiting;
    expect(res.status).toBe(200);
    expect(res.body.event).toMatchObject({
      content: { type: 'end', status: 'cancelled' },
      task: { id: body.task_id },
    });
    expect(stub.core.eventWaiters.size).toBe(0);
  });

  test('no matching event within the timeout is 408 naming timeout, and the waiter is gone', async () => {
    await using stub = await startStub();
    const { body } = await serviceClient(stub).alert({ notification: 'x', groups: ['Nurses'] });
    const res = await request(
      `${stub.controlUrl}/events/await?type=end&task=${body.task_id}&timeout=200ms`,
    );
    expect(res.status).toBe(408);
    expect(res.body).toMatchObject({ statusCode: 408, code: 'await_timeout', field: 'timeout' });
    expect(stub.core.eventWaiters.size).toBe(0);
  });

  test('advance=true runs the virtual clock to the end of a 300 s alert, at exactly +300 s (advance_max=300s includes it)', async () => {
    await using stub = await startStub();
    const { body } = await serviceClient(stub).alert({ notification: 'x', groups: ['Nurses'] });
    const res = await request(
      `${stub.controlUrl}/events/await?type=end&task=${body.task_id}&advance=true&advance_max=300s`,
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      event: {
        content: { type: 'end', status: 'normal' },
        timestamp: '2026-01-01T00:05:00.000000Z',
      },
      now: '2026-01-01T00:05:00.000000Z',
      now_ms: START + 300_000,
    });
    expect(stub.core.clock.now()).toBe(START + 300_000);
  });

  test('advance=true stops at advance_max: 408 naming it, the clock there, the alert still on', async () => {
    await using stub = await startStub();
    const { body } = await serviceClient(stub).alert({ notification: 'x', groups: ['Nurses'] });
    const url = `${stub.controlUrl}/events/await?type=end&task=${body.task_id}&advance=true`;
    const short = await request(`${url}&advance_max=299999ms`);
    expect(short.status).toBe(408);
    expect(short.body).toMatchObject({ code: 'no_matching_event', field: 'advance_max' });
    expect(stub.core.clock.now()).toBe(START + 299_999);
    expect(stub.core.engine.task(body.task_id)?.state).toBe('alerting');
    const rest = await request(`${url}&advance_max=1ms`);
    expect(rest.status).toBe(200);
    expect(rest.body.now_ms).toBe(START + 300_000);
    expect(stub.core.eventWaiters.size).toBe(0);
  });

  test('an advance stops at the first matching event, not at advance_max', async () => {
    await using stub = await startStub();
    const api = serviceClient(stub);
    const first = (await api.alert({ notification: 'x', groups: ['Nurses'], timeout: 60 })).body;
    await api.alert({ notification: 'y', groups: ['Pharmacy'], timeout: 120 });
    const res = await request(`${stub.controlUrl}/events/await?type=end&advance=true`);
    expect(res.status).toBe(200);
    expect(res.body.event.task.id).toBe(first.task_id);
    expect(res.body.now_ms).toBe(START + 60_000);
  });

  test('filters: type, task, device (user or device id), account, oldest', async () => {
    await using stub = await startStub();
    const control = controlClient(stub);
    const riverside = (await serviceClient(stub).alert({ notification: 'x', groups: ['Nurses'] }))
      .body.task_id;
    await control.advance('1s');
    const harbour = (
      await serviceClient(stub, HARBOUR).alert({ notification: 'y', groups: ['Dock Crew'] })
    ).body;
    expect(harbour.task_id).toBeDefined();
    await control.tap(ADA);
    const wait = (query: string) =>
      request(`${stub.controlUrl}/events/await?timeout=50ms&${query}`);

    expect((await wait('type=start')).body.event.task.id).toBe(riverside);
    expect((await wait('type=start&subscriber_id=100002')).body).toMatchObject({
      subscriber_id: '100002',
      event: { task: { id: harbour.task_id } },
    });
    for (const device of [ADA, encodeURIComponent('Ada Mensah')]) {
      expect((await wait(`device=${device}`)).body.event.content).toEqual({
        type: 'acknowledged',
        device: 'Ada Mensah',
      });
    }
    expect((await wait('device=Ben%20Okafor')).status).toBe(408);
    expect((await wait(`type=end&task=${riverside}`)).status).toBe(408);
    // `oldest` after the first start: only the later one answers.
    expect((await wait('type=start&oldest=2026-01-01T00:00:00.5Z')).body.event.task.id).toBe(
      harbour.task_id,
    );
    expect((await wait('type=start&oldest=2026-01-01T00:00:02Z')).status).toBe(408);
  });

  test('prototype names and bad values are 4xx naming the parameter, never a match or a crash', async () => {
    await using stub = await startStub();
    await serviceClient(stub).alert({ notification: 'x', groups: ['Nurses'] });
    const wait = (query: string) =>
      request(`${stub.controlUrl}/events/await?timeout=50ms&${query}`);
    const cases: [string, number, string][] = [
      ['task=valueOf', 404, 'task'],
      ['task=__proto__', 404, 'task'],
      ['subscriber_id=valueOf', 404, 'subscriber_id'],
      ['subscriber_id=constructor', 404, 'subscriber_id'],
      ['device=valueOf', 408, 'timeout'],
      ['device=__proto__', 408, 'timeout'],
      ['type=valueOf', 400, 'type'],
      ['timeout=61s', 400, 'timeout'],
      ['timeout=Infinity', 400, 'timeout'],
      ['timeout=-1', 400, 'timeout'],
      ['advance=yes', 400, 'advance'],
      ['advance_max=1h', 400, 'advance_max'],
      ['advance=true&advance_max=soon', 400, 'advance_max'],
      ['advance=true&advance_max=3651d', 400, 'advance_max'],
      ['oldest=yesterday', 400, 'oldest'],
    ];
    for (const [query, status, field] of cases) {
      const res = await wait(query);
      expect({ query, status: res.status, field: res.body.field }).toEqual({
        query,
        status,
        field,
      });
    }
    expect(stub.core.clock.now()).toBe(START);
    expect(stub.core.eventWaiters.size).toBe(0);
  });

  test('a locked control API refuses a wait without its token', async () => {
    await using stub = await startStub({ controlToken: 'await-control-token' });
    const url = `${stub.controlUrl}/events/await?timeout=0`;
    const refused = await request(url);
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('missing_control_token');
    const allowed = await request(url, {
      headers: { 'x-badge-sim-control-token': 'await-control-token' },
    });
    expect(allowed.status).toBe(408);
    expect(stub.core.eventWaiters.size).toBe(0);
  });

  test('a client that goes away mid-wait releases its waiter', async () => {
    await using stub = await startStub();
    const gone = new AbortController();
    const waiting = fetch(`${stub.controlUrl}/events/await?type=end&timeout=60s`, {
      signal: gone.signal,
    }).catch((error: Error) => error.name);
    await vi.waitFor(() => expect(stub.core.eventWaiters.size).toBe(1));
    gone.abort();
    expect(await waiting).toBe('AbortError');
    await vi.waitFor(() => expect(stub.core.eventWaiters.size).toBe(0));
  });
});
