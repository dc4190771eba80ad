/**
 * `GET`/`PUT /_stub/snapshot` over a real port: what a snapshot holds and leaves out, the
 * control token, `?secrets=omit`, and every refusal of a PUT (another format, truncated,
 * edited by hand, inconsistent, too large, badges connected) as a 4xx naming the field, the
 * stub unchanged after it (docs/decisions.md WS2-WS10, WS14-WS17).
 */
import { describe, expect, test, vi } from 'vitest';
import { CONTROL_TOKEN_HEADER } from '../../protocol/control-api.schema.ts';
import {
  OMITTED_SECRET,
  SNAPSHOT_BODY_LIMIT,
  SNAPSHOT_FORMAT,
} from '../../protocol/snapshot.schema.ts';
import { type StubHandle, startStub } from '../../server-stub/start-stub.ts';
import { controlClient, request, serviceClient } from '../support/http.ts';
import { rawBadge } from '../support/raw-badge.ts';

/** A stub with a world worth saving: a queued alert, a half-met quorum, a token, a fault. */
async function busyStub(options: Parameters<typeof startStub>[0] = {}): Promise<StubHandle> {
  const stub = await startStub({ seed: 4, ...options });
  const headers: Record<string, string> = options.controlToken
    ? { [CONTROL_TOKEN_HEADER]: options.controlToken }
    : {};
  const api = serviceClient(stub);
  await api.alert({ notification: 'Code blue', groups: ['Nurses'], quorum: 2, timeout: 120 });
  await api.alert({ notification: 'Pharmacy', groups: ['Pharmacy'] });
  await request(`${stub.controlUrl}/devices/350000000000001/tap`, { method: 'POST', headers });
  await request(`${stub.controlUrl}/clock/advance`, {
    method: 'POST',
    headers,
    body: { by: 45_000 },
  });
  await request(`${stub.url}/oauth2/token`, {
    method: 'POST',
    body: {
      grant_type: 'refresh_token',
      client_id: 'badge-sim-pro-cli',
      refresh_token: 'demo-refresh-token-riverside-pro-0001',
    },
  });
  await request(`${stub.controlUrl}/faults`, {
    method: 'POST',
    headers,
    body: { match: { path: '/nowhere' }, action: { status: 500 }, when: { probability: 0.5 } },
  });
  return stub;
}

async function snapshotOf(stub: StubHandle, query = ''): Promise<any> {
  const res = await request(`${stub.controlUrl}/snapshot${query}`);
  expect(res.status).toBe(200);
  return res.body;
}

describe('GET /_stub/snapshot', () => {
  test('holds the whole world: format, clock and its timers as records, tasks, events, tokens, faults, devices', async () => {
    await using stub = await busyStub();
    const world = await snapshotOf(stub);
    expect(world.format).toBe(SNAPSHOT_FORMAT);
    expect(world.clock).toMatchObject({ mode: 'virtual', now: Date.UTC(2026, 0, 1) + 45_000 });
    const kinds = world.clock.timers.map((t: { kind: string }) => t.kind).sort();
    // Two alerting tasks: two timeouts; Nurses' two unacknowledged devices and Pharmacy's one
    // playing device (the other has Nurses' alert playing ahead of it) repeat.
    expect(kinds).toEqual(['repeat', 'repeat', 'repeat', 'task_timeout', 'task_timeout']);
    expect(world.engine.tasks).toHaveLength(2);
    const devices = world.engine.tasks[0].devices;
    expect([devices.status[0], devices.plays[0]]).toEqual(['acknowledged', 1]);
    // Events as columns (WS19): each names its kind and task by index, its instant in µs.
    const log = world.events[0];
    expect(log.kind.map((k: number) => log.kinds[k].content.type)).toEqual([
      'start',
      'start',
      'acknowledged',
    ]);
    expect(log.task.map((t: number) => log.tasks[t].id)).toEqual(
      world.engine.tasks
        .map((t: { task_id: string }) => t.task_id)
        .concat(world.engine.tasks[0].task_id),
    );
    expect(log.at[0]).toBe(Date.UTC(2026, 0, 1) * 1000);
    expect(log.event_id).toHaveLength(3);
    // A transcript: each line's instant and its command, by index in one table.
    const lines = world.engine.transcripts[0];
    expect(lines.command.map((c: number) => world.engine.commands[c].type)).toContain('play');
    expect(world.tokens.access).toHaveLength(2);
    expect(world.faults.list[0].random).toHaveLength(4);
    expect(world.devices).toHaveLength(8);
    expect(world.ids.seed).toBe('4');
    // The journal and the recording stay out unless asked.
    expect(world.journal).toBeUndefined();
    expect(world.recording).toBeUndefined();
    const withJournal = await snapshotOf(stub, '?include=journal,recording');
    expect(withJournal.journal.entries.length).toBeGreaterThan(0);
    expect(withJournal.recording.recording).toBe(false);
  });

  test('is behind the control token; ?secrets=omit shares one with every key and token a placeholder, which does not restore', async () => {
    const controlToken = 'snapshot-control-token-0001';
    await using stub = await busyStub({ controlToken });
    expect((await request(`${stub.controlUrl}/snapshot`)).status).toBe(401);
    const headers = { [CONTROL_TOKEN_HEADER]: controlToken };
    const shared = await request(`${stub.controlUrl}/snapshot?secrets=omit`, { headers });
    expect(shared.status).toBe(200);
    const text = JSON.stringify(shared.body);
    for (const secret of [
      'demo-api-key-riverside-0001',
      'badge-key-0001',
      'demo-refresh-token',
      controlToken,
    ]) {
      expect(text).not.toContain(secret);
    }
    expect(shared.body.secrets).toBe('omitted');
    expect(shared.body.tokens.access[0].token).toBe(OMITTED_SECRET);
    const put = await request(`${stub.controlUrl}/snapshot`, {
      method: 'PUT',
      headers,
      body: shared.body,
    });
    expect(put.status).toBe(400);
    expect(put.body).toMatchObject({ code: 'invalid_snapshot', field: 'secrets' });
  });
});

