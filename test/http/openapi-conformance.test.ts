/**
 * The stub's OpenAPI document is complete (docs/decisions.md O1–O8): requests generated from
 * the document alone, for every operation in it, get only statuses the document lists for that
 * operation, with bodies its schemas accept. For each operation, on a stub of its own (locked
 * with a control token, so that the control API's 401 is tried too): valid requests built from
 * the fixtures' ids, and wrong ones derived from what the operation documents: missing and
 * wrong credentials for each security scheme, missing required headers, path parameters empty,
 * unknown, inherited names, too long or badly encoded, query parameters missing, malformed,
 * repeated or unknown, bodies malformed, empty, of another media type, too large, too deep,
 * with unknown fields, missing fields or fields of the wrong type, and fast-check samples of
 * each schema (seeded: `OPENAPI_SEED` re-runs another sample).
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { type StubHandle, startStub } from '../../server-stub/start-stub.ts';
import {
  arbitraryOf,
  conformanceProblems,
  type DocumentedOperation,
  HTTP_METHODS,
  INHERITED_NAMES,
  type KnownValues,
  type OpenApiDocument,
  type Operation,
  operationsOf,
  type Schema,
  validValue,
} from '../support/openapi.ts';

const SEED = Number(process.env.OPENAPI_SEED ?? 20_261_012);
/** fast-check samples of each body, and of each parameter. */
const BODY_SAMPLES = 8;
const PARAMETER_SAMPLES = 3;
const CONTROL_TOKEN = 'openapi-conformance-control-token';

/** The document as any stub serves it (it is the same for every stub, locked or not). */
async function servedDocument(): Promise<OpenApiDocument> {
  await using stub = await startStub({ controlToken: CONTROL_TOKEN });
  return (await fetch(stub.openapiUrl)).json() as Promise<OpenApiDocument>;
}
const doc = await servedDocument();
const operations = operationsOf(doc);
const schemes = doc.components?.securitySchemes ?? {};

