/**
 * Every name every object inherits (`__proto__`, `constructor`, `toString`, `valueOf`, …) sent
 * where a client word is looked up: a JSON key in each body, a group name, an id in each path,
 * a query parameter name and value. Each answer is a clean 4xx naming the field, or the normal
 * answer for an unknown word; never a 5xx, and the stub stays up (docs/decisions.md I10).
 */
import { describe, expect, test } from 'vitest';
import { partialDifference } from '../../scenarios/checks/request-checks.ts';
import { type StubHandle, startStub } from '../../server-stub/start-stub.ts';
import { HARBOUR, RIVERSIDE, request } from '../support/http.ts';

const NAMES = Object.getOwnPropertyNames(Object.prototype);
const ADA = '350000000000001';
const API = `/subscribers/${RIVERSIDE.id}/api/v1`;
const KEY = { authorization: `ServiceApiKey ${RIVERSIDE.key}` };
const JSON_TYPE = { 'content-type': 'application/json' };
const FORM_TYPE = { 'content-type': 'application/x-www-form-urlencoded' };

/** A JSON object text with `name` as one more key (JSON.stringify cannot write `__proto__`). */
const withKey = (body: object, name: string, value: unknown = 1) =>
  `${JSON.stringify(body).slice(0, -1)}${Object.keys(body).length ? ',' : ''}${JSON.stringify(name)}:${JSON.stringify(value)}}`;

interface Case {
  what: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** The status expected, and the field named (OAuth: the `error` word). */
  status: number;
  field?: string;
  oauth?: string;
}

async function bearer(stub: StubHandle): Promise<Record<string, string>> {
  const res = await request(`${stub.url}/oauth2/token`, {
    method: 'POST',
    headers: FORM_TYPE,
    rawBody:
      'grant_type=refresh_token&client_id=badge-sim-pro-sdk&refresh_token=demo-refresh-token-riverside-pro-0001',
  });
  return { authorization: `Bearer ${res.body.access_token}`, 'user-agent': 'prototype-names' };
}

