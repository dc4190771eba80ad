/**
 * What the alert lifecycle model (lifecycle.ts) is given and keeps: its inputs in time order,
 * its configuration, and its state, all plain JSON data (the path enumeration tells states apart
 * by their serialisation).
 */
import type { LifecycleTransition } from './transitions.ts';

/** The spec's repeat interval. */
export const REPEAT_MS = 30_000;
/** The spec's default timeout, in seconds. */
export const DEFAULT_TIMEOUT_S = 300;

/** One input of a schedule. Every input but ADVANCE happens at `at` (the clock first moves there). */
export type ModelInput =
  | {
      type: 'POST';
      at: number;
      /** The `as` of the alert in a scenario. */
      task: string;
      name?: string;
      quorum?: number;
      /** Seconds. */
      timeout?: number;
    }
  /**
   * A tap on a device; with `task`, an acknowledgement naming that alert, as a badge's button
   * frame does (a late or repeated frame can name one that ended or was acknowledged).
   */
  | { type: 'TAP'; at: number; device: number; task?: string }
  | { type: 'DELETE'; at: number; task: string }
  | { type: 'DROP'; at: number; device: number }
  | { type: 'RETURN'; at: number; device: number }
  | { type: 'ADVANCE'; to: number };

/**
 * How taps reach the service: `badge` through a virtual badge (a tap offline is lost; it
 * acknowledges what the wearer hears, D5, with clips that take time to play); `service`
 * straight to the service's tap (L9: the alert played most recently, whatever is online).
 */
type TapPath = 'badge' | 'service';

export interface ModelConfig {
  /** The users of the devices, in the group's order. */
  users: readonly string[];
  taps: TapPath;
  /** How long a clip plays on a badge (ms); `service` taps ignore it. */
  clipMs: (text: string) => number;
  texts: AlertTexts;
}

/** What an alert says: the notification (with the task's name in it) and the speeches. */
export interface AlertTexts {
  notification: (task: string) => string;
  onAck?: string;
  onQuorum?: string;
  onTimeout?: string;
}

export type Outcome = 'quorum' | 'timed_out' | 'cancelled';
export type OnDevice = 'queued' | 'playing' | 'acknowledged' | 'stopped';

export interface PredictedEvent {
  type: 'start' | 'acknowledged' | 'timed_out' | 'end';
  task: string;
  at: number;
  device?: string;
  status?: 'normal' | 'cancelled';
}

/** A command the service sends a device (its transcript). */
export interface Sent {
  at: number;
  type: 'play' | 'stop' | 'speak';
  task: string;
  text?: string;
  cause?: string;
}

/** A clip a device heard, from when it started. */
export interface Heard {
  kind: 'alert' | 'speech';
  task: string;
  text: string;
  at: number;
}

interface Clip extends Omit<Heard, 'at'> {
  ms: number;
}

interface TaskOnDevice {
  status: OnDevice;
  plays: number;
  lastPlayAt: number;
  /** Order in which repeat timers were set: equal instants fire in this order. */
  playSeq: number;
  nextPlayAt: number | null;
}

export interface ModelTask {
  key: string;
  name: string;
  quorum: number;
  timeoutMs: number;
  createdAt: number;
  /** When its timeout was set among all timers (at the POST, before its first plays). */
  timeoutSeq: number;
  endedAt: number | null;
  outcome: Outcome | null;
  acks: number;
  devices: TaskOnDevice[];
}

/** A badge's audio and what its wearer knows (D5): only with taps through badges. */
export interface ModelDevice {
  online: boolean;
  current: (Clip & { start: number; end: number }) | null;
  queue: Clip[];
  /** Alerts arrived and not stopped (task keys). */
  open: string[];
  /** Open alerts in the order last heard. */
  heardOrder: string[];
  heard: Heard[];
  sent: Sent[];
}

export interface ModelState {
  now: number;
  seq: number;
  tasks: ModelTask[];
  devices: ModelDevice[];
  events: PredictedEvent[];
  /** DELETE answers, in order: 204, or 409 for an ended task. */
  deletes: { task: string; at: number; status: 204 | 409 }[];
  /** Taps that reached the service, in order, and what each did (the stub's tap results). */
  taps: ModelTap[];
  /** Devices going off and back on the network, in order (only changes). */
  links: { device: number; at: number; online: boolean }[];
  inputs: ModelInput[];
  /** The named transitions the last step took, in order. */
  taken: LifecycleTransition[];
}

interface ModelTap {
  device: number;
  at: number;
  result: 'acknowledged' | 'duplicate' | 'ended' | 'not_playing' | 'nothing_pending';
  task?: string;
}

export function initialState(deviceCount: number): ModelState {
  return {
    now: 0,
    seq: 0,
    tasks: [],
    devices: Array.from({ length: deviceCount }, () => ({
      online: true,
      current: null,
      queue: [],
      open: [],
      heardOrder: [],
      heard: [],
      sent: [],
    })),
    events: [],
    deletes: [],
    taps: [],
    links: [],
    inputs: [],
    taken: [],
  };
}
