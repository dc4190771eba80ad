/**
 * The notification and events interface over a real listening port: every endpoint, the
 * lifecycle as a client sees it, and every decision of docs/decisions.md about bad input.
 */
import { describe, expect, test } from 'vitest';
import { startStub } from '../../server-stub/start-stub.ts';
import { controlClient, HARBOUR, RIVERSIDE, request, serviceClient } from '../support/http.ts';

const ADA = '350000000000001';
const BEN = '350000000000002';
const LENA = '350000000000003';
const EVENT_KEYS = ['category', 'content', 'event_id', 'task', 'timestamp'];

describe('POST alerts', () => {
  test('answers 200 with a 22-character task_id and the location header', async () => {
    await using stub = await startStub();
    const res = await serviceClient(stub).alert({ notification: 'Code blue', groups: ['Nurses'] });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['task_id']);
    expect(res.body.task_id).toMatch(/^[A-Za-z0-9]{22}$/);
    expect(res.headers.get('location')).toBe(
      `/subscribers/100001/api/v1/alerts/${res.body.task_id}`,
    );
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  });

  test('a full alert: start, acknowledged with the user name, timed_out, end – oldest first', async () => {
    await using stub = await startStub();
    const api = serviceClient(stub);
    const control = controlClient(stub);
    const { body } = await api.alert({
      notification: 'Spill in ward 3',
      groups: ['Nurses'],
      name: 'spills',
    });
    await control.advance('12s');
    expect((await control.tap(BEN)).body).toEqual({
      result: 'acknowledged',
      task_id: body.task_id,
    });
    await control.advance('300s');

    const events = (await api.events()).body;
    expect(events.map((e) => e.content)).toEqual([
      { type: 'start' },
      { type: 'acknowledged', device: 'Ben Okafor' },
      { type: 'timed_out' },
      { type: 'end', status: 'normal' },
    ]);
    for (const event of events) {
      expect(Object.keys(event).sort()).toEqual(EVENT_KEYS);
      expect(event.category).toBe('tasks');
      expect(event.task).toEqual({
        id: body.task_id,
        name: 'spills',
        task_type: { major: 1, minor: 4, name: 'alerts', namespace: 'system' },
      });
      expect(event.event_id).toMatch(/^[0-9a-f]{32}$/);
      expect(event.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    }
    expect(events.map((e) => e.timestamp)).toEqual([
      '2026-01-01T00:00:00.000000Z',
      '2026-01-01T00:00:12.000000Z',
      '2026-01-01T00:05:00.000000Z',
      '2026-01-01T00:05:00.000000Z',
    ]);
  });

  test('quorum ends the alert with on_quorum spoken on the devices that had not acknowledged', async () => {
    await using stub = await startStub();
    const api = serviceClient(stub);
    const control = controlClient(stub);
    const { body } = await api.alert({
      notification: 'Need two runners',
      groups: ['Nurses'],
      quorum: 1,
      on_ack: 'Thanks',
      on_quorum: 'Covered, stand down',
    });
    await control.tap(ADA);
    expect((await control.task(body.task_id)).body).toMatchObject({
      state: 'ended',
      outcome: 'quorum',
    });
    const heard = async (id: string) =>
      (await control.transcript(id)).body.filter((e) => e.type === 'speak').map((e) => e.text);
    expect(await heard(ADA)).toEqual(['Thanks']);
    expect(await heard(BEN)).toEqual(['Covered, stand down']);
    expect(await heard(LENA)).toEqual(['Covered, stand down']);
    expect((await api.events()).body.map((e) => e.content.type)).toEqual([
      'start',
      'acknowledged',
      'end',
    ]);
  });

  test('a device in two of the named groups hears the alert once; a group URN works', async () => {
    await using stub = await startStub();
    await serviceClient(stub).alert({
      notification: 'Fire drill',
      groups: [
        'Nurses',
        'urn:service-resource:name:group:Pharmacy',
        'urn:service-resource:id:group:5002',
      ],
    });
    const plays = (await controlClient(stub).transcript(LENA)).body.filter(
      (e) => e.type === 'play',
    );
    expect(plays).toHaveLength(1);
  });

  test('the brand word and the auth scheme word are settings', async () => {
    await using stub = await startStub({
      settings: { authScheme: 'AcmeApiKey', brandWord: 'acme' },
    });
    const base = `${stub.url}/subscribers/100001/api/v1`;
    const ok = await request(`${base}/alerts`, {
      method: 'POST',
      headers: { authorization: `AcmeApiKey ${RIVERSIDE.key}` },
      body: { notification: 'x', groups: ['urn:acme-resource:name:group:Nurses'] },
    });
    expect(ok.status).toBe(200);
    const old = await request(`${base}/events`, {
      headers: { authorization: `ServiceApiKey ${RIVERSIDE.key}` },
    });
    expect(old.status).toBe(401);
    expect(old.headers.get('www-authenticate')).toBe('AcmeApiKey');
  });

  test('the URN word is a setting of its own: group URNs take it, not the brand word, which stays in the device path', async () => {
    await using stub = await startStub({ settings: { brandWord: 'acmepro', urnWord: 'acme' } });
    const api = serviceClient(stub);
    for (const groups of [
      ['urn:acme-resource:name:group:Nurses'],
      ['urn:acme-resource:id:group:5001'],
    ]) {
      expect((await api.alert({ notification: 'x', groups })).status, groups[0]).toBe(200);
      expect((await api.broadcast({ notification: 'x', groups })).status, groups[0]).toBe(200);
    }
    const before = (await controlClient(stub).tasks()).body.length;
    for (const urn of [
      'urn:acmepro-resource:name:group:Nurses',
      'urn:acmepro-resource:id:group:5001',
      'urn:service-resource:name:group:Nurses',
    ]) {
      const refused = await api.alert({ notification: 'x', groups: ['Pharmacy', urn] });
      expect(refused.status, urn).toBe(400);
      expect(refused.body).toMatchObject({ code: 'unknown_group', field: 'groups[1]' });
      // The message shows the forms this stub accepts.
      expect(refused.body.message).toContain('urn:acme-resource:name:group:<name>');
    }
    expect((await controlClient(stub).tasks()).body).toHaveLength(before);
    expect((await request(`${stub.controlUrl}/settings`)).body).toMatchObject({
      brandWord: 'acmepro',
      urnWord: 'acme',
    });
    // Fixtures loaded later are read with the same word.
    const fixtures = (await request(`${stub.controlUrl}/fixtures`)).body;
    expect(
      (await request(`${stub.controlUrl}/fixtures`, { method: 'PUT', body: fixtures })).status,
    ).toBe(200);
    const after = await api.alert({
      notification: 'x',
      groups: ['urn:acme-resource:name:group:Nurses'],
    });
    expect(after.status).toBe(200);
    // The device path keeps the brand word.
    const token = await request(`${stub.url}/oauth2/token`, {
      method: 'POST',
      body: {
        grant_type: 'refresh_token',
        client_id: 'badge-sim-pro-sdk',
        refresh_token: 'demo-refresh-token-riverside-pro-0001',
      },
    });
    const device = (word: string) =>
      request(`${stub.url}/${word}/api/v1/device/${ADA}?subscriber_id=100001`, {
        headers: { authorization: `Bearer ${token.body.access_token}`, 'user-agent': 'tests/1' },
      });
    expect((await device('acmepro')).status).toBe(200);
    expect((await device('acme')).status).toBe(404);
  });
});

