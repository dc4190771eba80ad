/** The control API under /_stub over a real port: health, reset, fixtures, clock, transcripts, tasks. */
import { describe, expect, test } from 'vitest';
import type { Fixtures } from '../../fixtures/fixtures.schema.ts';
import { startStub } from '../../server-stub/start-stub.ts';
import { controlClient, request, serviceClient } from '../support/http.ts';

const ADA = '350000000000001';

describe('health and reset', () => {
  test('health reports the clock and what is loaded', async () => {
    await using stub = await startStub();
    const res = await request(`${stub.controlUrl}/health`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'ok',
      accounts: 2,
      devices: 8,
      clock: {
        mode: 'virtual',
        now: '2026-01-01T00:00:00.000000Z',
        pending_timers: 0,
        next_due_at: null,
      },
    });
  });

  test('reset forgets tasks, events and transcripts and puts the virtual clock back', async () => {
    await using stub = await startStub({ seed: 5 });
    const api = serviceClient(stub);
    const control = controlClient(stub);
    const first = (await api.alert({ notification: 'x', groups: ['Nurses'] })).body.task_id;
    await control.advance('1m');
    const res = await control.reset();
    expect(res.body.clock).toMatchObject({ now: '2026-01-01T00:00:00.000000Z', pending_timers: 0 });
    expect((await control.tasks()).body).toEqual([]);
    expect((await api.events()).body).toEqual([]);
    expect((await control.transcript(ADA)).body).toEqual([]);
    // Ids start again from the first of the seed: a suite can reset between tests.
    expect((await api.alert({ notification: 'x', groups: ['Nurses'] })).body.task_id).toBe(first);
  });
});

describe('settings', () => {
  test('GET /_stub/settings answers the settings the stub runs with, and no secret', async () => {
    await using stub = await startStub({
      settings: { authScheme: 'Token', brandWord: 'acme', cancelEvents: 'none' },
    });
    const res = await request(`${stub.controlUrl}/settings`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      authScheme: 'Token',
      brandWord: 'acme',
      unknownFields: 'reject',
      cancelEvents: 'none',
      environments: { pro: { prefix: '' }, qa: { prefix: '/qa', sdkClientId: 'badge-sim-qa-sdk' } },
    });
    expect(JSON.stringify(res.body)).not.toMatch(/demo-api-key|refresh-token/);
  });

  test('GET /_stub/settings shows every setting as given, a fraction of a millisecond too', async () => {
    await using stub = await startStub({
      settings: { badgeAnswerTimeoutMs: 1500.5, badgeMaxQueuedBytes: 4096.5 },
    });
    const res = await request(`${stub.controlUrl}/settings`);
    expect(res.body).toEqual(JSON.parse(JSON.stringify(stub.core.settings)));
    expect(res.body).toMatchObject({
      badgeAnswerTimeoutMs: 1500.5,
      badgeMaxQueuedBytes: 4096.5,
    });
  });
});

