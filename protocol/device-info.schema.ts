/**
 * The device-info answer (`GET {api_host}/service/api/v1/device/{device_id}`), declared once:
 * it is the route's 200 response schema (so fastify serialises by it and the OpenAPI document
 * shows it), the type the builder (server-stub/device-info.ts) fills, and the type
 * `TriggerClient.deviceInfo` returns. Client libraries of the original map this answer field
 * by field and throw when a nested object is missing: every field is always present, every
 * nested object is always an object, and what the stub does not know is `null` (a scalar) or
 * `[]` (a list). docs/decisions.md (Device info, J1–J8) says where each value comes from.
 *
 * The fixture fields a test may set (`DEVICE_INFO_FIXTURE_FIELDS`) live here too, beside the
 * answer they feed.
 */
import Type, { type Static, type TSchema } from 'typebox';
import { BadgeStateName, BatteryStatus } from './device-frames.schema.ts';

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** A MAC address as the original writes it: six lower-case hex pairs joined by colons. */
const MAC_PATTERN = '^[0-9a-f]{2}(:[0-9a-f]{2}){5}$';
/** An IMEI: 15 digits, the last a Luhn check digit (checked when fixtures load). */
const IMEI_PATTERN = '^\\d{15}$';
/** An ICCID: 19 or 20 digits beginning 89 (telecommunications). */
const ICCID_PATTERN = '^89\\d{17,18}$';
/** A location timestamp as the original writes it: UTC, microseconds, and no zone. */
const ZONELESS_TIMESTAMP_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{6}$';

const ZonelessTimestamp = (description: string) =>
  Type.String({
    pattern: ZONELESS_TIMESTAMP_PATTERN,
    description: `${description} UTC without a zone (2026-01-01T00:00:00.000000): clients append Z.`,
  });

/** How the badge reaches the network; `none` while it is offline. */
const ConnectionType = Type.Union([
  Type.Literal('wifi'),
  Type.Literal('cellular'),
  Type.Literal('none'),
]);
const Bars = Type.Integer({ minimum: 0, maximum: 4, description: 'Signal bars, 0 to 4.' });

const NetworkStatus = Type.Object(
  { connection_type: ConnectionType, wifi_bars: Bars, cell_bars: Bars },
  { additionalProperties: false },
);

const BluetoothInfo = Type.Object(
  {
    address: Type.String({ pattern: MAC_PATTERN, description: "The badge's Bluetooth address." }),
    name: Type.String({ description: 'The name the badge advertises over Bluetooth.' }),
  },
  { additionalProperties: false },
);

const DeviceHardware = Type.Object(
  {
    battery_level: Nullable(Type.Integer({ minimum: 0, maximum: 100 })),
    battery_status: Nullable(BatteryStatus),
    rom_version: Type.String(),
    app_version: Type.String(),
    build_id: Type.String(),
    product_name: Type.String(),
    model: Type.String(),
    wifi_mac: Type.String({ pattern: MAC_PATTERN }),
    volume_level: Type.Integer({ minimum: 0, maximum: 100 }),
    imei: Type.String({ pattern: IMEI_PATTERN }),
    iccid: Type.String({ pattern: ICCID_PATTERN }),
    fcc_id: Type.String(),
    ic_id: Type.String(),
    network_status: NetworkStatus,
    bluetooth_status: Type.String({ description: '`on`, `off` or `connected`.' }),
    bluetooth_info: BluetoothInfo,
    state: Nullable(BadgeStateName),
  },
  { additionalProperties: false },
);

const GeofenceState = Type.Union([Type.Literal('inside'), Type.Literal('outside')]);

const GeofenceEvent = Type.Object(
  {
    geofence_id: Type.String(),
    event: Type.Union([Type.Literal('enter'), Type.Literal('exit')]),
    timestamp: ZonelessTimestamp('When it happened,'),
  },
  { additionalProperties: false },
);

const DeviceLocation = Type.Object(
  {
    lat: Nullable(Type.Number({ minimum: -90, maximum: 90 })),
    long: Nullable(Type.Number({ minimum: -180, maximum: 180 })),
    accuracy: Nullable(Type.Number({ minimum: 0, description: 'Metres.' })),
    address: Nullable(Type.String()),
    indoor_position: Nullable(Type.String()),
    timestamp: Nullable(ZonelessTimestamp('When the badge reported this location,')),
    geofence_state: Nullable(GeofenceState),
    geofence_id: Nullable(Type.String()),
    geofence_events: Type.Array(GeofenceEvent),
  },
  { additionalProperties: false },
);

const Features = Type.Object(
  {
    alerts: Type.Boolean(),
    broadcasts: Type.Boolean(),
    push_to_talk: Type.Boolean(),
    text_to_speech: Type.Boolean(),
    location: Type.Boolean(),
    workflows: Type.Boolean(),
  },
  { additionalProperties: false },
);

