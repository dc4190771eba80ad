/**
 * A seeded fuzz of every HTTP endpoint of the stub (docs/decisions.md I11): malformed bodies,
 * paths, query strings, headers and content types, sent over a real port. For each request:
 * no answer is a 5xx; every refusal (4xx) is JSON naming the field (`field` of the stub's
 * error body, or the OAuth `error` on the token endpoint); and a refusal changes nothing the
 * stub stores (tasks, events, invocations, the clock, the fixtures). An answer that succeeds
 * may change state: it becomes the new state to compare with (and a control call that moved
 * the clock or replaced the fixtures is undone first).
 *
 * fast-check prints the seed and the shrunk request when a property fails; re-run it with
 * `FUZZ_SEED=<seed>`, and widen it with `FUZZ_RUNS=<runs>` (400 a property by default).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Fixtures } from '../../fixtures/fixtures.schema.ts';
import { type StubHandle, startStub } from '../../server-stub/start-stub.ts';
import { HARBOUR, RIVERSIDE } from '../support/http.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_122);
const RUNS = Number(process.env.FUZZ_RUNS ?? 400);
const ADA = '350000000000001';
const NAMES = Object.getOwnPropertyNames(Object.prototype);
const SERVICE_KEY = `ServiceApiKey ${RIVERSIDE.key}`;
const REFRESH = {
  '': 'demo-refresh-token-riverside-pro-0001',
  '/qa': 'demo-refresh-token-riverside-qa-0001',
} as const;
type Prefix = keyof typeof REFRESH;
const CLIENT_ID = { '': 'badge-sim-pro-sdk', '/qa': 'badge-sim-qa-sdk' } as const;

// ---------------------------------------------------------------------------- arbitraries

/** Raw JSON texts of scalars: what JSON.stringify cannot write (1e999) included. */
const scalarText = fc.oneof(
  fc.constantFrom(
    '1e999',
    '-1e999',
    '1e308',
    '-1e308',
    '-0',
    '0',
    '1',
    '-1',
    '0.5',
    '9007199254740993',
    '100001',
    '604801',
    'null',
    'true',
    'false',
    '""',
    '" "',
    '"1e999"',
    '"Infinity"',
    '"100000000d"',
    `"${'9'.repeat(300)}"`,
    '"+275760-09-13T00:00:00Z"',
    '"9999-12-31T23:59:59.999Z"',
    '"urn:service-resource:name:group:Nurses"',
    '"Nurses"',
    '"invoke"',
    '"virtual"',
    '"scaled"',
    '"real"',
    '"qa"',
    '"refresh_token"',
    `"${ADA}"`,
  ),
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
  fc.string({ maxLength: 40 }).map((s) => JSON.stringify(s)),
  fc.constantFrom(...NAMES).map((s) => JSON.stringify(s)),
  fc.integer({ min: 1_000, max: 70_000 }).map((n) => JSON.stringify('x'.repeat(n))),
);

/** Nesting from 1 to 3000 deep, arrays or objects. */
const deepText = fc
  .tuple(fc.integer({ min: 1, max: 3_000 }), fc.boolean())
  .map(([n, object]) =>
    object ? `${'{"a":'.repeat(n)}1${'}'.repeat(n)}` : `${'['.repeat(n)}${']'.repeat(n)}`,
  );

const keyArb = (known: readonly string[]) =>
  fc.oneof(
    { weight: 4, arbitrary: known.length ? fc.constantFrom(...known) : fc.constant('x') },
    { weight: 2, arbitrary: fc.constantFrom(...NAMES) },
    { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
  );

const objectText = (entries: [string, string][]) =>
  `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`;

const valueText: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: scalarText },
  { weight: 1, arbitrary: deepText },
  { weight: 2, arbitrary: fc.array(scalarText, { maxLength: 5 }).map((a) => `[${a.join(',')}]`) },
  {
    weight: 2,
    arbitrary: fc
      .array(fc.tuple(keyArb(['a', 'by', 'mode']), scalarText), { maxLength: 4 })
      .map(objectText),
  },
);

