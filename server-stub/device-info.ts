/**
 * Builds the device-info answer (protocol/device-info.schema.ts) of one device from three
 * sources, the first that knows winning:
 *   1. the live badge (gateway): online or not, last connection, battery, location, state,
 *      the app version of its hello, and network `none` while it is offline;
 *   2. the device's fixture: anything a test wants to pin (its `device_info`, mode, …);
 *   3. values generated with faker, seeded by the device id alone, so a device shows the same
 *      IMEI, MAC, … in every stub, whatever the stub's seed, restart after restart.
 * Readings only a badge makes (battery, location) are never invented: `null` until known.
 */
import { createHash } from 'node:crypto';
import { en, Faker } from '@faker-js/faker';
import { formatTimestamp } from '../clock/clock.ts';
import type { FixtureDevice } from '../fixtures/fixtures.schema.ts';
import { luhnCheckDigit } from '../fixtures/luhn.ts';
import { LOW_BATTERY_LEVEL } from '../protocol/control-api.schema.ts';
import {
  CAPABILITIES,
  type DeviceInfo,
  type FixtureDeviceHardware,
} from '../protocol/device-info.schema.ts';
import type { DeviceLiveState } from './device-live-state.ts';

type Hardware = DeviceInfo['device_details']['device_info'];

/** What generation fills in when the fixture does not say: the device's own hardware. */
type GeneratedHardware = Required<Omit<FixtureDeviceHardware, 'network_status'>> & {
  network_status: { connection_type: 'wifi' | 'cellular'; wifi_bars: number; cell_bars: number };
  bluetooth_info: { address: string; name: string };
};

/** The one model the stub's badges are: per model, not per device (FCC and IC ids too). */
const MODEL = {
  product_name: 'Voice Badge',
  model: 'VB-2',
  fcc_id: '2BSIM-VB2',
  ic_id: '31415-VB2',
} as const;

const ALL_FEATURES: DeviceInfo['features'] = {
  alerts: true,
  broadcasts: true,
  push_to_talk: true,
  text_to_speech: true,
  location: true,
  workflows: true,
};

// One instance, seeded again before each device's draws (synchronous: nothing interleaves).
const faker = new Faker({ locale: [en] });

/** The seed of a device's generated values: its id alone (J2). */
function seedOf(deviceId: string): number[] {
  const digest = createHash('sha256').update(`badge-sim device-info:${deviceId}`).digest();
  return [0, 4, 8, 12].map((offset) => digest.readUInt32LE(offset));
}

/**
 * Plausible hardware for a device, the same for the same id in every process.
 * @public for test/http/device-info.test.ts, which calls it in another process (knip cannot see it)
 */
export function generatedHardware(deviceId: string): GeneratedHardware {
  faker.seed(seedOf(deviceId));
  // An IMEI: an 8-digit type allocation code, a 6-digit serial, the Luhn check digit.
  const imeiBody = `35${faker.string.numeric(12)}`;
  // An ICCID: 89 (telecom), country 1, a 2-digit issuer, 13 digits, the Luhn check digit.
  const iccidBody = `891${faker.string.numeric(16)}`;
  const cellular = faker.number.float() < 0.25;
  const mac = () => faker.internet.mac({ separator: ':' }).toLowerCase();
  return {
    rom_version: faker.system.semver(),
    app_version: faker.system.semver(),
    build_id: `VB2.${faker.string.numeric(6)}.${faker.string.numeric(3)}`,
    ...MODEL,
    wifi_mac: mac(),
    volume_level: faker.number.int({ min: 4, max: 10 }) * 10,
    imei: imeiBody + luhnCheckDigit(imeiBody),
    iccid: iccidBody + luhnCheckDigit(iccidBody),
    network_status: {
      connection_type: cellular ? 'cellular' : 'wifi',
      wifi_bars: cellular ? 0 : faker.number.int({ min: 1, max: 4 }),
      cell_bars: faker.number.int({ min: cellular ? 1 : 0, max: 4 }),
    },
    bluetooth_status: 'on',
    bluetooth_info: { address: mac(), name: `VB2-${deviceId.slice(-4)}` },
  };
}

export interface DeviceInfoSources {
  device: { id: string; user: string };
  fixture: FixtureDevice | undefined;
  live: DeviceLiveState;
  /** The groups of the device, in fixture order. */
  groups: readonly { id: string; name: string }[];
}

