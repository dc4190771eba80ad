/**
 * A badge's handshake: the WebSocket upgrade (only at DEVICE_WS_PATH), then the rules of its
 * hello: who may connect on a connection (protocol version, a device of the fixtures, its key,
 * one fleet's session at a time) and what a welcomed hello tells the stub of the badge. The
 * gateway applies them to its registry.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Static } from 'typebox';
import type { WebSocketServer } from 'ws';
import {
  CLOSE_CODES,
  DEVICE_PROTOCOL_VERSION,
  DEVICE_WS_PATH,
  type HelloFrame,
} from '../protocol/device-frames.schema.ts';
import type { Connection } from './device-connection.ts';
import type { DeviceLiveState } from './device-live-state.ts';
import { refuseOnSocket } from './http-errors.ts';
import type { StubCore } from './stub-core.ts';

export type Hello = Static<typeof HelloFrame>;

/** Hands `wss` the WebSocket upgrades for DEVICE_WS_PATH on a server; other upgrades get 400. */
export function takeUpgrades(server: Server, wss: WebSocketServer): void {
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== DEVICE_WS_PATH) {
      // Node hands every request with an Upgrade header here, not to the routes (curl
      // --http2 sends `Upgrade: h2c`): say plainly what to change.
      refuseOnSocket(
        socket,
        400,
        'upgrade_not_supported',
        `this stub upgrades only ${DEVICE_WS_PATH} (to a WebSocket); send ${request.method} ${path} without an Upgrade header (curl: --http1.1)`,
        'upgrade',
      );
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request));
  });
}

/** Why a hello is refused: the error frame's code, message and field, and the close code. */
export interface HelloRefusal {
  code: string;
  message: string;
  field: string;
  /** The connection is closed with it; undefined: it stays open (it is a device already). */
  closeCode: number | undefined;
}

/**
 * Why `hello` on `connection` is refused, or undefined when it is welcome; `previous` is the
 * connection that holds its device now, if any.
 */
export function helloRefusal(
  core: StubCore,
  connection: Connection,
  hello: Hello,
  previous: Connection | undefined,
): HelloRefusal | undefined {
  const refused = (code: string, message: string, field: string) => ({
    code,
    message,
    field,
    closeCode: CLOSE_CODES.refused,
  });
  if (connection.deviceId !== undefined) {
    return {
      code: 'already_connected',
      message: `this connection is already device ${connection.deviceId}`,
      field: 'device_id',
      closeCode: undefined,
    };
  }
  if (hello.protocol !== DEVICE_PROTOCOL_VERSION) {
    return refused(
      'unsupported_protocol',
      `this stub speaks device protocol ${DEVICE_PROTOCOL_VERSION}, not ${hello.protocol}`,
      'protocol',
    );
  }
  if (!core.directory.device(hello.device_id))
    return refused('unknown_device', `no device '${hello.device_id}' in the fixtures`, 'device_id');
  const expectedKey = core.deviceKey(hello.device_id);
  if (expectedKey !== undefined && hello.key !== expectedKey) {
    return refused(
      'invalid_key',
      `wrong or missing device key for device '${hello.device_id}'`,
      'key',
    );
  }
  // Two fleets (shards) never share a device (decision D13): a device online in one fleet's
  // session is refused to any other hello, one naming no session too; the same session takes
  // its old connection over.
  if (previous?.session !== undefined && previous.session !== hello.session) {
    return {
      code: 'device_claimed',
      message: `device '${hello.device_id}' is online in another fleet's session; give each fleet its own devices (badge-sim devices --shard i/n)`,
      field: 'session',
      closeCode: CLOSE_CODES.claimed,
    };
  }
  return undefined;
}

/** What a welcomed hello tells of its badge, at `now` (whole ms). */
export function welcomeLiveState(live: DeviceLiveState, hello: Hello, now: number): void {
  live.online = true;
  live.responsive = true;
  live.unresponsiveSince = null;
  live.lastConnect = now;
  live.state = 'idle';
  if (hello.battery_level !== undefined) live.batteryLevel = hello.battery_level;
  if (hello.battery_status !== undefined) live.batteryStatus = hello.battery_status;
  if (hello.location) live.location = { ...hello.location, timestamp: now };
  if (hello.app_version) live.appVersion = hello.app_version;
}