describe('fixtures', () => {
  const fixtures = {
    accounts: [
      {
        subscriber_id: '42',
        api_keys: ['key-of-account-42'],
        groups: [{ id: '1', name: 'Porters', members: ['7001'] }],
        devices: [{ id: '7001', user: 'Pat Porter' }],
      },
    ],
  };

  test('PUT loads new fixtures and serves them at once', async () => {
    await using stub = await startStub();
    const res = await request(`${stub.controlUrl}/fixtures`, { method: 'PUT', body: fixtures });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ accounts: 1, devices: 1 });
    const alert = await serviceClient(stub, { id: '42', key: 'key-of-account-42' }).alert({
      notification: 'x',
      groups: ['Porters'],
    });
    expect(alert.status).toBe(200);
    expect((await request(`${stub.controlUrl}/fixtures`)).body).toEqual(fixtures);
  });

  test('refused fixtures name the field and leave the loaded ones in place', async () => {
    await using stub = await startStub();
    const bad = structuredClone(fixtures);
    bad.accounts[0]!.groups[0]!.members.push('7002');
    const res = await request(`${stub.controlUrl}/fixtures`, { method: 'PUT', body: bad });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'invalid_fixtures',
      field: 'accounts[0].groups[0].members[1]',
    });
    const shape = await request(`${stub.controlUrl}/fixtures`, {
      method: 'PUT',
      body: { accounts: [{}] },
    });
    expect(shape.status).toBe(400);
    expect(shape.body.field).toBe('accounts[0].subscriber_id');
    expect((await request(`${stub.controlUrl}/health`)).body).toMatchObject({
      accounts: 2,
      devices: 8,
    });
  });

  test('a group with no members is refused with 400 naming it, and nothing changes', async () => {
    await using stub = await startStub();
    const before = (await request(`${stub.controlUrl}/fixtures`)).body;
    const bad = structuredClone(fixtures) as Fixtures;
    bad.accounts[0]!.groups.push({ id: '2', name: 'Night Shift', members: [] });
    const res = await request(`${stub.controlUrl}/fixtures`, { method: 'PUT', body: bad });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      code: 'invalid_fixtures',
      message:
        "accounts[0].groups[1].members: group 'Night Shift' has no members: a group is a set of one or more users, so list at least one device of account 42 (or leave the group out)",
      field: 'accounts[0].groups[1].members',
    });
    expect((await request(`${stub.controlUrl}/fixtures`)).body).toEqual(before);
  });

  test('generate never makes an empty group: more groups than devices share them, no devices no groups', async () => {
    await using stub = await startStub();
    const generate = (body: object) =>
      request(`${stub.controlUrl}/fixtures/generate`, { method: 'POST', body });
    const few = await generate({ seed: 3, groupsPerAccount: 5, devicesPerAccount: 2 });
    expect(few.status).toBe(200);
    const [account] = few.body.accounts;
    expect(account.groups).toHaveLength(5);
    for (const group of account.groups) expect(group.members.length).toBeGreaterThan(0);
    const none = await generate({ seed: 3, devicesPerAccount: 0 });
    expect(none.status).toBe(200);
    expect(none.body.accounts[0]).toMatchObject({ groups: [], devices: [] });
  });

  test('generate makes the same fixtures from the same seed, and loads them', async () => {
    await using stub = await startStub();
    const generate = (seed: number) =>
      request(`${stub.controlUrl}/fixtures/generate`, {
        method: 'POST',
        body: { seed, devicesPerAccount: 5 },
      });
    const a = await generate(3);
    const b = await generate(3);
    const c = await generate(4);
    expect(a.status).toBe(200);
    expect(a.body).toEqual(b.body);
    expect(a.body).not.toEqual(c.body);
    expect((await request(`${stub.controlUrl}/devices`)).body).toHaveLength(5);
    const bad = await request(`${stub.controlUrl}/fixtures/generate`, {
      method: 'POST',
      body: { seed: 'x' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.field).toBe('seed');
  });
});

/**
 * A fixtures update that takes away a group's last device (G8): PUT replaces the whole document,
 * so the update either says what becomes of the group or is refused.
 */
