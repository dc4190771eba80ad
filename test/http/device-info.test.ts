/**
 * Device info has the original's shape, over a real port: every field a client library maps is
 * there with its type, whatever the stub knows of the device; values come from the live badge,
 * then the fixtures, then values generated from the device id (the same in every stub and
 * process). Decisions J1–J8 of docs/decisions.md.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { FixtureDevice, Fixtures } from '../../fixtures/fixtures.schema.ts';
import {
  DEFAULT_FIXTURES_FILE,
  FixtureError,
  loadFixturesFile,
} from '../../fixtures/load-fixtures.ts';
import { passesLuhn } from '../../fixtures/luhn.ts';
import { DeviceInfo } from '../../protocol/device-info.schema.ts';
import { type StubHandle, startStub } from '../../server-stub/start-stub.ts';
import { startFleet } from '../../simulator/fleet.ts';
import { RIVERSIDE, request } from '../support/http.ts';

const ADA = '350000000000001';
const BEN = '350000000000002';
const LENA = '350000000000003';
const ROSA = '350000000000005';

/** Every field a client maps, by the object that holds it, with the JSON types it may have. */
const FIELDS: Record<string, Record<string, string>> = {
  '': {
    device_id: 'string',
    device_name: 'string',
    device_label: 'string',
    device_status: 'string',
    last_connect_timestamp: 'string|null',
    active_channel: 'string|null',
    mode: 'string',
    background_audio: 'boolean',
    features: 'object',
    capabilities: 'array',
    groups: 'array',
    channels: 'array',
    emergency_info: 'object',
    active_incidents: 'array',
    device_details: 'object',
  },
  device_details: { device_info: 'object', location: 'object' },
  'device_details.device_info': {
    battery_level: 'number|null',
    battery_status: 'string|null',
    rom_version: 'string',
    app_version: 'string',
    build_id: 'string',
    product_name: 'string',
    model: 'string',
    wifi_mac: 'string',
    volume_level: 'number',
    imei: 'string',
    iccid: 'string',
    fcc_id: 'string',
    ic_id: 'string',
    network_status: 'object',
    bluetooth_status: 'string',
    bluetooth_info: 'object',
  },
  'device_details.device_info.network_status': {
    connection_type: 'string',
    wifi_bars: 'number',
    cell_bars: 'number',
  },
  'device_details.device_info.bluetooth_info': { address: 'string', name: 'string' },
  'device_details.location': {
    lat: 'number|null',
    long: 'number|null',
    accuracy: 'number|null',
    address: 'string|null',
    indoor_position: 'string|null',
    timestamp: 'string|null',
    geofence_state: 'string|null',
    geofence_id: 'string|null',
    geofence_events: 'array',
  },
};

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** What a client mapping field by field would trip over: each missing or mistyped field. */
function shapeProblems(body: unknown): string[] {
  const problems: string[] = [];
  for (const [holder, fields] of Object.entries(FIELDS)) {
    const object = holder
      ? holder
          .split('.')
          .reduce<any>((o, key) => (o && Object.hasOwn(o, key) ? o[key] : undefined), body)
      : body;
    for (const [name, types] of Object.entries(fields)) {
      const path = holder ? `${holder}.${name}` : name;
      if (object === null || typeof object !== 'object' || !Object.hasOwn(object, name)) {
        problems.push(`${path} is missing`);
        continue;
      }
      const type = jsonType(object[name]);
      if (!types.split('|').includes(type)) problems.push(`${path} is ${type}, not ${types}`);
    }
  }
  return problems;
}

const validateAnswer = new Ajv({ allErrors: true, strict: false }).compile(DeviceInfo);

/** The served JSON against the route's own schema (what fast-json-stringify was given). */
function schemaProblems(body: unknown): string[] {
  return validateAnswer(body)
    ? []
    : validateAnswer.errors!.map((e) => `${e.instancePath} ${e.message}`);
}

const MAC = /^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/;
/** A location timestamp as the original writes it: microseconds, no zone. */
const ZONELESS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}$/;