/** A body: the endpoint's good body with fields dropped or set to odd values, or anything. */
function bodyArb(base: Record<string, unknown> | undefined) {
  const keys = Object.keys(base ?? {});
  const mutated = fc
    .record({
      drop: fc.subarray(keys),
      set: fc.array(fc.tuple(keyArb(keys), valueText), { minLength: 1, maxLength: 3 }),
    })
    .map(({ drop, set }) => {
      const entries = new Map<string, string>(
        Object.entries(base ?? {})
          .filter(([k]) => !drop.includes(k))
          .map(([k, v]) => [k, JSON.stringify(v)]),
      );
      for (const [k, v] of set) entries.set(k, v);
      return objectText([...entries]);
    });
  return fc.oneof(
    { weight: 6, arbitrary: mutated },
    { weight: 2, arbitrary: valueText },
    {
      weight: 2,
      arbitrary: fc.oneof(
        fc.string({ maxLength: 200 }),
        fc.constantFrom(
          '',
          '{',
          '{"a":}',
          '[[[[',
          `${'['.repeat(1024 * 1024 - 64)}`,
          '{"__proto__":{"a":1}}',
          '{"constructor":{"prototype":{"a":1}}}',
          'grant_type=refresh_token&client_id=x&refresh_token=y',
          '__proto__=1&constructor=2',
        ),
      ),
    },
    { weight: 1, arbitrary: fc.constant(`[${'1,'.repeat(600_000)}1]`) },
  );
}

const contentTypeArb = fc.oneof(
  { weight: 8, arbitrary: fc.constant('application/json') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'application/json; charset=utf-8',
      'APPLICATION/JSON',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/jsonx',
      'application/xml',
      '*/*',
      '',
      'none',
    ),
  },
);

const queryValue = fc.oneof(
  fc.constantFrom(
    'Infinity',
    '-Infinity',
    'NaN',
    '1e2',
    '0x10',
    ' 5',
    '',
    '-1',
    '0',
    '1.5',
    '9'.repeat(30),
    '2026-02-31',
    '2026-01-01',
    '+275760-09-13T00:00:00Z',
    RIVERSIDE.id,
    HARBOUR.id,
    ADA,
  ),
  fc.string({ maxLength: 30 }),
  fc.constantFrom(...NAMES),
  fc.integer().map(String),
);

function queryArb(base: Record<string, string>) {
  const keys = Object.keys(base);
  return fc
    .record({
      drop: fc.subarray(keys),
      set: fc.array(
        fc.tuple(keyArb([...keys, 'limit', 'oldest', 'subscriber_id', 'user_id']), queryValue),
        { maxLength: 3 },
      ),
      raw: fc.option(
        fc.constantFrom('%', '%zz', '&&', '=', '==', 'a[b]=1', '%00', 'limit=1&limit=2', '+'),
        {
          nil: undefined,
        },
      ),
    })
    .map(({ drop, set, raw }) => {
      const pairs = Object.entries(base).filter(([k]) => !drop.includes(k));
      const text = [...pairs, ...set]
        .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
        .concat(raw === undefined ? [] : [raw])
        .join('&');
      return text ? `?${text}` : '';
    });
}

/** An id in a path: inherited names, odd text, escapes, a very long one, or a good one. */
function idArb(good: string[]) {
  return fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom(...good) },
    { weight: 2, arbitrary: fc.constantFrom(...NAMES).map(encodeURIComponent) },
    { weight: 2, arbitrary: fc.string({ minLength: 1, maxLength: 30 }).map(encodeURIComponent) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('%', '%zz', '%00', '..', '.', '%2F', 'a%2Fb', 'x'.repeat(5_000)),
    },
  );
}

type Kind = 'service' | 'token' | 'bearer' | 'control';

interface Endpoint {
  name: string;
  method: string;
  kind: Kind;
  /** Builds the path from one id (when the path has one). */
  path: (id: string) => string;
  ids?: string[];
  query?: Record<string, string>;
  body?: Record<string, unknown>;
  /** Success of this call moves the clock or replaces fixtures: undo before comparing. */
  restores?: boolean;
}