describe('DELETE alerts/{task_id}', () => {
  test('cancels on every remaining device: 204, stop in the transcripts, end with status cancelled', async () => {
    await using stub = await startStub();
    const api = serviceClient(stub);
    const control = controlClient(stub);
    const { body } = await api.alert({ notification: 'Wrong ward', groups: ['Nurses'] });
    const res = await api.cancel(body.task_id);
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    const last = (await control.transcript(ADA)).body.at(-1);
    expect(last).toMatchObject({ type: 'stop', task_id: body.task_id, cause: 'cancelled' });
    await control.advance('5m');
    expect((await control.transcript(ADA)).body.filter((e) => e.type === 'play')).toHaveLength(1);
    expect((await api.events()).body.map((e) => e.content)).toEqual([
      { type: 'start' },
      { type: 'end', status: 'cancelled' },
    ]);
  });

  test('the events of a cancel are a setting', async () => {
    await using stub = await startStub({ settings: { cancelEvents: 'none' } });
    const api = serviceClient(stub);
    const { body } = await api.alert({ notification: 'x', groups: ['Nurses'] });
    await api.cancel(body.task_id);
    expect((await api.events()).body.map((e) => e.content.type)).toEqual(['start']);
  });

  test('an ended task answers 409, an unknown one 404, another account’s task 404', async () => {
    await using stub = await startStub();
    const api = serviceClient(stub);
    const { body } = await api.alert({ notification: 'x', groups: ['Nurses'] });
    expect((await api.cancel(body.task_id)).status).toBe(204);
    const again = await api.cancel(body.task_id);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'task_ended', field: 'task_id' });
    const unknown = await api.cancel('NoSuchTask');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: 'unknown_task', field: 'task_id' });
    const other = await serviceClient(stub).alert({ notification: 'y', groups: ['Nurses'] });
    const foreign = await serviceClient(stub, HARBOUR).cancel(other.body.task_id);
    expect(foreign.status).toBe(404);
    expect((await controlClient(stub).task(other.body.task_id)).body.state).toBe('alerting');
  });

  test('a Content-Type: application/json header with no body is accepted', async () => {
    await using stub = await startStub();
    const api = serviceClient(stub);
    const { body } = await api.alert({ notification: 'x', groups: ['Nurses'] });
    const res = await request(`${api.base}/alerts/${body.task_id}`, {
      method: 'DELETE',
      headers: {
        authorization: `ServiceApiKey ${RIVERSIDE.key}`,
        'content-type': 'application/json',
      },
    });
    expect(res.status).toBe(204);
  });
});