/** Each bad snapshot, the field its refusal names, and words of what it says. */
const BAD: [string, (world: any) => unknown, string, RegExp][] = [
  [
    'another format version',
    // The format before the columns of WS19: a snapshot of an older badge-sim.
    (w) => ({ ...w, format: 'badge-sim-snapshot/1' }),
    'format',
    /format is "badge-sim-snapshot\/1": this stub reads badge-sim-snapshot\/2 only/,
  ],
  [
    'edited by hand: a wrong type',
    (w) => {
      w.engine.tasks[0].created_at = 'soon';
      return w;
    },
    'engine.tasks[0].created_at',
    /must be number/,
  ],
  [
    'edited by hand: a missing part',
    (w) => {
      w.tokens = undefined;
      return w;
    },
    'tokens',
    /required/,
  ],
  [
    'edited by hand: a word not among the choices',
    (w) => {
      w.engine.tasks[0].devices.status[0] = 'heard';
      return w;
    },
    'engine.tasks[0].devices.status[0]',
    /must be one of: queued, playing, acknowledged, stopped/,
  ],
  [
    'a timer for a task it does not hold',
    (w) => {
      w.clock.timers[0].task_id = 'gone';
      return w;
    },
    'clock.timers[0].task_id',
    /does not hold/,
  ],
  [
    'an acknowledgement by an unknown device',
    (w) => {
      w.engine.tasks[0].devices.device_id[0] = 'nobody';
      return w;
    },
    'engine.tasks[0].devices.device_id[0]',
    /not a device of account 100001/,
  ],
  [
    'an alerting task without its timeout',
    (w) => {
      w.clock.timers = w.clock.timers.filter((t: any) => t.kind !== 'task_timeout');
      return w;
    },
    'engine.tasks[0]',
    /no task_timeout timer/,
  ],
  [
    'events out of order',
    (w) => {
      w.events[0].at[0] = Date.UTC(2026, 0, 1, 0, 5) * 1000;
      return w;
    },
    'events[0].at[1]',
    /is before the event before it/,
  ],
  [
    'event columns of different lengths',
    (w) => {
      w.events[0].event_id.pop();
      return w;
    },
    'events[0].event_id',
    /has 2 entries, events\[0\]\.at 3: the columns go together/,
  ],
  [
    'an event naming a kind past its table',
    (w) => {
      w.events[0].kind[2] = w.events[0].kinds.length;
      return w;
    },
    'events[0].kind[2]',
    /is past events\[0\]\.kinds/,
  ],
  [
    'an event id JSON must escape',
    (w) => {
      w.events[0].event_id[1] = 'a"b';
      return w;
    },
    'events[0].event_id[1]',
    /not an event id the stub makes/,
  ],
  [
    'a transcript line naming a command past its table',
    (w) => {
      w.engine.transcripts[0].command[0] = 99;
      return w;
    },
    'engine.transcripts[0].command[0]',
    /is past engine\.commands/,
  ],
  [
    'a fault that does not check',
    (w) => {
      w.faults.list[0].request.action = {};
      return w;
    },
    'faults.list[0].request.action',
    /action/,
  ],
];