describe('a fixtures update that removes the last member of a group', () => {
  const PAT = '7001';
  const NOOR = '7002';
  const ACCOUNT = { id: '42', key: 'key-of-account-42' };
  const withNoor = (): Fixtures => ({
    accounts: [
      {
        subscriber_id: ACCOUNT.id,
        api_keys: [ACCOUNT.key],
        groups: [
          { id: '1', name: 'Porters', members: [PAT, NOOR] },
          { id: '2', name: 'Night Shift', members: [NOOR] },
        ],
        devices: [
          { id: PAT, user: 'Pat Porter' },
          { id: NOOR, user: 'Noor Night' },
        ],
      },
    ],
  });
  /** The update a QA user writes to take Noor's device away, and what it does to the groups. */
  const withoutNoor = (nightShift: 'emptied' | 'kept' | 'dropped'): Fixtures => {
    const doc = withNoor();
    const account = doc.accounts[0]!;
    account.devices = account.devices.filter((d) => d.id !== NOOR);
    account.groups[0]!.members = [PAT];
    if (nightShift === 'emptied') account.groups[1]!.members = [];
    if (nightShift === 'dropped') account.groups.pop();
    return doc;
  };

  test('is refused with 400 naming the group; the alert in progress and later alerts to it go on', async () => {
    await using stub = await startStub({ fixtures: withNoor() });
    const api = serviceClient(stub, ACCOUNT);
    const control = controlClient(stub);
    const night = (await api.alert({ notification: 'Bed 4', groups: ['Night Shift'] })).body
      .task_id;
    await control.advance('10s');

    const emptied = await request(`${stub.controlUrl}/fixtures`, {
      method: 'PUT',
      body: withoutNoor('emptied'),
    });
    expect(emptied.status).toBe(400);
    expect(emptied.body).toMatchObject({
      code: 'invalid_fixtures',
      field: 'accounts[0].groups[1].members',
    });
    expect(emptied.body.message).toContain("group 'Night Shift' has no members");
    // Taking the device away but leaving it listed names the group too.
    const kept = await request(`${stub.controlUrl}/fixtures`, {
      method: 'PUT',
      body: withoutNoor('kept'),
    });
    expect(kept.status).toBe(400);
    expect(kept.body.field).toBe('accounts[0].groups[1].members[0]');
    expect(kept.body.message).toContain(`device '${NOOR}' of group 'Night Shift'`);

    // Nothing changed: the fixtures, the clock, the alert still playing on Noor's device.
    expect((await request(`${stub.controlUrl}/fixtures`)).body).toEqual(withNoor());
    expect((await request(`${stub.controlUrl}/clock`)).body.now).toBe(
      '2026-01-01T00:00:10.000000Z',
    );
    await control.advance('20s');
    expect((await control.task(night)).body).toMatchObject({
      state: 'alerting',
      devices: [{ device_id: NOOR, status: 'playing', plays: 2 }],
    });
    const later = await api.alert({ notification: 'Bed 5', groups: ['Night Shift'], name: 'b' });
    expect(later.status).toBe(200);
    expect((await control.transcript(NOOR)).body.map((line) => [line.type, line.at])).toEqual([
      ['play', '2026-01-01T00:00:00.000000Z'],
      ['play', '2026-01-01T00:00:30.000000Z'],
      ['play', '2026-01-01T00:00:30.000000Z'],
    ]);
  });

  test('that drops the group as well loads: the alert in progress is forgotten, later alerts naming the group are unknown_group', async () => {
    await using stub = await startStub({ fixtures: withNoor() });
    const api = serviceClient(stub, ACCOUNT);
    const control = controlClient(stub);
    await api.alert({ notification: 'Bed 4', groups: ['Night Shift'] });
    await control.advance('10s');

    const dropped = await request(`${stub.controlUrl}/fixtures`, {
      method: 'PUT',
      body: withoutNoor('dropped'),
    });
    expect(dropped.status).toBe(200);
    // A fixtures load resets (K1): no task, no event, no timer left of the alert.
    expect((await control.tasks()).body).toEqual([]);
    expect((await api.events()).body).toEqual([]);
    expect((await request(`${stub.controlUrl}/clock`)).body.pending_timers).toBe(0);
    const later = await api.alert({ notification: 'Bed 5', groups: ['Night Shift'] });
    expect(later.status).toBe(400);
    expect(later.body).toMatchObject({ code: 'unknown_group', field: 'groups[0]' });
  });
});

describe('clock', () => {
  test('advance by a duration fires the due timers in order and reports them', async () => {
    await using stub = await startStub();
    await serviceClient(stub).alert({ notification: 'x', groups: ['Nurses'], timeout: 90 });
    const clock = await request(`${stub.controlUrl}/clock`);
    expect(clock.body).toMatchObject({
      pending_timers: 4,
      next_due_at: '2026-01-01T00:00:30.000000Z',
    });
    const res = await controlClient(stub).advance('90s');
    // Three devices repeat at 30 s and 60 s (6 timers), then the timeout at 90 s.
    expect(res.body).toMatchObject({
      fired: 7,
      clock: { now: '2026-01-01T00:01:30.000000Z', pending_timers: 0 },
    });
  });

  test('advance to an instant, and the refusals of a bad advance', async () => {
    await using stub = await startStub();
    const advance = (body: unknown) =>
      request(`${stub.controlUrl}/clock/advance`, { method: 'POST', body });
    expect((await advance({ to: '2026-01-02T00:00:00Z' })).body.clock.now).toBe(
      '2026-01-02T00:00:00.000000Z',
    );
    expect((await advance({ by: 1500 })).body.clock.now).toBe('2026-01-02T00:00:01.500000Z');
    for (const [body, field] of [
      [{ to: '2025-01-01T00:00:00Z' }, 'to'],
      [{ to: 'soon' }, 'to'],
      [{ by: 'a while' }, 'by'],
      [{ by: -5 }, 'by'],
      [{}, 'by'],
      [{ by: '1s', to: '2027-01-01T00:00:00Z' }, 'to'],
    ] as const) {
      const res = await advance(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.field, JSON.stringify(body)).toBe(field);
    }
    expect((await request(`${stub.controlUrl}/clock`)).body.now).toBe(
      '2026-01-02T00:00:01.500000Z',
    );
  });

  test('advance to an instant with a fraction of a millisecond is refused; trailing zeros are fine', async () => {
    await using stub = await startStub();
    const advance = (body: unknown) =>
      request(`${stub.controlUrl}/clock/advance`, { method: 'POST', body });
    for (const to of ['2026-01-01T00:00:05.0005Z', '2026-01-01T00:00:05.000000001Z']) {
      const res = await advance({ to });
      expect(res.status, to).toBe(400);
      expect(res.body.field, to).toBe('to');
      expect(res.body.message, to).toContain('whole milliseconds');
    }
    expect((await request(`${stub.controlUrl}/clock`)).body.now).toBe(
      '2026-01-01T00:00:00.000000Z',
    );
    expect((await advance({ to: '2026-01-01T00:00:05.250000Z' })).body.clock.now).toBe(
      '2026-01-01T00:00:05.250000Z',
    );
  });

  test('switching to scaled time makes alerts repeat on their own, fast', async () => {
    await using stub = await startStub();
    const control = controlClient(stub);
    await serviceClient(stub).alert({ notification: 'x', groups: ['Nurses'] });
    const mode = await request(`${stub.controlUrl}/clock`, {
      method: 'PUT',
      body: { mode: 'scaled', scale: 600 },
    });
    expect(mode.body).toMatchObject({ mode: 'scaled', scale: 600 });
    // 600× turns the 30 s repeat into 50 ms of wall time.
    await expect
      .poll(async () => (await control.transcript(ADA)).body.length, {
        timeout: 3_000,
        interval: 20,
      })
      .toBeGreaterThan(1);
    const back = await request(`${stub.controlUrl}/clock`, {
      method: 'PUT',
      body: { mode: 'virtual' },
    });
    expect(back.body.mode).toBe('virtual');
    const noScale = await request(`${stub.controlUrl}/clock`, {
      method: 'PUT',
      body: { mode: 'scaled' },
    });
    expect(noScale.status).toBe(400);
    expect(noScale.body.field).toBe('scale');
  });
});