describe('POST broadcasts', () => {
  test('answers 200 with a task_id, plays once on each device, no repeat and no event', async () => {
    await using stub = await startStub();
    const api = serviceClient(stub);
    const control = controlClient(stub);
    const res = await api.broadcast({
      notification: 'Canteen closes at 2',
      groups: ['Pharmacy', 'Nurses'],
    });
    expect(res.status).toBe(200);
    expect(res.body.task_id).toMatch(/^[A-Za-z0-9]{22}$/);
    await control.advance('10m');
    for (const id of [ADA, BEN, LENA, '350000000000004']) {
      expect((await control.transcript(id)).body).toEqual([
        {
          at: '2026-01-01T00:00:00.000000Z',
          type: 'broadcast',
          task_id: res.body.task_id,
          text: 'Canteen closes at 2',
        },
      ]);
    }
    expect((await control.transcript('350000000000005')).body).toEqual([]);
    expect((await api.events()).body).toEqual([]);
  });
});

describe('GET events', () => {
  async function stubWithAlerts(count: number) {
    const stub = await startStub();
    for (let i = 0; i < count; i++) {
      stub.core.engine.createAlert('100001', { notification: `n${i}`, groups: ['Security'] });
      await stub.core.clock.advanceBy(1_000);
    }
    return stub;
  }

  test('limit defaults to 100 and never exceeds 100; oldest first', async () => {
    await using stub = await stubWithAlerts(120);
    const api = serviceClient(stub);
    const all = (await api.events()).body;
    expect(all).toHaveLength(100);
    expect(all[0].timestamp).toBe('2026-01-01T00:00:00.000000Z');
    const sorted = [...all].sort((a, b) => a.timestamp.localeCompare(b.timestamp));
    expect(all).toEqual(sorted);
    expect((await api.events('?limit=500')).body).toHaveLength(100);
    expect((await api.events('?limit=5')).body).toHaveLength(5);
  });

  test('oldest selects the window; a zone offset and a date without time both work', async () => {
    await using stub = await stubWithAlerts(10);
    const api = serviceClient(stub);
    const from = (await api.events('?oldest=2026-01-01T00:00:05Z')).body;
    expect(from[0].timestamp).toBe('2026-01-01T00:00:05.000000Z');
    expect(from).toHaveLength(5);
    const offset = (await api.events(`?oldest=${encodeURIComponent('2026-01-01T01:00:07+01:00')}`))
      .body;
    expect(offset[0].timestamp).toBe('2026-01-01T00:00:07.000000Z');
    const unencodedPlus = (await api.events('?oldest=2026-01-01T01:00:07+01:00')).body;
    expect(unencodedPlus).toEqual(offset);
    expect((await api.events('?oldest=2026-01-02')).body).toEqual([]);
    expect((await api.events('?oldest=2025-12-31')).body).toHaveLength(10);
  });

  test('events are kept 7 days on the clock and then dropped', async () => {
    await using stub = await stubWithAlerts(3);
    const api = serviceClient(stub);
    const starts = async () =>
      (await api.events('?oldest=2020-01-01')).body.filter((e) => e.content.type === 'start');
    // The first alert started at 00:00:00; the clock now stands 3 s later.
    await stub.core.clock.advanceBy(7 * 24 * 3600 * 1000 - 3_000);
    expect(await starts()).toHaveLength(3);
    await stub.core.clock.advanceBy(1);
    expect(await starts()).toHaveLength(2);
  });

  test('an account sees only its own events', async () => {
    await using stub = await startStub();
    await serviceClient(stub).alert({ notification: 'x', groups: ['Nurses'] });
    expect((await serviceClient(stub, HARBOUR).events()).body).toEqual([]);
  });
});