function cases(name: string, auth: Record<string, string>): Case[] {
  const word = encodeURIComponent(name);
  const wf = `/ibot/workflow/wf_http_page_security?subscriber_id=${RIVERSIDE.id}&user_id=${ADA}`;
  const alert = { notification: 'x', groups: ['Nurses'] };
  const token = {
    grant_type: 'refresh_token',
    client_id: 'badge-sim-pro-sdk',
    refresh_token: 'demo-refresh-token-riverside-pro-0001',
  };
  const proto = name === '__proto__';
  return [
    // A JSON key in each body.
    {
      what: 'alert body key',
      method: 'POST',
      path: `${API}/alerts`,
      headers: { ...KEY, ...JSON_TYPE },
      body: withKey(alert, name),
      status: 400,
      field: name,
    },
    {
      what: 'broadcast body key',
      method: 'POST',
      path: `${API}/broadcasts`,
      headers: { ...KEY, ...JSON_TYPE },
      body: withKey(alert, name),
      status: 400,
      field: name,
    },
    {
      what: 'token JSON body key (unknown keys ignored)',
      method: 'POST',
      path: '/oauth2/token',
      headers: JSON_TYPE,
      body: withKey(token, name),
      status: proto ? 400 : 200,
      field: proto ? name : undefined,
    },
    {
      what: 'token JSON body: only that key',
      method: 'POST',
      path: '/oauth2/token',
      headers: JSON_TYPE,
      body: withKey({}, name, token),
      status: 400,
      ...(proto ? { field: name } : { oauth: 'invalid_request' }),
    },
    {
      what: 'token form key',
      method: 'POST',
      path: '/oauth2/token',
      headers: FORM_TYPE,
      body: `${word}=refresh_token`,
      status: 400,
      oauth: 'invalid_request',
    },
    {
      what: 'token form grant_type value',
      method: 'POST',
      path: '/oauth2/token',
      headers: FORM_TYPE,
      body: `grant_type=${word}`,
      status: 400,
      oauth: 'unsupported_grant_type',
    },
    {
      what: 'token form client_id value',
      method: 'POST',
      path: '/oauth2/token',
      headers: FORM_TYPE,
      body: `grant_type=refresh_token&client_id=${word}&refresh_token=x`,
      status: 401,
      oauth: 'invalid_client',
    },
    {
      what: 'token form refresh_token value',
      method: 'POST',
      path: '/oauth2/token',
      headers: FORM_TYPE,
      body: `grant_type=refresh_token&client_id=badge-sim-pro-sdk&refresh_token=${word}`,
      status: 400,
      oauth: 'invalid_grant',
    },
    {
      what: 'workflow body: only that key',
      method: 'POST',
      path: wf,
      headers: { ...auth, ...JSON_TYPE },
      body: withKey({}, name, 'invoke'),
      status: 400,
      field: proto ? name : 'action',
    },
    {
      what: 'workflow action_args key',
      method: 'POST',
      path: wf,
      headers: { ...auth, ...JSON_TYPE },
      body: `{"action":"invoke","action_args":${withKey({}, name)}}`,
      status: proto ? 400 : 200,
      field: proto ? `action_args.${name}` : undefined,
    },
    {
      what: 'workflow action value',
      method: 'POST',
      path: wf,
      headers: { ...auth, ...JSON_TYPE },
      body: JSON.stringify({ action: name }),
      status: 400,
      field: 'action',
    },
    {
      what: 'clock advance body key',
      method: 'POST',
      path: '/_stub/clock/advance',
      headers: JSON_TYPE,
      body: withKey({ by: 1 }, name),
      status: 400,
      field: name,
    },
    {
      what: 'clock mode body key',
      method: 'PUT',
      path: '/_stub/clock',
      headers: JSON_TYPE,
      body: withKey({ mode: 'virtual' }, name),
      status: 400,
      field: name,
    },
    {
      what: 'clock mode value',
      method: 'PUT',
      path: '/_stub/clock',
      headers: JSON_TYPE,
      body: JSON.stringify({ mode: name }),
      status: 400,
      field: 'mode',
    },
    {
      what: 'tokens/refresh body key',
      method: 'POST',
      path: '/_stub/tokens/refresh',
      headers: JSON_TYPE,
      body: withKey({ subscriber_id: RIVERSIDE.id }, name),
      status: 400,
      field: name,
    },
    {
      what: 'tokens/refresh environment name',
      method: 'POST',
      path: '/_stub/tokens/refresh',
      headers: JSON_TYPE,
      body: JSON.stringify({ subscriber_id: RIVERSIDE.id, environment: name }),
      status: 400,
      field: 'environment',
    },
    {
      what: 'tokens/refresh subscriber id',
      method: 'POST',
      path: '/_stub/tokens/refresh',
      headers: JSON_TYPE,
      body: JSON.stringify({ subscriber_id: name }),
      status: 404,
      field: 'subscriber_id',
    },
    {
      what: 'tokens/revoke token',
      method: 'POST',
      path: '/_stub/tokens/revoke',
      headers: JSON_TYPE,
      body: JSON.stringify({ refresh_token: name }),
      status: 404,
      field: 'refresh_token',
    },
    {
      what: 'fixtures/generate body key',
      method: 'POST',
      path: '/_stub/fixtures/generate',
      headers: JSON_TYPE,
      body: withKey({ seed: 1 }, name),
      status: 400,
      field: name,
    },
    {
      what: 'PUT fixtures body key',
      method: 'PUT',
      path: '/_stub/fixtures',
      headers: JSON_TYPE,
      body: withKey({ accounts: [] }, name),
      status: 400,
    },
    // A group name, plain and in both URN forms.
    {
      what: 'group name',
      method: 'POST',
      path: `${API}/alerts`,
      headers: { ...KEY, ...JSON_TYPE },
      body: JSON.stringify({ notification: 'x', groups: [name] }),
      status: 400,
      field: 'groups[0]',
    },
    {
      what: 'group name URN',
      method: 'POST',
      path: `${API}/broadcasts`,
      headers: { ...KEY, ...JSON_TYPE },
      body: JSON.stringify({
        notification: 'x',
        groups: ['Nurses', `urn:service-resource:name:group:${name}`],
      }),
      status: 400,
      field: 'groups[1]',
    },
    {
      what: 'group id URN',
      method: 'POST',
      path: `${API}/alerts`,
      headers: { ...KEY, ...JSON_TYPE },
      body: JSON.stringify({
        notification: 'x',
        groups: [`urn:service-resource:id:group:${name}`],
      }),
      status: 400,
      field: 'groups[0]',
    },
    // An id in each path.
    {
      what: 'subscriber id',
      method: 'POST',
      path: `/subscribers/${word}/api/v1/alerts`,
      headers: { ...KEY, ...JSON_TYPE },
      body: JSON.stringify(alert),
      status: 403,
      field: 'id',
    },
    {
      what: 'subscriber id (events)',
      method: 'GET',
      path: `/subscribers/${word}/api/v1/events`,
      headers: KEY,
      status: 403,
      field: 'id',
    },
    {
      what: 'task id (DELETE)',
      method: 'DELETE',
      path: `${API}/alerts/${word}`,
      headers: KEY,
      status: 404,
      field: 'task_id',
    },
    {
      what: 'task id (control)',
      method: 'GET',
      path: `/_stub/tasks/${word}`,
      status: 404,
      field: 'task_id',
    },
    {
      what: 'device id (tap)',
      method: 'POST',
      path: `/_stub/devices/${word}/tap`,
      status: 404,
      field: 'device_id',
    },
    {
      what: 'device id (transcript)',
      method: 'GET',
      path: `/_stub/devices/${word}/transcript`,
      status: 404,
      field: 'device_id',
    },
    {
      what: 'device id (device info)',
      method: 'GET',
      path: `/service/api/v1/device/${word}?subscriber_id=${RIVERSIDE.id}`,
      headers: auth,
      status: 404,
      field: 'device_id',
    },
    {
      what: 'workflow id',
      method: 'POST',
      path: `/ibot/workflow/${word}?subscriber_id=${RIVERSIDE.id}&user_id=${ADA}`,
      headers: { ...auth, ...JSON_TYPE },
      body: '{"action":"invoke"}',
      status: 404,
      field: 'workflow_id',
    },
    {
      what: 'workflow target device',
      method: 'POST',
      path: wf,
      headers: { ...auth, ...JSON_TYPE },
      body: JSON.stringify({ action: 'invoke', target_device_ids: [name] }),
      status: 404,
      field: 'target_device_ids[0]',
    },
    // A query parameter name and value.
    {
      what: 'events query name',
      method: 'GET',
      path: `${API}/events?${word}=1`,
      headers: KEY,
      status: 200,
    },
    {
      what: 'events limit value',
      method: 'GET',
      path: `${API}/events?limit=${word}`,
      headers: KEY,
      status: 400,
      field: 'limit',
    },
    {
      what: 'events oldest value',
      method: 'GET',
      path: `${API}/events?oldest=${word}`,
      headers: KEY,
      status: 400,
      field: 'oldest',
    },
    { what: 'tasks query name', method: 'GET', path: `/_stub/tasks?${word}=1`, status: 200 },
    {
      what: 'tasks subscriber_id value',
      method: 'GET',
      path: `/_stub/tasks?subscriber_id=${word}`,
      status: 200,
    },
    {
      what: 'workflow subscriber_id value',
      method: 'POST',
      path: `/ibot/workflow/wf_http_page_security?subscriber_id=${word}&user_id=${ADA}`,
      headers: { ...auth, ...JSON_TYPE },
      body: '{"action":"invoke"}',
      status: 403,
      field: 'subscriber_id',
    },
    {
      what: 'workflow user_id value',
      method: 'POST',
      path: `/ibot/workflow/wf_http_page_security?subscriber_id=${RIVERSIDE.id}&user_id=${word}`,
      headers: { ...auth, ...JSON_TYPE },
      body: '{"action":"invoke"}',
      status: 404,
      field: 'user_id',
    },
    {
      what: 'workflow query name only',
      method: 'POST',
      path: `/ibot/workflow/wf_http_page_security?${word}=${RIVERSIDE.id}`,
      headers: { ...auth, ...JSON_TYPE },
      body: '{"action":"invoke"}',
      status: 400,
      field: 'subscriber_id',
    },
    {
      what: 'device info subscriber_id value',
      method: 'GET',
      path: `/service/api/v1/device/${ADA}?subscriber_id=${word}`,
      headers: auth,
      status: 403,
      field: 'subscriber_id',
    },
    {
      what: 'device info query name only',
      method: 'GET',
      path: `/qa/service/api/v1/device/${ADA}?${word}=${HARBOUR.id}`,
      headers: auth,
      status: 401,
      field: 'authorization',
    },
  ];
}