interface Probe {
  label: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/** What a request needs that only the stub knows: ids, credentials, limits. */
interface Context {
  known: KnownValues;
  /** The same names, of the other account (its subscriber, its device…). */
  foreign: KnownValues;
  /** Header name and value of each security scheme, valid and wrong. */
  credentials: Map<string, { header: string; valid: string; wrong: [string, string][] }>;
  bodyLimit: number;
}

async function json(url: string, init: RequestInit = {}): Promise<any> {
  const response = await fetch(url, init);
  if (!response.ok)
    throw new Error(`setting up: ${init.method ?? 'GET'} ${url} → ${response.status}`);
  return response.json();
}

/** Ids from the stub's fixtures, an alert task, and tokens of the operation's environment. */
async function contextFor(stub: StubHandle, path: string): Promise<Context> {
  const controlHeader = String(schemes.controlToken?.name ?? 'x-badge-sim-control-token');
  const control = { [controlHeader]: CONTROL_TOKEN, 'content-type': 'application/json' };
  const get = (route: string) => json(`${stub.controlUrl}${route}`, { headers: control });
  const post = (url: string, body: unknown) =>
    json(url, { method: 'POST', headers: control, body: JSON.stringify(body) });
  const [fixtures, environments, settings] = await Promise.all([
    get('/fixtures'),
    get('/environments'),
    get('/settings'),
  ]);
  const [account, other] = fixtures.accounts;
  // The environment whose prefix the path starts with (the longest: pro's is empty).
  const byPrefix = Object.entries<any>(environments).sort(
    ([, a], [, b]) => String(b.prefix).length - String(a.prefix).length,
  );
  const [environment, env] = byPrefix.find(([, e]) => path.startsWith(`${e.prefix}/`))!;
  const [otherEnvironment, otherEnv] = byPrefix.find(([name]) => name !== environment)!;
  const tokens = async (name: string, settingsOf: any) => {
    const { refresh_token } = await post(`${stub.controlUrl}/tokens/refresh`, {
      subscriber_id: account.subscriber_id,
      environment: name,
    });
    const issued = await post(`${stub.url}${settingsOf.prefix}/oauth2/token`, {
      grant_type: 'refresh_token',
      client_id: settingsOf.sdkClientId,
      refresh_token,
    });
    return { refresh_token, ...issued };
  };
  const mine = await tokens(environment, env);
  const theirs = await tokens(otherEnvironment, otherEnv);
  const apiKey = account.api_keys[0];
  const group = account.groups[0].name;
  const { task_id } = await json(`${stub.url}/subscribers/${account.subscriber_id}/api/v1/alerts`, {
    method: 'POST',
    headers: { authorization: `ServiceApiKey ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ notification: 'Conformance', groups: [group] }),
  });
  const httpWorkflow = (a: any) =>
    a.workflows?.find(
      (w: any) => w.id.startsWith('wf_http_') && (w.trigger_method ?? 'POST') === 'POST',
    )?.id;
  const known: KnownValues = new Map<string, unknown>([
    ['id', account.subscriber_id],
    ['subscriber_id', account.subscriber_id],
    ['device_id', account.devices[0].id],
    ['user_id', account.devices[0].id],
    ['target_device_ids', [account.devices[1].id]],
    ['task_id', task_id],
    ['workflow_id', httpWorkflow(account)],
    ['groups', [group]],
    ['notification', 'Generated from the OpenAPI document'],
    ['oldest', '2026-01-01T00:00:00Z'],
    ['by', '1s'],
    // GET /_stub/events/await: a short real-time wait, so that probes matching nothing end soon.
    ['timeout', '50ms'],
    // GET /_stub/stream: the snapshot only, so that each probe's answer ends.
    ['once', 'true'],
    ['mode', 'virtual'],
    ['accounts', fixtures.accounts],
    ['grant_type', 'refresh_token'],
    ['client_id', env.sdkClientId],
    ['refresh_token', mine.refresh_token],
    ['environment', environment],
  ]);
  const foreign: KnownValues = new Map<string, unknown>([
    ['id', other.subscriber_id],
    ['subscriber_id', other.subscriber_id],
    ['device_id', other.devices[0].id],
    ['user_id', other.devices[0].id],
    ['workflow_id', httpWorkflow(other)],
  ]);
  // The API key's header value is written in its scheme's description: `<word> <API_KEY>`.
  const keyTemplate = String(schemes.apiKey?.description ?? 'ServiceApiKey <API_KEY>');
  const withKey = (key: string) => keyTemplate.replace('<API_KEY>', key);
  const credentials: Context['credentials'] = new Map([
    [
      'apiKey',
      {
        header: String(schemes.apiKey?.name ?? 'authorization').toLowerCase(),
        valid: withKey(apiKey),
        wrong: [
          ['an unknown key', withKey('no-such-api-key')],
          ["another account's key", withKey(other.api_keys[0])],
          ['another scheme', `Bearer ${apiKey}`],
          ['the scheme word alone', keyTemplate.split(' ')[0]!],
        ],
      },
    ],
    [
      'bearerToken',
      {
        header: 'authorization',
        valid: `Bearer ${mine.access_token}`,
        wrong: [
          ['an unknown token', 'Bearer no-such-access-token'],
          ['the id_token', `Bearer ${mine.id_token}`],
          ["another environment's token", `Bearer ${theirs.access_token}`],
          ['another scheme', `Basic ${mine.access_token}`],
          ['the scheme word alone', 'Bearer'],
        ],
      },
    ],
    [
      'controlToken',
      {
        header: controlHeader.toLowerCase(),
        valid: CONTROL_TOKEN,
        wrong: [['a wrong token', 'not-the-control-token']],
      },
    ],
  ]);
  return { known, foreign, credentials, bodyLimit: settings.bodyLimit };
}

/** Every request the document lets us derive for one operation. */
function probesOf({ method, path, operation }: DocumentedOperation, ctx: Context): Probe[] {
  const parameters = operation.parameters ?? [];
  const inPath = parameters.filter((p) => p.in === 'path');
  const inQuery = parameters.filter((p) => p.in === 'query');
  const inHeaders = parameters.filter((p) => p.in === 'header');
  const value = (schema: Schema, name: string, full = true) =>
    validValue(schema, name, ctx.known, full);

  // The valid request, and a way to make it with one part changed.
  const validPath = new Map(
    inPath.map((p) => [p.name, encodeURIComponent(String(value(p.schema, p.name)))]),
  );
  const validQuery = inQuery
    .filter((p) => p.required || ctx.known.has(p.name))
    .map((p) => [p.name, String(value(p.schema, p.name))] as [string, string]);
  const requirement = (operation.security ?? []).find((r) => Object.keys(r).length > 0) ?? {};
  const validHeaders: Record<string, string> = {};
  for (const scheme of Object.keys(requirement)) {
    const credential = ctx.credentials.get(scheme);
    if (credential) validHeaders[credential.header] = credential.valid;
  }
  for (const p of inHeaders) validHeaders[p.name.toLowerCase()] = String(value(p.schema, p.name));
  const bodyTypes = Object.keys(operation.requestBody?.content ?? {});
  const bodyType = bodyTypes.includes('application/json') ? 'application/json' : bodyTypes[0];
  const bodySchema = bodyType ? operation.requestBody!.content[bodyType]!.schema : undefined;
  const encode = (body: unknown, type = bodyType ?? 'application/json') =>
    type === 'application/x-www-form-urlencoded'
      ? new URLSearchParams(
          Object.entries(body as object).map(([k, v]): [string, string] => [
            k,
            typeof v === 'string' ? v : JSON.stringify(v),
          ]),
        ).toString()
      : JSON.stringify(body);
  const validBody = bodySchema ? value(bodySchema, 'body') : undefined;

  const probes: Probe[] = [];
  const add = (
    label: string,
    change: {
      path?: Map<string, string>;
      query?: [string, string][];
      rawQuery?: string;
      headers?: Record<string, string | undefined>;
      body?: string;
      contentType?: string;
      method?: string;
    } = {},
  ) => {
    const segments = change.path ?? validPath;
    const url = path.replace(/\{([^}]+)\}/g, (_, name: string) => segments.get(name) ?? '');
    const query = change.rawQuery ?? new URLSearchParams(change.query ?? validQuery).toString();
    const headers: Record<string, string> = {};
    for (const [name, v] of Object.entries({ ...validHeaders, ...change.headers })) {
      if (v !== undefined) headers[name] = v;
    }
    let body = change.body;
    if (body === undefined && validBody !== undefined && !('body' in change)) {
      body = encode(validBody);
    }
    if (body !== undefined)
      headers['content-type'] = change.contentType ?? bodyType ?? 'application/json';
    probes.push({
      label: `${method} ${path}: ${label}`,
      method: change.method ?? method,
      url: `${url}${query ? `?${query}` : ''}`,
      headers,
      body,
    });
  };
  const samples = <T>(arbitrary: fc.Arbitrary<T>, salt: number, numRuns = PARAMETER_SAMPLES) =>
    fc.sample(arbitrary, { seed: SEED + salt, numRuns });

  add('valid');
  if (bodySchema) {
    add('valid, required fields only', { body: encode(value(bodySchema, 'body', false)) });
    for (const type of bodyTypes.filter((t) => t !== bodyType)) {
      add(`valid, as ${type}`, { body: encode(validBody, type), contentType: type });
    }
  }

  // Credentials of each scheme the operation names: missing, then each wrong one.
  for (const scheme of Object.keys(requirement)) {
    const credential = ctx.credentials.get(scheme);
    if (!credential) continue;
    add(`no ${scheme}`, { headers: { [credential.header]: undefined } });
    for (const [what, wrong] of credential.wrong) {
      add(`${scheme}: ${what}`, { headers: { [credential.header]: wrong } });
    }
  }
  for (const p of inHeaders.filter((h) => h.required)) {
    add(`header ${p.name} empty`, { headers: { [p.name.toLowerCase()]: '' } });
    add(`header ${p.name} blank`, { headers: { [p.name.toLowerCase()]: '   ' } });
  }

  // Path parameters: each replaced in turn.
  inPath.forEach((p, i) => {
    const wrongValues = [
      '',
      `no-such-${p.name}`,
      ...INHERITED_NAMES,
      'x'.repeat(101),
      '%',
      '%2F..%2Fhealth',
      '%E2%9C%93',
      ...[ctx.foreign.get(p.name)].filter((v) => v !== undefined).map(String),
      ...samples(arbitraryOf(p.schema, p.name, ctx.known), 100 + i).map((v) =>
        encodeURIComponent(String(v)),
      ),
    ];
    for (const wrong of wrongValues) {
      add(`path ${p.name}=${JSON.stringify(wrong.slice(0, 40))}`, {
        path: new Map([...validPath, [p.name, wrong]]),
      });
    }
  });

  // Query parameters: each missing, malformed, repeated; unknown ones; a URL too long.
  inQuery.forEach((p, i) => {
    const others = validQuery.filter(([name]) => name !== p.name);
    if (p.required) add(`query ${p.name} missing`, { query: others });
    const good = String(value(p.schema, p.name));
    const wrongValues = [
      '',
      ' 5',
      '0x10',
      '1e2',
      '2.0',
      '-1',
      '9'.repeat(20),
      'not-a-value',
      ...INHERITED_NAMES,
      ...[ctx.foreign.get(p.name)].filter((v) => v !== undefined).map(String),
      ...samples(arbitraryOf(p.schema, p.name, ctx.known), 200 + i).map((v) =>
        typeof v === 'string' ? v : JSON.stringify(v),
      ),
    ];
    for (const wrong of wrongValues) {
      add(`query ${p.name}=${JSON.stringify(wrong.slice(0, 40))}`, {
        query: [...others, [p.name, wrong]],
      });
    }
    add(`query ${p.name} repeated`, { query: [...others, [p.name, good], [p.name, good]] });
  });
  add('an unknown query parameter', { query: [...validQuery, ['not_a_parameter', '1']] });
  add('an inherited name as a query parameter', { query: [...validQuery, ['__proto__', 'x']] });
  add('a URL over 16 KiB', { query: [...validQuery, ['padding', 'x'.repeat(17 * 1024)]] });

  // Bodies: whatever the method, a body may be sent; the stub reads it unless GET.
  if (method !== 'GET') {
    add('malformed JSON', { body: '{"a":', contentType: 'application/json' });
    add('text/plain', { body: 'hello', contentType: 'text/plain' });
    add('body over the limit', {
      body: JSON.stringify({ padding: 'x'.repeat(ctx.bodyLimit) }),
      contentType: 'application/json',
    });
    add('JSON nested 40 deep', {
      body: `${'['.repeat(40)}${']'.repeat(40)}`,
      contentType: 'application/json',
    });
  }
  if (bodySchema) {
    add('no body', { body: undefined });
    add('empty JSON body', { body: '', contentType: 'application/json' });
    for (const raw of ['null', '[]', '"text"', '42']) {
      add(`body ${raw}`, { body: raw, contentType: 'application/json' });
    }
    const fields = (validBody ?? {}) as Record<string, unknown>;
    if (validBody !== null && typeof validBody === 'object' && !Array.isArray(validBody)) {
      add('an unknown field', { body: encode({ ...fields, not_a_field: 1 }) });
      add('a __proto__ key', {
        body: `{"__proto__":{"polluted":true},${encode(fields).slice(1)}`,
        contentType: 'application/json',
      });
      for (const name of (bodySchema.required ?? []) as string[]) {
        const { [name]: _, ...rest } = fields;
        add(`body without ${name}`, { body: encode(rest) });
      }
      for (const [name, v] of Object.entries(fields)) {
        const wrong = typeof v === 'string' ? 12 : typeof v === 'number' ? 'twelve' : 'x';
        add(`body ${name} of the wrong type`, {
          body: JSON.stringify({ ...fields, [name]: wrong }),
          contentType: 'application/json',
        });
      }
    }
    samples(arbitraryOf(bodySchema, 'body', ctx.known), 300, BODY_SAMPLES).forEach((sample, i) => {
      add(`generated body #${i}`, {
        body: JSON.stringify(sample) ?? 'null',
        contentType: 'application/json',
      });
    });
  }
  return probes;
}

