/**
 * Hardening of what enters over HTTP (docs/decisions.md, "Hardening: inputs"): numbers are
 * finite and in range where they enter, JSON nesting and stored sizes are bounded, and a
 * refusal is a 400 naming the field that changes nothing, so every view still answers.
 */
import { describe, expect, test } from 'vitest';
import { formatTimestamp, MAX_INSTANT, VirtualClock } from '../../clock/clock.ts';
import { MAX_DURATION_MS, parseDuration } from '../../protocol/duration.ts';
import { defineScenario } from '../../scenarios/format/load-scenario.ts';
import { type StubHandle, startStub } from '../../server-stub/start-stub.ts';
import { FleetError } from '../../simulator/fleet-connect.ts';
import { checkBehaviour } from '../../simulator/fleet-options.ts';
import { RIVERSIDE, request, serviceClient } from '../support/http.ts';

const JSON_HEADERS = { 'content-type': 'application/json' };
const AUTH = { authorization: `ServiceApiKey ${RIVERSIDE.key}` };

/** Every view a stored value could break, and the clock: all must answer 200 and not move. */
async function snapshot(stub: StubHandle) {
  const views = await Promise.all(
    ['/tasks', '/workflows/invocations', '/clock', '/devices', '/fixtures', '/health'].map((path) =>
      request(`${stub.controlUrl}${path}`),
    ),
  );
  const events = await serviceClient(stub).events();
  for (const view of [...views, events]) expect(view.status).toBe(200);
  return JSON.stringify([...views.map((v) => v.body), events.body]);
}

function expectRefusal(res: { status: number; body: any }, field: string) {
  expect(res.status).toBe(400);
  expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request', field });
  expect(typeof res.body.code).toBe('string');
  expect(typeof res.body.message).toBe('string');
}