function emulated(prefix: Prefix): Endpoint[] {
  const api = `/subscribers/${RIVERSIDE.id}/api/v1`;
  const service: Endpoint[] =
    prefix === ''
      ? [
          {
            name: 'POST alerts',
            method: 'POST',
            kind: 'service',
            path: () => `${api}/alerts`,
            body: {
              notification: 'Fuzz',
              groups: ['Nurses'],
              quorum: 1,
              timeout: 60,
              name: 'fuzz',
              on_ack: 'ok',
            },
          },
          {
            name: 'DELETE alerts',
            method: 'DELETE',
            kind: 'service',
            path: (id) => `${api}/alerts/${id}`,
            ids: ['AAAAAAAAAAAAAAAAAAAAAA'],
          },
          {
            name: 'POST broadcasts',
            method: 'POST',
            kind: 'service',
            path: () => `${api}/broadcasts`,
            body: { notification: 'Fuzz', groups: ['Nurses'] },
          },
          {
            name: 'GET events',
            method: 'GET',
            kind: 'service',
            path: () => `${api}/events`,
            query: { limit: '5', oldest: '2026-01-01' },
          },
          {
            name: 'subscriber id',
            method: 'GET',
            kind: 'service',
            path: (id) => `/subscribers/${id}/api/v1/events`,
            ids: [RIVERSIDE.id, HARBOUR.id],
          },
        ]
      : [];
  return [
    ...service,
    {
      name: `${prefix} POST oauth2/token`,
      method: 'POST',
      kind: 'token',
      path: () => `${prefix}/oauth2/token`,
      body: {
        grant_type: 'refresh_token',
        client_id: CLIENT_ID[prefix],
        refresh_token: REFRESH[prefix],
      },
    },
    {
      name: `${prefix} GET oauth2/validate`,
      method: 'GET',
      kind: 'bearer',
      path: () => `${prefix}/oauth2/validate`,
    },
    {
      name: `${prefix} POST ibot/workflow`,
      method: 'POST',
      kind: 'bearer',
      path: (id) => `${prefix}/ibot/workflow/${id}`,
      ids: ['wf_http_page_security', 'wf_http_dock_call'],
      query: { subscriber_id: RIVERSIDE.id, user_id: ADA },
      body: { action: 'invoke', action_args: { a: 1 }, target_device_ids: [ADA] },
    },
    {
      name: `${prefix} GET device`,
      method: 'GET',
      kind: 'bearer',
      path: (id) => `${prefix}/service/api/v1/device/${id}`,
      ids: [ADA],
      query: { subscriber_id: RIVERSIDE.id },
    },
  ];
}

const CONTROL: Endpoint[] = [
  { name: 'GET health', method: 'GET', kind: 'control', path: () => '/_stub/health' },
  {
    name: 'POST reset',
    method: 'POST',
    kind: 'control',
    path: () => '/_stub/reset',
    restores: true,
  },
  { name: 'GET fixtures', method: 'GET', kind: 'control', path: () => '/_stub/fixtures' },
  {
    name: 'PUT fixtures',
    method: 'PUT',
    kind: 'control',
    path: () => '/_stub/fixtures',
    body: {
      accounts: [{ subscriber_id: '42', api_keys: ['key-of-account-42'], groups: [], devices: [] }],
    },
    restores: true,
  },
  {
    name: 'POST fixtures/generate',
    method: 'POST',
    kind: 'control',
    path: () => '/_stub/fixtures/generate',
    body: { seed: 1, accounts: 1, groupsPerAccount: 1, devicesPerAccount: 2 },
    restores: true,
  },
  { name: 'GET clock', method: 'GET', kind: 'control', path: () => '/_stub/clock' },
  {
    name: 'PUT clock',
    method: 'PUT',
    kind: 'control',
    path: () => '/_stub/clock',
    body: { mode: 'scaled', scale: 2 },
    restores: true,
  },
  {
    name: 'POST clock/advance',
    method: 'POST',
    kind: 'control',
    path: () => '/_stub/clock/advance',
    body: { by: '1s' },
    restores: true,
  },
  { name: 'GET settings', method: 'GET', kind: 'control', path: () => '/_stub/settings' },
  { name: 'GET environments', method: 'GET', kind: 'control', path: () => '/_stub/environments' },
  {
    name: 'GET workflows/invocations',
    method: 'GET',
    kind: 'control',
    path: () => '/_stub/workflows/invocations',
  },
  {
    name: 'POST tokens/refresh',
    method: 'POST',
    kind: 'control',
    path: () => '/_stub/tokens/refresh',
    body: { subscriber_id: RIVERSIDE.id, environment: 'qa' },
  },
  {
    name: 'POST tokens/revoke',
    method: 'POST',
    kind: 'control',
    path: () => '/_stub/tokens/revoke',
    body: { refresh_token: 'no-such-refresh-token' },
  },
  { name: 'POST settle', method: 'POST', kind: 'control', path: () => '/_stub/settle' },
  { name: 'GET devices', method: 'GET', kind: 'control', path: () => '/_stub/devices' },
  {
    name: 'GET transcript',
    method: 'GET',
    kind: 'control',
    path: (id) => `/_stub/devices/${id}/transcript`,
    ids: [ADA],
  },
  {
    name: 'POST tap',
    method: 'POST',
    kind: 'control',
    path: (id) => `/_stub/devices/${id}/tap`,
    ids: [ADA],
  },
  {
    name: 'GET tasks',
    method: 'GET',
    kind: 'control',
    path: () => '/_stub/tasks',
    query: { subscriber_id: RIVERSIDE.id },
  },
  {
    name: 'GET task',
    method: 'GET',
    kind: 'control',
    path: (id) => `/_stub/tasks/${id}`,
    ids: ['AAAAAAAAAAAAAAAAAAAAAA'],
  },
  { name: 'GET openapi.json', method: 'GET', kind: 'control', path: () => '/_stub/openapi.json' },
];