/** What the badge's hardware has (the spec's list); the same for every badge. */
export const CAPABILITIES = [
  'speaker',
  'talk_button',
  'text_to_speech',
  'push_to_talk',
  'location',
  'sensors',
] as const;

const GroupRef = Type.Object(
  { group_id: Type.String(), name: Type.String() },
  { additionalProperties: false },
);
const Channel = Type.Object(
  { channel_id: Type.String(), name: Type.String() },
  { additionalProperties: false },
);

const EmergencyInfo = Type.Object(
  {
    active: Type.Boolean(),
    reason: Nullable(Type.String()),
    timestamp: Nullable(ZonelessTimestamp('When the emergency began,')),
  },
  { additionalProperties: false },
);

const Incident = Type.Object(
  {
    incident_id: Type.String(),
    name: Type.String(),
    timestamp: ZonelessTimestamp('When it began,'),
  },
  { additionalProperties: false },
);

export const DeviceInfo = Type.Object(
  {
    device_id: Type.String(),
    device_name: Type.String(),
    device_label: Type.String({ description: 'The user profile on the device.' }),
    device_status: Type.Union([Type.Literal('online'), Type.Literal('offline')]),
    last_connect_timestamp: Nullable(
      Type.String({ description: 'The last hello, as events write instants (with Z).' }),
    ),
    active_channel: Nullable(
      Type.String({ description: "The channel_id of the badge's first channel." }),
    ),
    mode: Type.String({ description: '`normal` unless the fixtures say otherwise.' }),
    background_audio: Type.Boolean(),
    features: Features,
    capabilities: Type.Array(Type.String()),
    groups: Type.Array(GroupRef),
    channels: Type.Array(Channel, {
      description: "The badge's groups, each a push-to-talk channel (channel_id = group_id).",
    }),
    emergency_info: EmergencyInfo,
    active_incidents: Type.Array(Incident, { description: 'Always empty on the stub.' }),
    device_details: Type.Object(
      { device_info: DeviceHardware, location: DeviceLocation },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, description: 'Device information: every field always present.' },
);
export type DeviceInfo = Static<typeof DeviceInfo>;

// ---- what fixtures may set ------------------------------------------------------------------

const Word = (description: string) => Type.String({ minLength: 1, maxLength: 100, description });

/** `device_info` of a fixture device: any of the answer's hardware fields, each optional. */
export const FixtureDeviceHardware = Type.Object(
  {
    rom_version: Type.Optional(Word('Firmware (ROM) version.')),
    app_version: Type.Optional(Word('App version until the badge states its own in hello.')),
    build_id: Type.Optional(Word('Build id of the firmware.')),
    product_name: Type.Optional(Word('Product name.')),
    model: Type.Optional(Word('Model.')),
    wifi_mac: Type.Optional(
      Type.String({ pattern: MAC_PATTERN, description: 'aa:bb:cc:dd:ee:ff' }),
    ),
    volume_level: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
    imei: Type.Optional(
      Type.String({
        pattern: IMEI_PATTERN,
        description: '15 digits with a valid Luhn check digit.',
      }),
    ),
    iccid: Type.Optional(
      Type.String({ pattern: ICCID_PATTERN, description: '19 or 20 digits beginning 89.' }),
    ),
    fcc_id: Type.Optional(Word('FCC id.')),
    ic_id: Type.Optional(Word('ISED (Industry Canada) id.')),
    network_status: Type.Optional(
      Type.Object(
        {
          connection_type: Type.Optional(
            Type.Union([Type.Literal('wifi'), Type.Literal('cellular')], {
              description: 'While online; an offline badge shows none.',
            }),
          ),
          wifi_bars: Type.Optional(Bars),
          cell_bars: Type.Optional(Bars),
        },
        { additionalProperties: false },
      ),
    ),
    bluetooth_status: Type.Optional(Word('on, off or connected.')),
    bluetooth_info: Type.Optional(
      Type.Object(
        {
          address: Type.Optional(Type.String({ pattern: MAC_PATTERN })),
          name: Type.Optional(Word('The name advertised over Bluetooth.')),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type FixtureDeviceHardware = Static<typeof FixtureDeviceHardware>;

/** Fields a fixture device may give for its device info (spread into FixtureDevice). */
export const DEVICE_INFO_FIXTURE_FIELDS = {
  battery_status: Type.Optional(BatteryStatus),
  mode: Type.Optional(Word('Device mode shown in device info; default normal.')),
  background_audio: Type.Optional(Type.Boolean({ description: 'Default false.' })),
  features: Type.Optional(Type.Partial(Features, { additionalProperties: false })),
  indoor_position: Type.Optional(Word('Where indoors, e.g. "Ward 3, room 12".')),
  geofence_state: Type.Optional(GeofenceState),
  geofence_id: Type.Optional(Word('The geofence the badge is inside or outside of.')),
  device_info: Type.Optional(FixtureDeviceHardware),
};