describe('bad input: a 4xx naming the field, never a 5xx, and no state changed', () => {
  const auth = { authorization: `ServiceApiKey ${RIVERSIDE.key}` };
  const alerts = '/subscribers/100001/api/v1/alerts';
  const events = '/subscribers/100001/api/v1/events';
  const cases: {
    name: string;
    path?: string;
    method?: string;
    headers?: Record<string, string>;
    body?: unknown;
    rawBody?: string;
    status: number;
    code: string;
    field: string;
  }[] = [
    {
      name: 'no Authorization header',
      headers: {},
      body: { notification: 'x', groups: ['Nurses'] },
      status: 401,
      code: 'missing_api_key',
      field: 'authorization',
    },
    {
      name: 'another scheme word',
      headers: { authorization: `Bearer ${RIVERSIDE.key}` },
      body: { notification: 'x', groups: ['Nurses'] },
      status: 401,
      code: 'invalid_authorization',
      field: 'authorization',
    },
    {
      name: 'scheme word with no key',
      headers: { authorization: 'ServiceApiKey' },
      body: { notification: 'x', groups: ['Nurses'] },
      status: 401,
      code: 'invalid_authorization',
      field: 'authorization',
    },
    {
      name: 'an unknown key',
      headers: { authorization: 'ServiceApiKey not-a-real-key' },
      body: { notification: 'x', groups: ['Nurses'] },
      status: 401,
      code: 'invalid_api_key',
      field: 'authorization',
    },
    {
      name: 'another account’s key',
      headers: { authorization: `ServiceApiKey ${HARBOUR.key}` },
      body: { notification: 'x', groups: ['Nurses'] },
      status: 403,
      code: 'forbidden',
      field: 'id',
    },
    {
      name: 'a key for an unknown subscriber id',
      path: '/subscribers/999999/api/v1/alerts',
      body: { notification: 'x', groups: ['Nurses'] },
      status: 403,
      code: 'forbidden',
      field: 'id',
    },
    {
      name: 'notification missing',
      body: { groups: ['Nurses'] },
      status: 400,
      code: 'invalid_field',
      field: 'notification',
    },
    {
      name: 'notification empty',
      body: { notification: '', groups: ['Nurses'] },
      status: 400,
      code: 'invalid_field',
      field: 'notification',
    },
    {
      name: 'notification not a string',
      body: { notification: 42, groups: ['Nurses'] },
      status: 400,
      code: 'invalid_field',
      field: 'notification',
    },
    {
      name: 'groups missing',
      body: { notification: 'x' },
      status: 400,
      code: 'invalid_field',
      field: 'groups',
    },
    {
      name: 'groups not an array',
      body: { notification: 'x', groups: 'Nurses' },
      status: 400,
      code: 'invalid_field',
      field: 'groups',
    },
    {
      name: 'groups empty',
      body: { notification: 'x', groups: [] },
      status: 400,
      code: 'invalid_field',
      field: 'groups',
    },
    {
      name: 'a group that is not a string',
      body: { notification: 'x', groups: ['Nurses', 7] },
      status: 400,
      code: 'invalid_field',
      field: 'groups[1]',
    },
    {
      name: 'an unknown group',
      body: { notification: 'x', groups: ['Nurses', 'Astronauts'] },
      status: 400,
      code: 'unknown_group',
      field: 'groups[1]',
    },
    {
      name: 'another account’s group',
      body: { notification: 'x', groups: ['Dock Crew'] },
      status: 400,
      code: 'unknown_group',
      field: 'groups[0]',
    },
    {
      name: 'a malformed URN',
      body: { notification: 'x', groups: ['urn:service-resource:nick:group:Nurses'] },
      status: 400,
      code: 'unknown_group',
      field: 'groups[0]',
    },
    {
      name: 'quorum as a string (not coerced)',
      body: { notification: 'x', groups: ['Nurses'], quorum: '2' },
      status: 400,
      code: 'invalid_field',
      field: 'quorum',
    },
    {
      name: 'quorum 0',
      body: { notification: 'x', groups: ['Nurses'], quorum: 0 },
      status: 400,
      code: 'invalid_field',
      field: 'quorum',
    },
    {
      name: 'timeout not whole',
      body: { notification: 'x', groups: ['Nurses'], timeout: 1.5 },
      status: 400,
      code: 'invalid_field',
      field: 'timeout',
    },
    {
      name: 'timeout over 7 days',
      body: { notification: 'x', groups: ['Nurses'], timeout: 604_801 },
      status: 400,
      code: 'invalid_field',
      field: 'timeout',
    },
    {
      name: 'on_ack not a string',
      body: { notification: 'x', groups: ['Nurses'], on_ack: true },
      status: 400,
      code: 'invalid_field',
      field: 'on_ack',
    },
    {
      name: 'a field the spec does not list',
      body: { notification: 'x', groups: ['Nurses'], quorom: 2 },
      status: 400,
      code: 'invalid_field',
      field: 'quorom',
    },
    {
      name: 'a body that is not an object',
      body: ['x'],
      status: 400,
      code: 'invalid_field',
      field: 'body',
    },
    { name: 'no body at all', status: 400, code: 'invalid_field', field: 'body' },
    {
      name: 'invalid JSON',
      rawBody: '{"notification": "x",',
      headers: { ...auth, 'content-type': 'application/json' },
      status: 400,
      code: 'invalid_json',
      field: 'body',
    },
    {
      name: 'a text/plain body',
      rawBody: 'notification=x',
      headers: { ...auth, 'content-type': 'text/plain' },
      status: 415,
      code: 'unsupported_media_type',
      field: 'content-type',
    },
    {
      name: 'a form body',
      rawBody: 'notification=x',
      headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' },
      status: 415,
      code: 'unsupported_media_type',
      field: 'content-type',
    },
    {
      name: 'a body over 1 MiB',
      body: { notification: 'x'.repeat(1_100_000), groups: ['Nurses'] },
      status: 413,
      code: 'body_too_large',
      field: 'body',
    },
    {
      name: 'oldest not a date',
      method: 'GET',
      path: `${events}?oldest=yesterday`,
      status: 400,
      code: 'invalid_field',
      field: 'oldest',
    },
    {
      name: 'oldest an impossible date',
      method: 'GET',
      path: `${events}?oldest=2026-02-31T00:00:00Z`,
      status: 400,
      code: 'invalid_field',
      field: 'oldest',
    },
    {
      name: 'limit not a number',
      method: 'GET',
      path: `${events}?limit=ten`,
      status: 400,
      code: 'invalid_field',
      field: 'limit',
    },
    {
      name: 'limit 0',
      method: 'GET',
      path: `${events}?limit=0`,
      status: 400,
      code: 'invalid_field',
      field: 'limit',
    },
    {
      name: 'limit negative',
      method: 'GET',
      path: `${events}?limit=-5`,
      status: 400,
      code: 'invalid_field',
      field: 'limit',
    },
    {
      name: 'broadcast without groups',
      path: '/subscribers/100001/api/v1/broadcasts',
      body: { notification: 'x' },
      status: 400,
      code: 'invalid_field',
      field: 'groups',
    },
    {
      name: 'broadcast with alert fields',
      path: '/subscribers/100001/api/v1/broadcasts',
      body: { notification: 'x', groups: ['Nurses'], quorum: 1 },
      status: 400,
      code: 'invalid_field',
      field: 'quorum',
    },
  ];

  test.each(cases)('$name → $status $code ($field)', async (c) => {
    await using stub = await startStub();
    const res = await request(`${stub.url}${c.path ?? alerts}`, {
      method: c.method ?? 'POST',
      headers: c.headers ?? auth,
      body: c.body,
      rawBody: c.rawBody,
    });
    expect(res.status).toBe(c.status);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toMatchObject({ statusCode: c.status, code: c.code, field: c.field });
    expect(typeof res.body.message).toBe('string');
    // Nothing changed: no task, no event, nothing played.
    expect(stub.core.engine.tasks()).toEqual([]);
    expect(stub.core.engine.events('100001')).toEqual([]);
    expect(stub.core.engine.transcript('350000000000001')).toEqual([]);
  });

  test('unknown fields can be ignored instead, as a setting', async () => {
    await using stub = await startStub({ settings: { unknownFields: 'ignore' } });
    const res = await serviceClient(stub).alert({
      notification: 'x',
      groups: ['Nurses'],
      priority: 'high',
    });
    expect(res.status).toBe(200);
  });

  test('an unknown path answers a JSON 404', async () => {
    await using stub = await startStub();
    const res = await request(`${stub.url}/subscribers/100001/api/v2/alerts`);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'not_found' });
  });

  test('the stub never logs the API key', async () => {
    const lines: string[] = [];
    await using stub = await startStub({ onResponse: (line) => lines.push(JSON.stringify(line)) });
    await serviceClient(stub).alert({ notification: 'x', groups: ['Nurses'] });
    await request(`${stub.url}${events}`, {
      headers: { authorization: 'ServiceApiKey not-a-real-key' },
    });
    expect(lines).toHaveLength(2);
    expect(lines.join('\n')).not.toContain(RIVERSIDE.key);
    expect(lines.join('\n')).not.toContain('not-a-real-key');
  });
});

describe('determinism', () => {
  test('the same seed and the same calls give byte-identical events and transcripts', async () => {
    const run = async () => {
      await using stub = await startStub({ seed: 42 });
      const api = serviceClient(stub);
      const control = controlClient(stub);
      await api.alert({ notification: 'a', groups: ['Nurses'], quorum: 2 });
      await control.advance('40s');
      await control.tap(LENA);
      await control.tap(ADA);
      await api.alert({ notification: 'b', groups: ['Security'], timeout: 60 });
      await control.advance('2m');
      return JSON.stringify([(await api.events()).body, (await control.transcript(LENA)).body]);
    };
    const [first, second] = [await run(), await run()];
    expect(first).toBe(second);
    await using other = await startStub({ seed: 43 });
    const res = await serviceClient(other).alert({ notification: 'a', groups: ['Nurses'] });
    expect(first).not.toContain(res.body.task_id);
  });
});