describe('names every object inherits are plain words to the stub', () => {
  test.each(NAMES)(
    '%s as a key, a group, an id and a query word: a clean answer, never a 5xx',
    async (name) => {
      await using stub = await startStub();
      const auth = await bearer(stub);
      const problems: string[] = [];
      for (const c of cases(name, auth)) {
        const res = await fetch(`${stub.url}${c.path}`, {
          method: c.method,
          headers: c.headers,
          body: c.body,
        });
        const text = await res.text();
        const body = text ? JSON.parse(text) : undefined;
        const field = body?.field ?? body?.error;
        const expectedField = c.field ?? c.oauth;
        if (res.status !== c.status || (expectedField !== undefined && field !== expectedField)) {
          problems.push(
            `${c.what}: ${res.status} ${text.slice(0, 160)} (expected ${c.status} ${expectedField ?? ''})`,
          );
        }
        if (res.status >= 400) {
          const named =
            c.oauth !== undefined
              ? typeof body?.error === 'string' && typeof body?.error_description === 'string'
              : body?.statusCode === res.status &&
                typeof body.error === 'string' &&
                typeof body.code === 'string' &&
                typeof body.message === 'string' &&
                typeof body.field === 'string';
          if (!named)
            problems.push(
              `${c.what}: ${res.status} body does not name the field: ${text.slice(0, 160)}`,
            );
        }
      }
      expect(problems).toEqual([]);
      expect((await request(`${stub.controlUrl}/health`)).status).toBe(200);
    },
  );

  test('a scenario expectation naming an inherited key finds only what the answer holds', () => {
    // A YAML or JSON expectation can hold `__proto__` as a key of its own. The answer `{}` has
    // no such key: the Object.prototype it inherits is not a match for `{}`.
    const expected = JSON.parse('{"__proto__": {}}');
    expect(partialDifference(expected, {}, 'body')).toBe(
      'body.__proto__ is undefined, expected an object',
    );
    expect(
      partialDifference(
        JSON.parse('{"__proto__": {"a": 1}}'),
        JSON.parse('{"__proto__": {"a": 1}}'),
        'body',
      ),
    ).toBeUndefined();
  });
});