describe('PUT /_stub/snapshot refuses what it cannot restore, and leaves the stub as it was', () => {
  test.each(BAD)('%s: 400 naming the field', async (_what, spoil, field, says) => {
    await using stub = await busyStub();
    const before = JSON.stringify(await snapshotOf(stub));
    const put = await request(`${stub.controlUrl}/snapshot`, {
      method: 'PUT',
      body: spoil(JSON.parse(before)),
    });
    expect(put.status, JSON.stringify(put.body)).toBe(400);
    expect(put.body).toMatchObject({ statusCode: 400, code: 'invalid_snapshot', field });
    expect(put.body.message).toMatch(says);
    expect(JSON.stringify(await snapshotOf(stub))).toBe(before);
  });

  test('truncated: 400 invalid_json, the stub unchanged', async () => {
    await using stub = await busyStub();
    const before = JSON.stringify(await snapshotOf(stub));
    const put = await request(`${stub.controlUrl}/snapshot`, {
      method: 'PUT',
      rawBody: before.slice(0, before.length / 2),
      headers: { 'content-type': 'application/json' },
    });
    expect(put.status).toBe(400);
    expect(put.body).toMatchObject({ code: 'invalid_json', field: 'body' });
    expect(JSON.stringify(await snapshotOf(stub))).toBe(before);
  });

  test(`huge: past ${SNAPSHOT_BODY_LIMIT} bytes, 413 naming the body, the stub unchanged`, async () => {
    await using stub = await busyStub();
    const before = JSON.stringify(await snapshotOf(stub));
    const put = await request(`${stub.controlUrl}/snapshot`, {
      method: 'PUT',
      rawBody: `{"format":"${'x'.repeat(SNAPSHOT_BODY_LIMIT)}"}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(put.status).toBe(413);
    expect(put.body).toMatchObject({ code: 'body_too_large', field: 'body' });
    expect(JSON.stringify(await snapshotOf(stub))).toBe(before);
  });

  test('a snapshot of a stub with other settings is refused naming the setting', async () => {
    await using stub = await busyStub();
    await using other = await startStub({ settings: { cancelEvents: 'none' } });
    const put = await request(`${other.controlUrl}/snapshot`, {
      method: 'PUT',
      body: await snapshotOf(stub),
    });
    expect(put.status).toBe(400);
    expect(put.body).toMatchObject({ code: 'invalid_snapshot', field: 'settings.cancelEvents' });
  });

  test('a restored stub serves the world it was given: tasks, events, the clock', async () => {
    await using stub = await busyStub();
    await using other = await startStub();
    const world = await snapshotOf(stub);
    const put = await request(`${other.controlUrl}/snapshot`, { method: 'PUT', body: world });
    expect(put.status).toBe(200);
    expect(put.body.clock.now).toBe(world.taken_at);
    expect((await controlClient(other).tasks()).body).toEqual(
      (await controlClient(stub).tasks()).body,
    );
    expect((await serviceClient(other).events()).body).toEqual(
      (await serviceClient(stub).events()).body,
    );
  });
});

describe('badges and a restore (WS8)', () => {
  test('with a badge connected: 409 naming devices; once it has gone, the restore goes through and the badge, saying hello again, hears the alert it is playing', async () => {
    await using stub = await busyStub();
    await using other = await startStub();
    const world = await snapshotOf(stub);
    const before = JSON.stringify(await snapshotOf(other));
    const badge = await rawBadge(other.devicesUrl, '350000000000002', 'badge-key-0002');
    const refused = await request(`${other.controlUrl}/snapshot`, { method: 'PUT', body: world });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'badges_connected', field: 'devices' });
    expect(refused.body.message).toContain('350000000000002');
    badge.ws.close();
    await vi.waitFor(async () => {
      const devices = (await controlClient(other).devices()).body;
      expect(devices.every((d: { online: boolean }) => !d.online)).toBe(true);
    });
    expect(JSON.stringify({ ...(await snapshotOf(other)), devices: [] })).toBe(
      JSON.stringify({ ...JSON.parse(before), devices: [] }),
    );
    const put = await request(`${other.controlUrl}/snapshot`, { method: 'PUT', body: world });
    expect(put.status).toBe(200);
    const nurses = world.engine.tasks[0].task_id;
    const again = await rawBadge(other.devicesUrl, '350000000000002', 'badge-key-0002');
    await vi.waitFor(() =>
      expect(
        again.frames.some((f) => f.type === 'play' && JSON.stringify(f).includes(nurses)),
      ).toBe(true),
    );
    again.ws.close();
  });
});