interface FuzzRequest {
  endpoint: Endpoint;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

function requestArb(endpoints: Endpoint[], tokens: () => Record<Prefix, string>) {
  return fc.constantFrom(...endpoints).chain((endpoint) =>
    fc
      .record({
        id: idArb(endpoint.ids ?? ['x']),
        query: queryArb(endpoint.query ?? {}),
        body:
          endpoint.body || endpoint.method !== 'GET'
            ? fc.option(bodyArb(endpoint.body), { nil: undefined, freq: 8 })
            : fc.constant(undefined),
        contentType: contentTypeArb,
        auth: fc.oneof(
          { weight: 8, arbitrary: fc.constant('good') },
          { weight: 1, arbitrary: fc.constantFrom('none', 'other', 'garbage') },
        ),
        agent: fc.oneof(
          { weight: 8, arbitrary: fc.constant('fuzz/1') },
          { weight: 1, arbitrary: fc.constantFrom('', ' ') },
        ),
        method: fc.oneof(
          { weight: 8, arbitrary: fc.constant(endpoint.method) },
          { weight: 1, arbitrary: fc.constantFrom('PATCH', 'GET', 'DELETE', 'PUT', 'POST') },
        ),
      })
      .map(({ id, query, body, contentType, auth, agent, method }): FuzzRequest => {
        const headers: Record<string, string> = { 'user-agent': agent };
        const prefix: Prefix = endpoint.path('x').startsWith('/qa') ? '/qa' : '';
        const good =
          endpoint.kind === 'service'
            ? SERVICE_KEY
            : endpoint.kind === 'bearer'
              ? `Bearer ${tokens()[prefix]}`
              : undefined;
        if (good && auth === 'good') headers.authorization = good;
        if (good && auth === 'other') headers.authorization = good.replace(/^\S+/, 'Basic');
        if (good && auth === 'garbage') headers.authorization = 'x y z';
        if (body !== undefined && contentType !== 'none') headers['content-type'] = contentType;
        return {
          endpoint,
          method,
          path: `${endpoint.path(id)}${query}`,
          headers,
          body: method === 'GET' ? undefined : body,
        };
      }),
  );
}

// ---------------------------------------------------------------------------- the stub

let stub: StubHandle;
let defaultFixtures: Fixtures;
let tokens: Record<Prefix, string> = { '': '', '/qa': '' };
let baseline = '';

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${stub.url}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** Everything the stub stores that a client can see. */
async function snapshot(): Promise<string> {
  const auth = (account: { id: string; key: string }) => ({
    headers: { authorization: `ServiceApiKey ${account.key}` },
  });
  const views = await Promise.all([
    fetch(`${stub.controlUrl}/tasks`),
    fetch(`${stub.controlUrl}/workflows/invocations`),
    fetch(`${stub.controlUrl}/clock`),
    fetch(`${stub.controlUrl}/fixtures`),
    fetch(`${stub.url}/subscribers/${RIVERSIDE.id}/api/v1/events`, auth(RIVERSIDE)),
    fetch(`${stub.url}/subscribers/${HARBOUR.id}/api/v1/events`, auth(HARBOUR)),
  ]);
  const texts = await Promise.all(views.map((v) => v.text()));
  views.forEach((v, i) => {
    if (v.status !== 200) throw new Error(`a view answered ${v.status}: ${texts[i]}`);
  });
  return texts.join('\n');
}

/** Back to a known state: virtual clock, default fixtures, fresh tokens, one alert, one invocation. */
async function restore(): Promise<void> {
  await call('PUT', '/_stub/clock', { mode: 'virtual' });
  await call('PUT', '/_stub/fixtures', defaultFixtures);
  for (const prefix of ['', '/qa'] as const) {
    const res = await fetch(`${stub.url}${prefix}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=refresh_token&client_id=${CLIENT_ID[prefix]}&refresh_token=${REFRESH[prefix]}`,
    });
    tokens = { ...tokens, [prefix]: ((await res.json()) as { access_token: string }).access_token };
  }
  await fetch(`${stub.url}/subscribers/${RIVERSIDE.id}/api/v1/alerts`, {
    method: 'POST',
    headers: { authorization: SERVICE_KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ notification: 'Standing', groups: ['Nurses'], timeout: 600 }),
  });
  await fetch(
    `${stub.url}/ibot/workflow/wf_http_page_security?subscriber_id=${RIVERSIDE.id}&user_id=${ADA}`,
    {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tokens['']}`,
        'user-agent': 'fuzz/1',
        'content-type': 'application/json',
      },
      body: '{"action":"invoke"}',
    },
  );
  await call('POST', '/_stub/clock/advance', { by: '1s' });
  baseline = await snapshot();
}

/** Sends one request and checks the answer and the state; returns a problem or undefined. */
async function check(r: FuzzRequest): Promise<void> {
  const res = await fetch(`${stub.url}${r.path}`, {
    method: r.method,
    headers: r.headers,
    body: r.body,
  });
  const text = await res.text();
  const where = `${r.method} ${r.path.slice(0, 200)} → ${res.status} ${text.slice(0, 300)}`;
  expect(res.status, where).toBeLessThan(500);
  if (res.status >= 400) {
    let body: Record<string, unknown> | undefined;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    const oauth =
      r.endpoint.kind === 'token' &&
      typeof body?.error === 'string' &&
      typeof body.error_description === 'string';
    const named =
      body?.statusCode === res.status &&
      typeof body.error === 'string' &&
      typeof body.code === 'string' &&
      typeof body.message === 'string' &&
      typeof body.field === 'string' &&
      body.field !== '';
    expect(oauth || named, `a refusal names the field: ${where}`).toBe(true);
    expect(await snapshot(), `a refusal changes nothing: ${where}`).toBe(baseline);
    return;
  }
  if (r.endpoint.restores && r.method === r.endpoint.method) await restore();
  else baseline = await snapshot();
}

beforeAll(async () => {
  stub = await startStub({ seed: 11 });
  defaultFixtures = structuredClone(stub.core.fixtures);
  await restore();
});
afterAll(() => stub?.close());

describe('fuzz: malformed requests to every endpoint', () => {
  test('the notification, events, token, workflow and device endpoints (pro and qa)', async () => {
    await fc.assert(
      fc.asyncProperty(
        requestArb([...emulated(''), ...emulated('/qa')], () => tokens),
        check,
      ),
      { seed: SEED, numRuns: RUNS },
    );
    expect((await fetch(`${stub.controlUrl}/health`)).status).toBe(200);
  }, 180_000);

  test('every control endpoint under /_stub', async () => {
    await fc.assert(
      fc.asyncProperty(
        requestArb(CONTROL, () => tokens),
        check,
      ),
      {
        seed: SEED + 1,
        numRuns: RUNS,
      },
    );
    expect((await fetch(`${stub.controlUrl}/health`)).status).toBe(200);
  }, 180_000);
});