/** The device-info answer: every field present, nested objects always objects. */
export function buildDeviceInfo({ device, fixture, live, groups }: DeviceInfoSources): DeviceInfo {
  const given = fixture?.device_info;
  const generated = generatedHardware(device.id);
  const battery = batteryOf(live, fixture);
  const location = live.location ?? (fixture?.location ? { ...fixture.location } : undefined);
  // A location only from the fixtures was never reported: it has no time.
  const reportedAt = live.location ? zoneless(live.location.timestamp) : null;
  const network: Hardware['network_status'] = live.online
    ? overlay<Hardware['network_status']>(generated.network_status, given?.network_status)
    : { connection_type: 'none', wifi_bars: 0, cell_bars: 0 };
  return {
    device_id: device.id,
    device_name: fixture?.name ?? device.user,
    device_label: device.user,
    device_status: live.online ? 'online' : 'offline',
    last_connect_timestamp: live.lastConnect === null ? null : formatTimestamp(live.lastConnect),
    active_channel: groups[0]?.id ?? null,
    mode: fixture?.mode ?? 'normal',
    background_audio: fixture?.background_audio ?? false,
    features: overlay(ALL_FEATURES, fixture?.features),
    capabilities: [...CAPABILITIES],
    groups: groups.map((g) => ({ group_id: g.id, name: g.name })),
    channels: groups.map((g) => ({ channel_id: g.id, name: g.name })),
    emergency_info: { active: false, reason: null, timestamp: null },
    active_incidents: [],
    device_details: {
      device_info: {
        battery_level: battery.battery_level,
        battery_status: battery.battery_status,
        rom_version: given?.rom_version ?? generated.rom_version,
        app_version: live.appVersion ?? given?.app_version ?? generated.app_version,
        build_id: given?.build_id ?? generated.build_id,
        product_name: given?.product_name ?? generated.product_name,
        model: given?.model ?? generated.model,
        wifi_mac: given?.wifi_mac ?? generated.wifi_mac,
        volume_level: given?.volume_level ?? generated.volume_level,
        imei: given?.imei ?? generated.imei,
        iccid: given?.iccid ?? generated.iccid,
        fcc_id: given?.fcc_id ?? generated.fcc_id,
        ic_id: given?.ic_id ?? generated.ic_id,
        network_status: network,
        bluetooth_status: given?.bluetooth_status ?? generated.bluetooth_status,
        bluetooth_info: overlay(generated.bluetooth_info, given?.bluetooth_info),
        state: live.state,
      },
      location: {
        lat: location?.lat ?? null,
        long: location?.long ?? null,
        accuracy: location?.accuracy ?? null,
        address: location?.address ?? null,
        indoor_position: fixture?.indoor_position ?? null,
        timestamp: reportedAt,
        geofence_state: fixture?.geofence_state ?? null,
        geofence_id: fixture?.geofence_id ?? null,
        geofence_events: [],
      },
    },
  };
}

/** A location timestamp as the original writes it: no zone (clients append Z). */
/**
 * The battery as the stub knows it: the badge's last report, else the fixture's; low at or
 * below LOW_BATTERY_LEVEL while not charging (decision DF6). Device info and the control API
 * both show it.
 */
export function batteryOf(live: DeviceLiveState, fixture: FixtureDevice | undefined) {
  const level = live.batteryLevel ?? fixture?.battery_level ?? null;
  const status = live.batteryStatus ?? fixture?.battery_status ?? null;
  return {
    battery_level: level,
    battery_status: status,
    battery_low: level !== null && level <= LOW_BATTERY_LEVEL && status !== 'charging',
  };
}

function zoneless(instant: number): string {
  return formatTimestamp(instant).replace(/Z$/, '');
}

/** `base` with each of its fields that `given` sets (own and defined) taken from `given`. */
function overlay<T extends object>(base: T, given: Partial<T> | undefined): T {
  const result = { ...base };
  if (!given) return result;
  for (const key of Object.keys(base) as (keyof T & string)[]) {
    if (Object.hasOwn(given, key) && given[key] !== undefined)
      result[key] = given[key] as T[typeof key];
  }
  return result;
}