describe('numbers are finite and in range where they enter', () => {
  const alerts = `/subscribers/${RIVERSIDE.id}/api/v1/alerts`;
  const cases: [string, string, string, string, string][] = [
    // name, method, path, raw body, field
    [
      'quorum 1e999 (JSON reads Infinity)',
      'POST',
      alerts,
      '{"notification":"x","groups":["Nurses"],"quorum":1e999}',
      'quorum',
    ],
    [
      'quorum 1e308',
      'POST',
      alerts,
      '{"notification":"x","groups":["Nurses"],"quorum":1e308}',
      'quorum',
    ],
    [
      'quorum over 100,000',
      'POST',
      alerts,
      '{"notification":"x","groups":["Nurses"],"quorum":100001}',
      'quorum',
    ],
    ['advance by 1e308 ms', 'POST', '/_stub/clock/advance', '{"by":1e308}', 'by'],
    ['advance by 1e999 ms', 'POST', '/_stub/clock/advance', '{"by":1e999}', 'by'],
    ['advance by 100000000d', 'POST', '/_stub/clock/advance', '{"by":"100000000d"}', 'by'],
    [
      'advance by a 300-digit string',
      'POST',
      '/_stub/clock/advance',
      `{"by":"${'9'.repeat(300)}"}`,
      'by',
    ],
    ['advance by 3651 days', 'POST', '/_stub/clock/advance', '{"by":"3651d"}', 'by'],
    ['advance by 0.5 (ms, not whole)', 'POST', '/_stub/clock/advance', '{"by":0.5}', 'by'],
    ['advance by 0.5ms', 'POST', '/_stub/clock/advance', '{"by":"0.5ms"}', 'by'],
    ['advance by 1.0005s', 'POST', '/_stub/clock/advance', '{"by":"1.0005s"}', 'by'],
    [
      'advance to +275760-09-13',
      'POST',
      '/_stub/clock/advance',
      '{"to":"+275760-09-13T00:00:00Z"}',
      'to',
    ],
    [
      'advance to year 10000',
      'POST',
      '/_stub/clock/advance',
      '{"to":"+010000-01-01T00:00:00Z"}',
      'to',
    ],
    ['clock scale 1e999', 'PUT', '/_stub/clock', '{"mode":"scaled","scale":1e999}', 'scale'],
    ['clock scale 1e7', 'PUT', '/_stub/clock', '{"mode":"scaled","scale":10000000}', 'scale'],
    ['generate seed 1e999', 'POST', '/_stub/fixtures/generate', '{"seed":1e999}', 'seed'],
    [
      'generate 10,000,000 devices',
      'POST',
      '/_stub/fixtures/generate',
      '{"seed":1,"accounts":100,"devicesPerAccount":100000}',
      'devicesPerAccount',
    ],
  ];
  test.each(cases)(
    '%s: 400 naming the field, nothing changes',
    async (_name, method, path, body, field) => {
      await using stub = await startStub();
      await serviceClient(stub).alert({ notification: 'before', groups: ['Nurses'] });
      const before = await snapshot(stub);
      const res = await request(`${stub.url}${path}`, {
        method,
        headers: { ...JSON_HEADERS, ...(path.startsWith('/sub') ? AUTH : {}) },
        rawBody: body,
      });
      expectRefusal(res, field);
      expect(await snapshot(stub)).toBe(before);
    },
  );

  test.each(['Infinity', '1e2', '0x10', '%205', '2.0', '', '%2B5', '9'.repeat(20)])(
    'events limit=%s is refused: limit is a decimal whole number',
    async (limit) => {
      await using stub = await startStub();
      const res = await serviceClient(stub).events(`?limit=${limit}`);
      expectRefusal(res, 'limit');
    },
  );

  test.each([
    ['{"by":1e308}', 'by must be <= 315360000000'],
    ['{"by":-5}', 'by must be >= 0'],
    ['{"by":true}', 'by must be string or number'],
  ])(
    'advance %s: a field of two types says what is wrong with the type that was sent',
    async (body, message) => {
      await using stub = await startStub();
      const res = await request(`${stub.controlUrl}/clock/advance`, {
        method: 'POST',
        headers: JSON_HEADERS,
        rawBody: body,
      });
      expectRefusal(res, 'by');
      expect(res.body.message).toBe(message);
    },
  );

  test('virtual time moves in whole milliseconds: 1.5s, 1.005s and 1500 advance, 0.5 is refused', async () => {
    await using stub = await startStub();
    const advance = (by: unknown) =>
      request<{ clock: { now_ms: number } }>(`${stub.controlUrl}/clock/advance`, {
        method: 'POST',
        headers: JSON_HEADERS,
        rawBody: JSON.stringify({ by }),
      });
    const first = await advance('1.5s');
    expect(first.status).toBe(200);
    const second = await advance(1500);
    expect(second.body.clock.now_ms - first.body.clock.now_ms).toBe(1500);
    // 1.005 × 1000 is 1004.9999999999999 in floating point: the text means 1005 ms.
    const third = await advance('1.005s');
    expect(third.status).toBe(200);
    expect(third.body.clock.now_ms - second.body.clock.now_ms).toBe(1005);
    const refused = await advance(0.5);
    expectRefusal(refused, 'by');
    expect((refused.body as any).message).toMatch(/whole milliseconds/);
    expect(
      Number.isInteger((await request<{ now_ms: number }>(`${stub.controlUrl}/clock`)).body.now_ms),
    ).toBe(true);
  });

  test('events limit stays a decimal whole number, clamped to 100', async () => {
    await using stub = await startStub();
    const api = serviceClient(stub);
    expect((await api.events('?limit=5')).status).toBe(200);
    expect((await api.events('?limit=05')).status).toBe(200); // a leading zero is fine
    expect((await api.events('?limit=100000')).status).toBe(200);
  });

  test('the clock goes up to 9999-12-31T23:59:59.999Z and no further; every view still formats', async () => {
    await using stub = await startStub();
    await serviceClient(stub).alert({ notification: 'x', groups: ['Nurses'] });
    const to = await request(`${stub.controlUrl}/clock/advance`, {
      method: 'POST',
      body: { to: '9999-12-31T23:59:59.999Z' },
    });
    expect(to.status).toBe(200);
    expect(to.body.clock.now).toBe('9999-12-31T23:59:59.999000Z');
    const by = await request(`${stub.controlUrl}/clock/advance`, {
      method: 'POST',
      body: { by: 1 },
    });
    expectRefusal(by, 'by');
    await snapshot(stub);
  });

  test('parseDuration refuses non-finite and over 3650 days; the clock refuses past its last instant', async () => {
    expect(parseDuration(Number.POSITIVE_INFINITY)).toBeUndefined();
    expect(parseDuration(Number.NaN)).toBeUndefined();
    expect(parseDuration('3650d')).toBe(MAX_DURATION_MS);
    expect(parseDuration('3651d')).toBeUndefined();
    expect(parseDuration('9'.repeat(300))).toBeUndefined();
    const clock = new VirtualClock({ start: MAX_INSTANT - 10 });
    await expect(clock.advanceBy(11)).rejects.toThrow(RangeError);
    await expect(clock.advanceTo(MAX_INSTANT + 1)).rejects.toThrow(RangeError);
    expect(clock.now()).toBe(MAX_INSTANT - 10);
    expect(() => new VirtualClock({ start: Number.POSITIVE_INFINITY })).toThrow(RangeError);
  });

  test('a behaviour given in code with a duration over 3650 days is refused naming it', () => {
    expect(() =>
      checkBehaviour({ offline: [{ at: '3651d' }] }, 'behaviour of device 7001'),
    ).toThrow(
      new FleetError(
        "badge-sim: behaviour of device 7001.offline[0].at '3651d' is not a duration of at most 3650 days or a range low..high",
      ),
    );
    expect(() => checkBehaviour({ ack: { after: '1s..3651d' } }, 'b')).toThrow(FleetError);
    expect(checkBehaviour({ offline: [{ at: '3650d', for: '1s' }] }, 'b')).toBeDefined();
  });

  test.each(['0s', '0s..0s', '1ms', '999ms..2s'])(
    'flaky every %s is refused everywhere a behaviour enters: fixtures, a scenario, startFleet',
    async (every) => {
      const flaky = { flaky: { every, down: '0s' } };
      // startFleet's check of a behaviour given in code.
      expect(() => checkBehaviour(flaky, 'behaviour')).toThrow(
        new FleetError(
          `badge-sim: behaviour.flaky.every '${every}' is shorter than 1s, the least time between drops (at both ends of a range)`,
        ),
      );
      // A scenario's behaviours.
      expect(() =>
        defineScenario({
          name: 'flaky',
          proves: 'nothing',
          badges: { group: 'Nurses' },
          behaviours: { '*': flaky },
          timeline: [],
          duration: '10s',
          expect: { events: { items: [] } },
        } as never),
      ).toThrow(/behaviours\.\*\.flaky\.every '.*' is shorter than 1s/);
      // Fixtures through the control API: 400 naming the field, nothing changes.
      await using stub = await startStub();
      const before = await snapshot(stub);
      const res = await request(`${stub.controlUrl}/fixtures`, {
        method: 'PUT',
        headers: JSON_HEADERS,
        body: {
          accounts: [
            {
              subscriber_id: '42',
              api_keys: ['key-of-account-42'],
              groups: [],
              devices: [{ id: '7001', user: 'Pat', behaviour: flaky }],
            },
          ],
        },
      });
      expect(res.status).toBe(400);
      expect(res.body.field).toContain('flaky.every');
      expect(res.body.message).toContain('shorter than 1s');
      expect(await snapshot(stub)).toBe(before);
      // 1s is the least, and a range from it is fine.
      expect(checkBehaviour({ flaky: { every: '1s..2s', down: '0s' } }, 'b')).toBeDefined();
    },
  );

  test.each([1e-9, 5e-324, 2e6, Number.NaN])(
    'startStub refuses clockScale %s: the bounds of PUT /_stub/clock',
    async (clockScale) => {
      await expect(startStub({ clock: 'scaled', clockScale })).rejects.toThrow(
        `badge-sim: clockScale must be from 0.001 to 1000000, got ${clockScale}`,
      );
    },
  );

  test('formatTimestamp never throws and always has a four-digit year', () => {
    for (const ms of [
      Number.NaN,
      Number.POSITIVE_INFINITY,
      -Number.MAX_VALUE,
      8.64e15,
      1e300,
      -1e15,
    ]) {
      expect(formatTimestamp(ms)).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    }
    expect(formatTimestamp(MAX_INSTANT + 1e9)).toBe('9999-12-31T23:59:59.999000Z');
  });

  test('fixture numbers and durations are bounded: a refused document changes nothing', async () => {
    await using stub = await startStub();
    const before = await snapshot(stub);
    const device = (extra: object) => ({
      accounts: [
        {
          subscriber_id: '42',
          api_keys: ['key-of-account-42'],
          groups: [],
          devices: [{ id: '7001', user: 'Pat', ...extra }],
        },
      ],
    });
    const cases: [object, string][] = [
      [{ battery_level: 101 }, 'battery_level'],
      [{ location: { lat: 91, long: 0 } }, 'lat'],
      [{ location: { lat: 0, long: -181 } }, 'long'],
      [{ location: { lat: 0, long: 0, accuracy: 1e308 } }, 'accuracy'],
      [{ behaviour: { offline: [{ at: '99999999d' }] } }, 'offline[0].at'],
      [{ behaviour: { ack: { on_repeat: 1e308 } } }, 'behaviour.ack'],
    ];
    for (const [extra, field] of cases) {
      const res = await request(`${stub.controlUrl}/fixtures`, {
        method: 'PUT',
        headers: JSON_HEADERS,
        rawBody: JSON.stringify(device(extra)).replace('1e+308', '1e999'),
      });
      expect(res.status, JSON.stringify(extra)).toBe(400);
      expect(res.body.field).toContain(field);
    }
    expect(await snapshot(stub)).toBe(before);
  });
});

