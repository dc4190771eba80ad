/**
 * What the alert engine is given and answers, apart from its tasks (task-record.ts): its
 * options, an acknowledgement's result, which events a GET asks for, what it keeps and holds.
 */
import type { Clock } from '../../clock/clock.ts';
import type { CancelEvents } from '../../protocol/control-api.schema.ts';
import type { IdSource } from '../../protocol/ids.ts';
import type { AnalyticEvent } from '../../protocol/service-api.schema.ts';
import type { Micros } from '../../protocol/timestamp.ts';
import type { Directory } from './directory.ts';

/**
 * What the engine holds, for tests and benches (not an interface of the service): every
 * count that should fall to 0 on a reset, and stay bounded without one.
 */
export interface EngineStats {
  /** Tasks known (alerting and ended, not yet forgotten). */
  tasks: number;
  alerting: number;
  /** Ended tasks waiting for their retention to run out. */
  ended: number;
  /** Devices with at least one lane, and lanes (device × alert name). */
  laneDevices: number;
  lanes: number;
  /** Devices with a transcript, and transcript lines held. */
  transcriptDevices: number;
  transcriptEntries: number;
  eventAccounts: number;
  events: number;
}

/** Which events a GET events answers: from `oldest` (whole µs) on, at most `limit`. */
export interface EventsWindow {
  oldest?: Micros;
  limit?: number;
}

/** Hears an analytic event as it is recorded, with the account it belongs to. */
export type EventListener = (subscriberId: string, event: AnalyticEvent) => void;

/** What the engine keeps at most and dropped early (`kept()`). */
export interface EngineKept {
  /** Events an account. */
  events: { cap: number; dropped: number };
  /** Ended tasks: at most `cap`, and `recipientsCap` recipients over them. */
  endedTasks: { cap: number; recipientsCap: number; kept: number; dropped: number };
  /** Lines a device's transcript. */
  transcriptLines: { cap: number; dropped: number };
}

/** Result of a device acknowledging (tapping its talk button). */
export type AckResult =
  | { result: 'acknowledged'; taskId: string }
  | { result: 'duplicate'; taskId: string }
  | { result: 'ended'; taskId: string }
  | { result: 'not_playing'; taskId: string }
  | { result: 'nothing_pending' };

export interface AlertEngineOptions {
  clock: Clock;
  ids: IdSource;
  directory: Directory;
  cancelEvents?: CancelEvents;
  /**
   * Whether an alert's or a broadcast's devices are reached after the request has returned, in
   * chunks (real and scaled time, decision D14), or at once (the virtual clock). Asked per
   * request: the clock's mode may change.
   */
  deferFanOut?: () => boolean;
}