/** What is wrong with the answer to a probe, against the operation's documentation. */
async function send(probe: Probe, base: string, operation: Operation): Promise<string[]> {
  let response: Response;
  try {
    response = await fetch(`${base}${probe.url}`, {
      method: probe.method,
      headers: probe.headers,
      body: probe.body,
      redirect: 'manual',
    });
  } catch (error) {
    return [`${probe.label}: no answer (${(error as Error).cause ?? error})`];
  }
  const text = await response.text();
  const problems = conformanceProblems(
    operation,
    response.status,
    response.headers.get('content-type'),
    text,
  );
  // The stub's own error body always names a field (decision I11): it must reach the client.
  if (response.status >= 400 && problems.length === 0 && text.includes('"statusCode"')) {
    const body = JSON.parse(text);
    if (typeof body.field !== 'string' || body.field === '') {
      problems.push(`${response.status} error body names no field: ${text}`);
    }
  }
  return problems.map((problem) => `${probe.label} → ${problem}`);
}

let requestsSent = 0;

describe('every answer is documented for its operation, with its body schema', () => {
  test('the document lists the operations of both APIs and the control API', () => {
    const paths = operations.map((o) => `${o.method} ${o.path}`);
    expect(paths).toEqual(
      expect.arrayContaining([
        'POST /subscribers/{id}/api/v1/alerts',
        'POST /oauth2/token',
        'POST /qa/ibot/workflow/{workflow_id}',
        'GET /service/api/v1/device/{device_id}',
        'PUT /_stub/fixtures',
        'GET /_stub/health',
      ]),
    );
  });

  test.each(operations.map((o) => [`${o.method} ${o.path}`, o] as const))(
    '%s',
    async (_, documented) => {
      await using stub = await startStub({ controlToken: CONTROL_TOKEN, seed: SEED });
      const ctx = await contextFor(stub, documented.path);
      const probes = probesOf(documented, ctx);
      const problems: string[] = [];
      for (const probe of probes)
        problems.push(...(await send(probe, stub.url, documented.operation)));
      requestsSent += probes.length;
      expect(problems).toEqual([]);
    },
  );

  test('hundreds of requests were generated from the document', () => {
    expect(operations.length).toBeGreaterThan(25);
    expect(requestsSent).toBeGreaterThan(500);
  });
});

