/**
 * What the stub knows of a badge beyond the fixtures: kept by the device gateway, read by the
 * device-info answer (device-info.ts) and the live feed.
 */
import type { BadgeStateName, BatteryStatus, Location } from '../protocol/device-frames.schema.ts';

/** What the stub knows of a badge beyond the fixtures. */
export interface DeviceLiveState {
  online: boolean;
  /** Domain time of the last hello, ms since the epoch. */
  lastConnect: number | null;
  lastDisconnect: number | null;
  state: BadgeStateName | null;
  batteryLevel: number | null;
  batteryStatus: BatteryStatus | null;
  location: (Location & { timestamp: number }) | null;
  appVersion: string | null;
  /** False while a connected badge is counted unresponsive (it held the clock too long). */
  responsive: boolean;
  /** Domain time it was counted unresponsive, ms since the epoch. */
  unresponsiveSince: number | null;
}