describe('devices and tasks', () => {
  test('tap acknowledges what the device plays; a tap with nothing pending does nothing', async () => {
    await using stub = await startStub();
    const control = controlClient(stub);
    expect((await control.tap(ADA)).body).toEqual({ result: 'nothing_pending' });
    const { body } = await serviceClient(stub).alert({ notification: 'x', groups: ['Nurses'] });
    expect((await control.tap(ADA)).body).toEqual({
      result: 'acknowledged',
      task_id: body.task_id,
    });
    expect((await control.tap(ADA)).body).toEqual({ result: 'nothing_pending' });
    const task = (await control.task(body.task_id)).body;
    expect(task).toMatchObject({
      state: 'alerting',
      acknowledgements: 1,
      quorum: 3,
      timeout: 300,
      name: 'alerts',
    });
    expect(task.devices.find((d: { device_id: string }) => d.device_id === ADA).status).toBe(
      'acknowledged',
    );
  });

  test('unknown devices and tasks answer 404 naming the field', async () => {
    await using stub = await startStub();
    const control = controlClient(stub);
    for (const res of [await control.tap('999'), await control.transcript('999')]) {
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: 'unknown_device', field: 'device_id' });
    }
    const task = await control.task('nope');
    expect(task.status).toBe(404);
    expect(task.body.field).toBe('task_id');
  });

  test('devices lists every device of the fixtures', async () => {
    await using stub = await startStub();
    const devices = (await request(`${stub.controlUrl}/devices`)).body;
    expect(devices).toHaveLength(8);
    expect(devices[0]).toEqual({
      device_id: ADA,
      user: 'Ada Mensah',
      subscriber_id: '100001',
      online: false,
      state: null,
      responsive: true,
      unresponsive_since: null,
      battery_level: null,
      battery_status: null,
      battery_low: false,
    });
  });
});

describe('OpenAPI', () => {
  test('one document covers the service API and the control API', async () => {
    await using stub = await startStub();
    const doc = (await request(stub.openapiUrl)).body;
    expect(doc.openapi).toMatch(/^3\./);
    expect(doc.tags.map((t: { name: string }) => t.name)).toEqual(['service', 'control']);
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/subscribers/{id}/api/v1/alerts',
        '/subscribers/{id}/api/v1/alerts/{task_id}',
        '/subscribers/{id}/api/v1/broadcasts',
        '/subscribers/{id}/api/v1/events',
        '/_stub/health',
        '/_stub/clock/advance',
        '/_stub/devices/{device_id}/transcript',
      ]),
    );
    const post = doc.paths['/subscribers/{id}/api/v1/alerts'].post;
    expect(post.tags).toEqual(['service']);
    expect(post.requestBody.content['application/json'].schema.required).toEqual([
      'notification',
      'groups',
    ]);
    expect(doc.paths['/_stub/reset'].post.tags).toEqual(['control']);
  });
});