describe('what the document does not list', () => {
  test('a method a path does not have is 404 not_found naming the path, as any path that is no route', async () => {
    await using stub = await startStub({ controlToken: CONTROL_TOKEN });
    let tried = 0;
    for (const [path, item] of Object.entries(doc.paths)) {
      const url = path.replace(/\{[^}]+\}/g, 'x');
      for (const method of HTTP_METHODS.filter((m) => !Object.hasOwn(item, m))) {
        const response = await fetch(`${stub.url}${url}`, { method: method.toUpperCase() });
        const what = `${method.toUpperCase()} ${path}`;
        expect(response.status, what).toBe(404);
        expect(await response.json(), what).toMatchObject({ code: 'not_found', field: 'path' });
        tried++;
      }
    }
    expect(tried).toBeGreaterThan(50);
  });
});

describe('documenting an error never strips it', () => {
  test('error bodies keep every field on routes whose errors are documented, the OAuth ones too', async () => {
    await using stub = await startStub();
    const clock = await fetch(`${stub.controlUrl}/clock`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ mode: 'sometimes' }),
    });
    expect(await clock.json()).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      code: 'invalid_field',
      message: expect.any(String),
      field: 'mode',
    });
    const token = (body: string, type: string) =>
      fetch(`${stub.url}/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': type },
        body,
      });
    expect(
      await (await token('grant_type=password', 'application/x-www-form-urlencoded')).json(),
    ).toEqual({
      error: 'unsupported_grant_type',
      error_description: expect.any(String),
    });
    const notJson = await token('grant_type=refresh_token', 'text/plain');
    expect(notJson.status).toBe(415);
    expect(await notJson.json()).toEqual({
      statusCode: 415,
      error: 'Unsupported Media Type',
      code: 'unsupported_media_type',
      message: expect.any(String),
      field: 'content-type',
    });
  });

  test('a path parameter over 100 characters is 414 path_too_long naming the path', async () => {
    await using stub = await startStub();
    const long = await fetch(`${stub.controlUrl}/tasks/${'x'.repeat(101)}`);
    expect(long.status).toBe(414);
    expect(await long.json()).toEqual({
      statusCode: 414,
      error: 'URI Too Long',
      code: 'path_too_long',
      message: expect.any(String),
      field: 'path',
    });
    expect((await fetch(`${stub.controlUrl}/tasks/${'x'.repeat(100)}`)).status).toBe(404);
  });
});
