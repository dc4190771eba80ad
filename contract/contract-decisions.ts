import { describe, expect, test } from 'vitest';
import type { ContractSession } from './contract-session.ts';

/**
 * The decisions badge-sim takes where the spec is silent (docs/decisions.md), each test named
 * by its rows; against the original service a failure is a difference from the stub.
 */
export function decisionsContract(s: ContractSession): void {
  describe('decisions where the spec is silent (docs/decisions.md)', () => {
    notificationDecisions(s);
    tokenAndTriggerDecisions(s);
    deviceInfoDecisions(s);
  });
}

/** API keys, alert bodies, groups, cancels, broadcasts, paging. */
function notificationDecisions(s: ContractSession): void {
  const { api, alert, decisionsOnly } = s;
  test('A1–A4: a missing or unknown API key is 401 with a JSON body naming authorization', async (context) => {
    decisionsOnly(context);
    const missing = await api('GET', 'events', undefined, null);
    expect(missing.status).toBe(401);
    expect(missing.body).toMatchObject({ code: 'missing_api_key', field: 'authorization' });
    const unknown = await api('GET', 'events', undefined, `${s.t.authScheme} not-a-key`);
    expect(unknown.status).toBe(401);
    expect(unknown.body).toMatchObject({ code: 'invalid_api_key', field: 'authorization' });
  });

  test('B2: an alert without notification is 400 naming the field', async (context) => {
    decisionsOnly(context);
    const answer = await api('POST', 'alerts', { groups: [s.t.group] });
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
    const answer = await api('POST', 'broadcasts', { notification: 'x', groups: [s.t.group] });
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
}

/** Token answers and refusals, the firewall, workflows, device info's decided fields. */
function tokenAndTriggerDecisions(s: ContractSession): void {
  const { token, tokens, trigger, deviceInfo, needsDevice, decisionsOnly } = s;
  test('T4–T5: token errors are OAuth bodies; a token answer says Bearer and 7200', async (context) => {
    decisionsOnly(context);
    const good = await token({
      grant_type: 'refresh_token',
      client_id: s.t.clientId,
      refresh_token: s.t.refreshToken,
    });
    expect(good.body).toMatchObject({ token_type: 'Bearer', expires_in: 7200 });
    const grant = await token({ grant_type: 'password', client_id: s.t.clientId });
    expect(grant.status).toBe(400);
    expect(grant.body.error).toBe('unsupported_grant_type');
    const unknown = await token({
      grant_type: 'refresh_token',
      client_id: s.t.clientId,
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
      device_id: s.t.deviceId,
      device_name: expect.any(String),
      device_status: expect.stringMatching(/^(online|offline)$/),
      device_details: { device_info: expect.any(Object) },
      groups: expect.any(Array),
    });
  });
}

/** Device info as client libraries map it. */
function deviceInfoDecisions(s: ContractSession): void {
  const { tokens, deviceInfo, needsDevice } = s;
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
      ['device_details.device_info.network_status', ['connection_type', 'wifi_bars', 'cell_bars']],
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
      expect(object !== null && typeof object === 'object', `${holder} is an object`).toBe(true);
      for (const name of names) expect(Object.hasOwn(object, name), `${holder} ${name}`).toBe(true);
    }
  });
}
