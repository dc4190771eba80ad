/**
 * The newest plays, broadcasts and speech the stub sent, across devices, for the live stream
 * (UI12): a DeviceLineRing, so a delivery costs three array stores and no allocation.
 */
import type { LiveHeardLine, LivePresenceLine } from '../protocol/live-stream.schema.ts';
import { DeviceLineRing } from './device-line-ring.ts';
import type { DeviceCommand } from './engine/alert-engine.ts';

/** A command a device hears or says (a stop is not heard). */
export type HeardCommand = Exclude<DeviceCommand, { type: 'stop' }>;

export class HeardRing extends DeviceLineRing<HeardCommand, LiveHeardLine> {
  constructor(capacity: number) {
    super(capacity, (deviceId, command, at) => ({
      device_id: deviceId,
      kind: command.type,
      text: command.text,
      task_id: command.taskId,
      at,
    }));
  }
}

/**
 * Each badge going offline (its connection closed) and coming back (a hello on a new
 * connection, not one replacing a connection the stub still held), newest kept (UI17): what
 * a reloaded dashboard draws of each badge's offline spans.
 */
export class PresenceRing extends DeviceLineRing<boolean, LivePresenceLine> {
  constructor(capacity: number) {
    super(capacity, (deviceId, online, at) => ({ device_id: deviceId, online, at }));
  }
}