/** Ada's fixture pins every device-info value a fixture can give. */
const ADA_PINNED: Partial<FixtureDevice> = {
  name: 'Badge 12',
  battery_level: 41,
  battery_status: 'discharging',
  location: { lat: 51.5, long: -0.12, accuracy: 12, address: 'Ward 3' },
  indoor_position: 'Ward 3, room 12',
  geofence_state: 'inside',
  geofence_id: 'ward-3',
  mode: 'silent',
  background_audio: true,
  features: { workflows: false },
  device_info: {
    rom_version: '4.2.0',
    app_version: '7.1.3',
    build_id: 'VB2.250101.001',
    product_name: 'Ward Badge',
    model: 'WB-1',
    wifi_mac: '02:00:00:00:00:01',
    volume_level: 35,
    imei: '490154203237518',
    iccid: '8944500102198304826',
    fcc_id: 'TEST-WB1',
    ic_id: '1000A-WB1',
    network_status: { wifi_bars: 2 },
    bluetooth_status: 'connected',
    bluetooth_info: { name: 'Ada’s badge' },
  },
};

function fixturesWith(deviceId: string, fields: Partial<FixtureDevice>): Fixtures {
  const fixtures = loadFixturesFile(DEFAULT_FIXTURES_FILE);
  const account = fixtures.accounts[0]!;
  account.devices = account.devices.map((d) => (d.id === deviceId ? { ...d, ...fields } : d));
  return fixtures;
}