describe('nesting and size are bounded', () => {
  async function accessToken(stub: StubHandle): Promise<string> {
    const refresh = await request(`${stub.controlUrl}/tokens/refresh`, {
      method: 'POST',
      body: { subscriber_id: RIVERSIDE.id },
    });
    const token = await request(`${stub.url}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      rawBody: new URLSearchParams({
        grant_type: 'refresh_token',
        client_id: 'badge-sim-pro-sdk',
        refresh_token: refresh.body.refresh_token,
      }).toString(),
    });
    return token.body.access_token;
  }

  test('action_args nested 20,000 deep or over 64 KiB is refused naming it; invocations still answer', async () => {
    await using stub = await startStub();
    const token = await accessToken(stub);
    const headers = { ...JSON_HEADERS, authorization: `Bearer ${token}`, 'user-agent': 'test' };
    const workflows = (await request(`${stub.controlUrl}/fixtures`)).body.accounts[0].workflows;
    const id = workflows.find((w: { id: string }) => w.id.startsWith('wf_http_')).id;
    const url = `${stub.url}/ibot/workflow/${id}?subscriber_id=${RIVERSIDE.id}&user_id=350000000000001`;
    const ok = await request(url, {
      method: 'POST',
      headers,
      body: { action: 'invoke', action_args: { a: 1 } },
    });
    expect(ok.status).toBe(200);
    const before = await snapshot(stub);
    const deep = `{"action":"invoke","action_args":${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}}`;
    expectRefusal(await request(url, { method: 'POST', headers, rawBody: deep }), 'action_args');
    const deep33 = `{"action":"invoke","action_args":${'['.repeat(32)}${']'.repeat(32)}}`;
    expectRefusal(await request(url, { method: 'POST', headers, rawBody: deep33 }), 'action_args');
    const big = { action: 'invoke', action_args: { text: 'x'.repeat(64 * 1024) } };
    expectRefusal(await request(url, { method: 'POST', headers, body: big }), 'action_args');
    expect(await snapshot(stub)).toBe(before);
  });

  test.each([
    ['a 1 MiB body of [[[[', '['.repeat(1024 * 1024 - 16)],
    ['a 1 MiB body of nested arrays, closed', `${'['.repeat(400_000)}${']'.repeat(400_000)}`],
    ['objects 100,000 deep', `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`],
    [
      'notification nested 40 deep',
      `{"notification":${'['.repeat(40)}${']'.repeat(40)},"groups":["Nurses"]}`,
    ],
  ])('%s is a 400, not a crash or a 500', async (_name, body) => {
    await using stub = await startStub();
    const res = await request(`${stub.url}/subscribers/${RIVERSIDE.id}/api/v1/alerts`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, ...AUTH },
      rawBody: body,
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('too_deep');
    expect(typeof res.body.field).toBe('string');
    expect((await request(`${stub.controlUrl}/health`)).status).toBe(200);
  });

  test('a __proto__ key is refused naming where it is, not as invalid JSON', async () => {
    await using stub = await startStub();
    const res = await request(`${stub.url}/subscribers/${RIVERSIDE.id}/api/v1/alerts`, {
      method: 'POST',
      headers: { ...JSON_HEADERS, ...AUTH },
      rawBody: '{"notification":"x","groups":["Nurses"],"__proto__":{"quorum":1}}',
    });
    expectRefusal(res, '__proto__');
    expect(res.body.code).toBe('invalid_field');
  });
});
