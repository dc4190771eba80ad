/**
 * The contract suite: vitest tests of every endpoint of the service as the spec writes it
 * (paths, headers, status codes, body shapes), and, unless told to skip them, of the
 * decisions badge-sim takes where the spec is silent (docs/decisions.md). It uses only the
 * public interfaces, never the stub's control API, so it runs against the original service
 * too; there, a failing decision check is a difference between the stub and the original.
 *
 *   import { contractSuite, contractTargetFromEnv } from 'badge-sim/contract';
 *   contractSuite('qa', () => contractTargetFromEnv());
 */
import { beforeAll, describe, expect, type TestContext, test } from 'vitest';
import { fetchTrusting } from '../client/trust.ts';
import type { ContractTarget } from './contract-target.ts';

const USER_AGENT = 'badge-sim-contract/0.1';
const ISO_UTC_FRACTIONAL = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z$/;

interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

export function contractSuite(
  name: string,
  target: () => ContractTarget | Promise<ContractTarget>,
): void {
  describe(`contract: ${name}`, () => {
    let t: ContractTarget;
    let fetch: typeof globalThis.fetch;
    const created: string[] = [];

    beforeAll(async () => {
      t = await target();
      fetch = fetchTrusting(t.ca);
      return async () => {
        // Leave nothing alerting: cancel what the suite created (an ended one answers 4xx).
        for (const taskId of created) await api('DELETE', `alerts/${taskId}`);
      };
    });

    const send = async (
      url: string,
      method: string,
      headers: Record<string, string>,
      body?: string,
    ): Promise<Answer> => {
      const response = await fetch(url, { method, headers, body });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {}
      return { status: response.status, headers: response.headers, body: parsed };
    };
    const api = (
      method: string,
      path: string,
      body?: unknown,
      authorization: string | null = `${t.authScheme} ${t.apiKey}`,
    ) =>
      send(
        `${t.baseUrl}/subscribers/${encodeURIComponent(t.subscriberId)}/api/v1/${path}`,
        method,
        {
          ...(authorization === null ? {} : { authorization }),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body === undefined ? undefined : JSON.stringify(body),
      );
    const token = (form: Record<string, string>) =>
      send(
        `${t.authUrl}/oauth2/token`,
        'POST',
        { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': USER_AGENT },
        new URLSearchParams(form).toString(),
      );
    const tokens = async () => {
      const answer = await token({
        grant_type: 'refresh_token',
        client_id: t.clientId,
        refresh_token: t.refreshToken,
      });
      expect(answer.status, 'the token endpoint refused the refresh token').toBe(200);
      return answer.body as { access_token: string; id_token: string };
    };
    const trigger = (
      bearer: string | null,
      options: { userAgent?: string; workflowId?: string } = {},
    ) => {
      const query = new URLSearchParams({
        subscriber_id: t.subscriberId,
        user_id: t.deviceId ?? '',
      });
      const userAgent = options.userAgent ?? USER_AGENT;
      return send(
        `${t.apiHost}/ibot/workflow/${encodeURIComponent(options.workflowId ?? t.workflowId ?? '')}?${query}`,
        'POST',
        {
          'content-type': 'application/json',
          'user-agent': userAgent,
          ...(bearer === null ? {} : { authorization: `Bearer ${bearer}` }),
        },
        JSON.stringify({ action: 'invoke' }),
      );
    };
    const deviceInfo = (bearer: string | null) =>
      send(
        `${t.apiHost}/${t.brandWord}/api/v1/device/${encodeURIComponent(t.deviceId ?? '')}?${new URLSearchParams({ subscriber_id: t.subscriberId })}`,
        'GET',
        {
          'user-agent': USER_AGENT,
          ...(bearer === null ? {} : { authorization: `Bearer ${bearer}` }),
        },
      );
    const alert = async (body: Record<string, unknown>) => {
      const answer = await api('POST', 'alerts', { groups: [t.group], ...body });
      if (typeof answer.body?.task_id === 'string') created.push(answer.body.task_id);
      return answer;
    };
    /**
     * The events of one task, paging with `oldest` from the default window (oldest first on
     * the stub; the original's order is not shown, so every page is searched). Each page is
     * checked against the spec's shape on the way.
     */
    const eventsOf = async (taskId: string) => {
      const found: any[] = [];
      const seen = new Set<string>();
      let query = 'events?limit=100';
      for (let page = 0; page < 50; page++) {
        const answer = await api('GET', query);
        expect(answer.status).toBe(200);
        expect(Array.isArray(answer.body)).toBe(true);
        for (const event of answer.body) expectEventShape(event);
        const fresh = (answer.body as any[]).filter((e) => !seen.has(e.event_id));
        for (const event of fresh) {
          seen.add(event.event_id);
          if (event.task.id === taskId) found.push(event);
        }
        if (answer.body.length < 100) break;
        if (fresh.length === 0)
          throw new Error(
            `more than 100 events share the timestamp ${answer.body[0].timestamp}: paging with oldest cannot get past them`,
          );
        query = `events?limit=100&oldest=${encodeURIComponent(answer.body.at(-1).timestamp)}`;
      }
      return found;
    };
    const needsDevice = (context: TestContext, workflow = false) => {
      if (!t.deviceId || (workflow && !t.workflowId))
        context.skip(
          `set BADGE_SIM_CONTRACT_DEVICE_ID${workflow ? ' and BADGE_SIM_CONTRACT_WORKFLOW_ID' : ''} to check this`,
        );
    };
    const decisionsOnly = (context: TestContext) => {
      if (!t.decisions) context.skip('BADGE_SIM_CONTRACT_DECISIONS=skip');
    };

    describe('notification interface (spec)', () => {
      test('POST alerts answers 200 with exactly {task_id} and a location header', async () => {
        const answer = await alert({ notification: 'Contract check: please ignore', timeout: 60 });
        expect(answer.status).toBe(200);
        expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
        expect(Object.keys(answer.body)).toEqual(['task_id']);
        expect(answer.body.task_id).toEqual(expect.any(String));
        expect(answer.headers.get('location')).toBe(
          `/subscribers/${t.subscriberId}/api/v1/alerts/${answer.body.task_id}`,
        );
      });

      test('GET events answers an array of events with the spec’s fields; an alert’s start carries its task_id and name', async () => {
        const answer = await alert({
          notification: 'Contract check: events',
          name: 'contract-check',
          timeout: 60,
        });
        const events = await eventsOf(answer.body.task_id);
        const start = events.find((e) => e.content.type === 'start');
        expect(start, 'the start event of the alert just created').toBeDefined();
        expect(start.task.name).toBe('contract-check');
      });

      test('an alert without a name carries name "alerts" on its events', async () => {
        const answer = await alert({ notification: 'Contract check: default name', timeout: 60 });
        const mine = await eventsOf(answer.body.task_id);
        expect(mine.length).toBeGreaterThan(0);
        for (const event of mine) expect(event.task.name).toBe('alerts');
      });

      test.each([
        ['events?limit=1000', 'a limit above 100'],
        ['events', 'no limit (default 100)'],
      ])(
        'GET %s answers at most 100 events, exactly 100 when there are more (%s)',
        async (query) => {
          const answer = await api('GET', query);
          expect(answer.status).toBe(200);
          expect(answer.body.length).toBeLessThanOrEqual(100);
          // More events than this page? Then the page must have been full. (A suite run fills
          // an account with more than 100; see seedEvents in the repository's tests.)
          const seen = new Set((answer.body as any[]).map((e) => e.event_id));
          const last = answer.body.at(-1);
          const next = last
            ? await api('GET', `events?limit=100&oldest=${encodeURIComponent(last.timestamp)}`)
            : undefined;
          const more = (next?.body ?? []).some((e: any) => !seen.has(e.event_id));
          if (more) expect(answer.body.length).toBe(100);
        },
      );

      test('GET events with oldest answers nothing older', async () => {
        await alert({ notification: 'Contract check: oldest', timeout: 60 });
        const all = (await api('GET', 'events?limit=100')).body as any[];
        const oldest = all.at(-1)!.timestamp as string;
        const answer = await api('GET', `events?oldest=${encodeURIComponent(oldest)}`);
        expect(answer.status).toBe(200);
        for (const event of answer.body)
          expect(Date.parse(event.timestamp)).toBeGreaterThanOrEqual(Date.parse(oldest) - 1);
      });

      test('DELETE alerts/{task_id} of a running alert succeeds', async () => {
        const alerted = await alert({ notification: 'Contract check: cancel', timeout: 60 });
        const answer = await api('DELETE', `alerts/${alerted.body.task_id}`);
        expect(answer.status).toBeGreaterThanOrEqual(200);
        expect(answer.status).toBeLessThan(300);
      });

      test('POST broadcasts succeeds', async () => {
        const answer = await api('POST', 'broadcasts', {
          notification: 'Contract check: broadcast',
          groups: [t.group],
        });
        expect(answer.status).toBeGreaterThanOrEqual(200);
        expect(answer.status).toBeLessThan(300);
      });
    });

    describe('token, trigger and device interface (spec)', () => {
      test('POST oauth2/token with a form answers access_token and id_token', async () => {
        const answer = await token({
          grant_type: 'refresh_token',
          client_id: t.clientId,
          refresh_token: t.refreshToken,
        });
        expect(answer.status).toBe(200);
        expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
        expect(answer.body).toMatchObject({
          access_token: expect.any(String),
          id_token: expect.any(String),
        });
        expect(answer.body.access_token).not.toBe(answer.body.id_token);
      });

      test('POST ibot/workflow with a bearer token and a User-Agent answers 200', async (context) => {
        needsDevice(context, true);
        const { access_token } = await tokens();
        expect((await trigger(access_token)).status).toBe(200);
      });

      test('an invalid bearer token gets 401 on both trigger and device paths', async (context) => {
        needsDevice(context, true);
        expect((await trigger('not-a-token-of-this-service')).status).toBe(401);
        expect((await deviceInfo('not-a-token-of-this-service')).status).toBe(401);
      });

      test('GET device answers a JSON object', async (context) => {
        needsDevice(context);
        const { access_token } = await tokens();
        const answer = await deviceInfo(access_token);
        expect(answer.status).toBe(200);
        expect(answer.body).toBeTypeOf('object');
      });
    });

    describe('decisions where the spec is silent (docs/decisions.md)', () => {
      test('A1–A4: a missing or unknown API key is 401 with a JSON body naming authorization', async (context) => {
        decisionsOnly(context);
        const missing = await api('GET', 'events', undefined, null);
        expect(missing.status).toBe(401);
        expect(missing.body).toMatchObject({ code: 'missing_api_key', field: 'authorization' });
        const unknown = await api('GET', 'events', undefined, `${t.authScheme} not-a-key`);
        expect(unknown.status).toBe(401);
        expect(unknown.body).toMatchObject({ code: 'invalid_api_key', field: 'authorization' });
      });

      test('B2: an alert without notification is 400 naming the field', async (context) => {
        decisionsOnly(context);
        const answer = await api('POST', 'alerts', { groups: [t.group] });
        expect(answer.status).toBe(400);
        expect(answer.body).toMatchObject({
          statusCode: 400,
          code: 'invalid_field',
          field: 'notification',
        });
      });

      test('G: an unknown group is 400 naming it', async (context) => {
        decisionsOnly(context);
        const answer = await api('POST', 'alerts', {
          notification: 'x',
          groups: ['No Such Group Of The Contract'],
        });
        expect(answer.status).toBe(400);
        expect(answer.body.field).toBe('groups[0]');
      });

      test('L4: DELETE answers 204; an unknown task 404 unknown_task', async (context) => {
        decisionsOnly(context);
        const alerted = await alert({ notification: 'Contract check: 204', timeout: 60 });
        expect((await api('DELETE', `alerts/${alerted.body.task_id}`)).status).toBe(204);
        const unknown = await api('DELETE', 'alerts/NoSuchTaskOfTheContract0');
        expect(unknown.status).toBe(404);
        expect(unknown.body).toMatchObject({ code: 'unknown_task', field: 'task_id' });
      });

      test('R1: a broadcast answers 200 {task_id} without a location', async (context) => {
        decisionsOnly(context);
        const answer = await api('POST', 'broadcasts', { notification: 'x', groups: [t.group] });
        expect(answer.status).toBe(200);
        expect(Object.keys(answer.body)).toEqual(['task_id']);
        expect(answer.headers.get('location')).toBeNull();
      });

      test('V2: limit 0 is 400 naming limit', async (context) => {
        decisionsOnly(context);
        const answer = await api('GET', 'events?limit=0');
        expect(answer.status).toBe(400);
        expect(answer.body.field).toBe('limit');
      });

      test('T4–T5: token errors are OAuth bodies; a token answer says Bearer and 7200', async (context) => {
        decisionsOnly(context);
        const good = await token({
          grant_type: 'refresh_token',
          client_id: t.clientId,
          refresh_token: t.refreshToken,
        });
        expect(good.body).toMatchObject({ token_type: 'Bearer', expires_in: 7200 });
        const grant = await token({ grant_type: 'password', client_id: t.clientId });
        expect(grant.status).toBe(400);
        expect(grant.body.error).toBe('unsupported_grant_type');
        const unknown = await token({
          grant_type: 'refresh_token',
          client_id: t.clientId,
          refresh_token: 'not-a-refresh-token-of-this-service',
        });
        expect(unknown.status).toBe(400);
        expect(unknown.body.error).toBe('invalid_grant');
      });

      test('T6–T7: an empty User-Agent is 403 firewall; the id_token as bearer is 401', async (context) => {
        decisionsOnly(context);
        needsDevice(context, true);
        const { access_token, id_token } = await tokens();
        // fetch adds `user-agent: node` when none is given: an empty one is what it can send.
        const firewall = await trigger(access_token, { userAgent: '' });
        expect(firewall.status).toBe(403);
        expect(firewall.body).toMatchObject({ code: 'firewall', field: 'user-agent' });
        const idToken = await trigger(id_token);
        expect(idToken.status).toBe(401);
        expect(idToken.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
      });

      test('T9: an unknown workflow is 404 unknown_workflow', async (context) => {
        decisionsOnly(context);
        needsDevice(context);
        const { access_token } = await tokens();
        const answer = await trigger(access_token, { workflowId: 'wf_http_no_such_contract' });
        expect(answer.status).toBe(404);
        expect(answer.body).toMatchObject({ code: 'unknown_workflow', field: 'workflow_id' });
      });

      test('T12: device info has the decided fields', async (context) => {
        decisionsOnly(context);
        needsDevice(context);
        const { access_token } = await tokens();
        const answer = await deviceInfo(access_token);
        expect(answer.body).toMatchObject({
          device_id: t.deviceId,
          device_name: expect.any(String),
          device_status: expect.stringMatching(/^(online|offline)$/),
          device_details: { device_info: expect.any(Object) },
          groups: expect.any(Array),
        });
      });

      test('J1: device info carries every field client libraries map; nested objects are objects', async (context) => {
        needsDevice(context);
        const { access_token } = await tokens();
        const answer = await deviceInfo(access_token);
        expect(answer.status).toBe(200);
        // The original's fields (its SDKs): each holder, then the names it must have.
        const fields: [string, string[]][] = [
          [
            '',
            [
              'device_id',
              'device_name',
              'device_label',
              'device_status',
              'last_connect_timestamp',
              'active_channel',
              'mode',
              'background_audio',
              'features',
              'capabilities',
              'groups',
              'channels',
              'emergency_info',
              'active_incidents',
            ],
          ],
          [
            'device_details.device_info',
            [
              'battery_level',
              'battery_status',
              'rom_version',
              'app_version',
              'build_id',
              'product_name',
              'model',
              'wifi_mac',
              'volume_level',
              'imei',
              'iccid',
              'fcc_id',
              'ic_id',
              'bluetooth_status',
            ],
          ],
          [
            'device_details.device_info.network_status',
            ['connection_type', 'wifi_bars', 'cell_bars'],
          ],
          ['device_details.device_info.bluetooth_info', ['address', 'name']],
          [
            'device_details.location',
            [
              'lat',
              'long',
              'accuracy',
              'address',
              'indoor_position',
              'timestamp',
              'geofence_state',
              'geofence_id',
              'geofence_events',
            ],
          ],
        ];
        for (const [holder, names] of fields) {
          const object = holder
            ? holder.split('.').reduce((o, key) => o?.[key], answer.body)
            : answer.body;
          expect(object !== null && typeof object === 'object', `${holder} is an object`).toBe(
            true,
          );
          for (const name of names)
            expect(Object.hasOwn(object, name), `${holder} ${name}`).toBe(true);
        }
      });
    });
  });
}

/** An analytic event as the spec's Resources table writes it. */
function expectEventShape(event: any): void {
  expect(event).toMatchObject({
    category: expect.any(String),
    content: { type: expect.stringMatching(/^(start|end|acknowledged|timed_out)$/) },
    task: {
      id: expect.any(String),
      name: expect.any(String),
      task_type: {
        major: expect.any(Number),
        minor: expect.any(Number),
        name: expect.any(String),
        namespace: expect.any(String),
      },
    },
    event_id: expect.any(String),
    timestamp: expect.stringMatching(ISO_UTC_FRACTIONAL),
  });
  expect(Number.isInteger(event.task.task_type.major)).toBe(true);
  expect(Number.isInteger(event.task.task_type.minor)).toBe(true);
  // content.device only on acknowledged, content.status only on end.
  expect(Object.hasOwn(event.content, 'device')).toBe(event.content.type === 'acknowledged');
  expect(Object.hasOwn(event.content, 'status')).toBe(event.content.type === 'end');
}