async function accessToken(stub: StubHandle): Promise<string> {
  const response = await fetch(`${stub.url}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      client_id: 'badge-sim-pro-sdk',
      refresh_token: 'demo-refresh-token-riverside-pro-0001',
    }).toString(),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { access_token: string }).access_token;
}

async function deviceInfo(stub: StubHandle, deviceId: string): Promise<any> {
  const res = await request(
    `${stub.url}/service/api/v1/device/${deviceId}?subscriber_id=${RIVERSIDE.id}`,
    {
      headers: {
        'user-agent': 'device-info-tests/1',
        authorization: `Bearer ${await accessToken(stub)}`,
      },
    },
  );
  expect(res.status).toBe(200);
  return res.body;
}

describe('GET service/api/v1/device: the original’s shape', () => {
  const cases: [string, () => Promise<any>][] = [
    [
      'a device whose fixture sets every field, never connected',
      async () => {
        await using stub = await startStub({ fixtures: fixturesWith(ADA, ADA_PINNED) });
        return await deviceInfo(stub, ADA);
      },
    ],
    [
      'a device whose fixture sets none, never connected',
      async () => {
        await using stub = await startStub();
        return await deviceInfo(stub, BEN);
      },
    ],
    [
      'a device online with a live badge reporting battery and location',
      async () => {
        await using stub = await startStub();
        await using fleet = await startFleet({ stub, devices: [ROSA] });
        await fleet.waitUntilConnected();
        fleet.badge(ROSA).setBattery(64, 'charging');
        fleet.badge(ROSA).moveTo({ lat: 59.33, long: 18.07, accuracy: 4, address: 'Gate B' });
        await expect.poll(() => stub.app.gateway.liveState(ROSA).location?.address).toBe('Gate B');
        return await deviceInfo(stub, ROSA);
      },
    ],
    [
      'a device whose badge went offline',
      async () => {
        await using stub = await startStub();
        await using fleet = await startFleet({ stub, devices: [LENA] });
        await fleet.waitUntilConnected();
        fleet.badge(LENA).goOffline();
        await expect.poll(() => stub.app.gateway.liveState(LENA).online).toBe(false);
        return await deviceInfo(stub, LENA);
      },
    ],
  ];

  test.each(cases)(
    '%s: every field is present with its type, nested objects are objects, the schema holds',
    async (_name, answer) => {
      const body = await answer();
      expect(shapeProblems(body)).toEqual([]);
      expect(schemaProblems(body)).toEqual([]);
      const hardware = body.device_details.device_info;
      expect(passesLuhn(hardware.imei) && hardware.imei.length === 15, hardware.imei).toBe(true);
      expect(hardware.iccid).toMatch(/^89\d{17,18}$/);
      expect(hardware.wifi_mac).toMatch(MAC);
      expect(hardware.bluetooth_info.address).toMatch(MAC);
      expect(hardware.volume_level).toBeGreaterThanOrEqual(0);
      expect(hardware.volume_level).toBeLessThanOrEqual(100);
    },
  );

  test('a live badge: its battery, location, app version and state; online on the network; the location time has no zone', async () => {
    await using stub = await startStub();
    await using fleet = await startFleet({ stub, devices: [ROSA] });
    await fleet.waitUntilConnected();
    await fleet.advanceBy(1_500);
    fleet.badge(ROSA).setBattery(64, 'charging');
    fleet.badge(ROSA).moveTo({ lat: 59.33, long: 18.07, accuracy: 4, address: 'Gate B' });
    await expect.poll(() => stub.app.gateway.liveState(ROSA).location?.address).toBe('Gate B');
    const body = await deviceInfo(stub, ROSA);
    expect(body).toMatchObject({
      device_status: 'online',
      last_connect_timestamp: '2026-01-01T00:00:00.000000Z',
      active_channel: '5003',
      groups: [{ group_id: '5003', name: 'Security' }],
      channels: [{ channel_id: '5003', name: 'Security' }],
      device_details: {
        device_info: {
          battery_level: 64,
          battery_status: 'charging',
          app_version: 'badge-sim',
          state: 'idle',
        },
        location: {
          lat: 59.33,
          long: 18.07,
          accuracy: 4,
          address: 'Gate B',
          timestamp: '2026-01-01T00:00:01.500000',
        },
      },
    });
    expect(body.device_details.location.timestamp).toMatch(ZONELESS);
    expect(['wifi', 'cellular']).toContain(
      body.device_details.device_info.network_status.connection_type,
    );
  });

  test('an offline badge keeps what it last reported; its network is none with no bars', async () => {
    await using stub = await startStub();
    await using fleet = await startFleet({ stub, devices: [ROSA] });
    await fleet.waitUntilConnected();
    fleet.badge(ROSA).setBattery(30, 'discharging');
    await expect.poll(() => stub.app.gateway.liveState(ROSA).batteryLevel).toBe(30);
    fleet.badge(ROSA).goOffline();
    await expect.poll(() => stub.app.gateway.liveState(ROSA).online).toBe(false);
    const body = await deviceInfo(stub, ROSA);
    expect(body.device_status).toBe('offline');
    expect(body.last_connect_timestamp).toBe('2026-01-01T00:00:00.000000Z');
    expect(body.device_details.device_info).toMatchObject({
      battery_level: 30,
      battery_status: 'discharging',
      network_status: { connection_type: 'none', wifi_bars: 0, cell_bars: 0 },
    });
  });

  test('a device never connected: no live readings (null), no location time, offline; lists empty', async () => {
    await using stub = await startStub();
    const body = await deviceInfo(stub, BEN);
    expect(body).toMatchObject({
      device_status: 'offline',
      last_connect_timestamp: null,
      mode: 'normal',
      background_audio: false,
      emergency_info: { active: false, reason: null, timestamp: null },
      active_incidents: [],
      capabilities: [
        'speaker',
        'talk_button',
        'text_to_speech',
        'push_to_talk',
        'location',
        'sensors',
      ],
      device_details: {
        device_info: {
          battery_level: null,
          battery_status: null,
          state: null,
          network_status: { connection_type: 'none', wifi_bars: 0, cell_bars: 0 },
        },
        location: {
          lat: null,
          long: null,
          accuracy: null,
          address: null,
          indoor_position: null,
          timestamp: null,
          geofence_state: null,
          geofence_id: null,
          geofence_events: [],
        },
      },
    });
    expect(Object.values(body.features)).toEqual(Array(6).fill(true));
  });

  test('fixture values override generated ones; a partial nested object keeps the rest generated', async () => {
    await using plain = await startStub();
    const generated = (await deviceInfo(plain, ADA)).device_details.device_info;
    await using stub = await startStub({ fixtures: fixturesWith(ADA, ADA_PINNED) });
    const body = await deviceInfo(stub, ADA);
    const { network_status, bluetooth_info, ...pinned } = ADA_PINNED.device_info!;
    expect(body).toMatchObject({
      device_name: 'Badge 12',
      device_label: 'Ada Mensah',
      mode: 'silent',
      background_audio: true,
      features: {
        alerts: true,
        broadcasts: true,
        push_to_talk: true,
        text_to_speech: true,
        location: true,
        workflows: false,
      },
      device_details: {
        device_info: {
          ...pinned,
          battery_level: 41,
          battery_status: 'discharging',
          bluetooth_info: { address: generated.bluetooth_info.address, name: 'Ada’s badge' },
        },
        location: {
          lat: 51.5,
          long: -0.12,
          accuracy: 12,
          address: 'Ward 3',
          indoor_position: 'Ward 3, room 12',
          // Never reported by a badge: no time.
          timestamp: null,
          geofence_state: 'inside',
          geofence_id: 'ward-3',
        },
      },
    });
  });

  test('online, a fixture’s network_status shows over the generated one; the badge’s own app version wins over the fixture’s', async () => {
    await using plain = await startStub();
    await using plainFleet = await startFleet({ stub: plain, devices: [ADA] });
    await plainFleet.waitUntilConnected();
    const generated = (await deviceInfo(plain, ADA)).device_details.device_info.network_status;
    await using stub = await startStub({ fixtures: fixturesWith(ADA, ADA_PINNED) });
    await using fleet = await startFleet({ stub, devices: [ADA] });
    await fleet.waitUntilConnected();
    const hardware = (await deviceInfo(stub, ADA)).device_details.device_info;
    expect(hardware.network_status).toEqual({ ...generated, wifi_bars: 2 });
    expect(hardware.app_version).toBe('badge-sim');
  });

  test('generated values are the same for a device across two stub starts with different seeds, and in another process; other devices differ', async () => {
    const generatedOf = async (seed: number) => {
      await using stub = await startStub({ seed });
      const { device_info } = (await deviceInfo(stub, BEN)).device_details;
      return device_info;
    };
    const first = await generatedOf(1);
    const second = await generatedOf(2);
    expect(second).toEqual(first);

    const otherProcess = JSON.parse(
      execFileSync(
        process.execPath,
        [
          '--import',
          'tsx',
          '--input-type=module',
          '-e',
          `import { generatedHardware } from './server-stub/device-info.ts';
           console.log(JSON.stringify(generatedHardware(${JSON.stringify(BEN)})));`,
        ],
        { encoding: 'utf8' },
      ),
    );
    expect(first).toMatchObject({
      imei: otherProcess.imei,
      iccid: otherProcess.iccid,
      wifi_mac: otherProcess.wifi_mac,
      rom_version: otherProcess.rom_version,
      build_id: otherProcess.build_id,
      volume_level: otherProcess.volume_level,
      bluetooth_info: otherProcess.bluetooth_info,
    });

    await using stub = await startStub();
    const others = await Promise.all([ADA, LENA, ROSA].map((id) => deviceInfo(stub, id)));
    const imeis = new Set([first.imei, ...others.map((o) => o.device_details.device_info.imei)]);
    const macs = new Set([
      first.wifi_mac,
      ...others.map((o) => o.device_details.device_info.wifi_mac),
    ]);
    expect([imeis.size, macs.size]).toEqual([4, 4]);
  });

  test('the OpenAPI document shows the answer’s schema: every field, nested objects included', async () => {
    await using stub = await startStub();
    const doc = (await request(stub.openapiUrl)).body;
    for (const path of [
      '/service/api/v1/device/{device_id}',
      '/qa/service/api/v1/device/{device_id}',
    ]) {
      const schema = doc.paths[path].get.responses['200'].content['application/json'].schema;
      expect(Object.keys(schema.properties).sort()).toEqual(Object.keys(FIELDS['']!).sort());
      const details = schema.properties.device_details.properties;
      expect(Object.keys(details.device_info.properties)).toEqual(
        expect.arrayContaining(Object.keys(FIELDS['device_details.device_info']!)),
      );
      expect(Object.keys(details.location.properties).sort()).toEqual(
        Object.keys(FIELDS['device_details.location']!).sort(),
      );
      expect(details.device_info.properties.network_status.required).toEqual(
        Object.keys(FIELDS['device_details.device_info.network_status']!),
      );
    }
  });
});

describe('device-info fixture fields are checked when fixtures load', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'badge-sim-device-info-'));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  /** One account, one device; the extra fields are on line 8. */
  const yaml = (extra: string) => `accounts:
  - subscriber_id: "42"
    api_keys: [key-of-account-42]
    groups: [{ id: g1, name: Crew, members: ["7001"] }]
    devices:
      - id: "7001"
        user: Pat
${extra
  .split('\n')
  .map((line) => `        ${line}`)
  .join('\n')}
`;

  const BAD: [string, string, string, RegExp][] = [
    [
      'an IMEI of 14 digits',
      'device_info: { imei: "49015420323751" }',
      'device_info.imei',
      /pattern/,
    ],
    [
      'an IMEI with a wrong check digit',
      'device_info: { imei: "490154203237517" }',
      'device_info.imei',
      /Luhn check digit/,
    ],
    ['a volume of 101', 'device_info: { volume_level: 101 }', 'device_info.volume_level', /100/],
    [
      'a volume of 50.5',
      'device_info: { volume_level: 50.5 }',
      'device_info.volume_level',
      /integer/,
    ],
    [
      'an ICCID not beginning 89',
      'device_info: { iccid: "8844500102198304826" }',
      'device_info.iccid',
      /pattern/,
    ],
    [
      'an upper-case MAC',
      'device_info: { wifi_mac: "02:00:00:00:00:AB" }',
      'device_info.wifi_mac',
      /pattern/,
    ],
    [
      '5 wifi bars',
      'device_info: { network_status: { wifi_bars: 5 } }',
      'device_info.network_status.wifi_bars',
      /4/,
    ],
    [
      'a connection type of none',
      'device_info: { network_status: { connection_type: none } }',
      'device_info.network_status.connection_type',
      /one of: wifi, cellular/,
    ],
    [
      'an unknown hardware field',
      'device_info: { serial: "X1" }',
      'device_info.serial',
      /not a field here/,
    ],
    ['an unknown feature', 'features: { teleport: true }', 'features.teleport', /not a field here/],
    ['an empty mode', 'mode: ""', 'mode', /fewer than 1 character/],
    [
      'a geofence state of maybe',
      'geofence_state: maybe',
      'geofence_state',
      /one of: inside, outside/,
    ],
  ];

  test.each(BAD)(
    '%s is refused at load, naming the file, the line and the field',
    (_name, extra, field, reason) => {
      const file = join(dir, 'bad.fixtures.yaml');
      writeFileSync(file, yaml(extra));
      let error: unknown;
      try {
        loadFixturesFile(file);
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(FixtureError);
      const message = (error as FixtureError).message;
      expect(message).toContain(`${file}:8: `);
      expect(message).toContain(`accounts[0].devices[0].${field}`);
      expect(message).toMatch(reason);
    },
  );

  test('a good set of fields loads', () => {
    const file = join(dir, 'good.fixtures.yaml');
    writeFileSync(
      file,
      yaml(
        'device_info: { imei: "490154203237518", iccid: "89445001021983048265", volume_level: 100, wifi_mac: "02:00:00:00:00:ab" }',
      ),
    );
    expect(loadFixturesFile(file).accounts[0]!.devices[0]!.device_info).toMatchObject({
      imei: '490154203237518',
    });
  });

  test('PUT /_stub/fixtures refuses a bad IMEI with 400 naming the field, and keeps the fixtures it had', async () => {
    await using stub = await startStub();
    const before = await request(`${stub.controlUrl}/fixtures`);
    const res = await request(`${stub.controlUrl}/fixtures`, {
      method: 'PUT',
      body: fixturesWith(ADA, { device_info: { imei: '490154203237517' } }),
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      statusCode: 400,
      field: 'accounts[0].devices[0].device_info.imei',
    });
    expect((await request(`${stub.controlUrl}/fixtures`)).body).toEqual(before.body);
  });
});
