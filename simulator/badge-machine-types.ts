/**
 * The badge machine's words: what it keeps (its context), the events it takes, what it emits,
 * what it does to the world (its io) and the clips it plays. The machine is in
 * `badge.machine.ts`, which gives these on to its importers.
 */
import type { TapRule } from '../fixtures/fixtures.schema.ts';
import type {
  BadgeStatus,
  BatteryStatus,
  Location,
  StateFrame,
  Unnumbered,
} from '../protocol/device-frames.schema.ts';

/** A piece of audio the badge plays, in order. */
export interface Clip {
  kind: 'alert' | 'broadcast' | 'speech';
  taskId: string;
  text: string;
  durationMs: number;
  /** For alerts: 0 for the first play, then 1, 2, … */
  repeat?: number;
  /** For speech: why it is said. */
  cause?: string;
}

/** An alert the badge has been played and the stub has not stopped. */
export interface OpenAlert {
  taskId: string;
  name: string;
  text: string;
}

/** What a badge machine does to the world. */
export interface BadgeIo {
  open(): void;
  close(): void;
  /** Sends `button` with the alert to acknowledge, or `state` (with battery and location). */
  send(frame: { type: 'button'; task_id?: string } | StateReport): void;
  /** Says a text aloud (the `say` engine); most engines do nothing. */
  speakAloud(text: string): void;
  /**
   * Calls `ended` once `durationMs` have passed on the badge's clock, unless `stopClipTimer`
   * comes first. One clip plays at a time: there is at most one such timer.
   */
  startClipTimer(durationMs: number, ended: () => void): void;
  /** Drops the clip's timer (the clip was cut, or the badge went offline); none is fine. */
  stopClipTimer(): void;
}

/** What a badge reports of itself. */
export type StateReport = Unnumbered<StateFrame>;

export interface BadgeContext {
  deviceId: string;
  user: string | null;
  io: BadgeIo;
  open: OpenAlert[];
  /** Alerts in the order the wearer last heard them: what a tap can acknowledge. */
  heard: string[];
  /** The same alerts in the order the wearer first heard them (since its last return). */
  firstHeard: string[];
  /** Which open alert a tap acknowledges (the behaviour `acknowledges`; decision D11). */
  tapRule: TapRule;
  queue: Clip[];
  current: Clip | null;
  batteryLevel: number;
  batteryStatus: BatteryStatus;
  location: Location | null;
}

export type BadgeEvent =
  | { type: 'CONNECT' }
  | { type: 'CONNECTED'; user: string }
  | { type: 'DISCONNECTED' }
  | { type: 'GO_OFFLINE' }
  | { type: 'PLAY'; taskId: string; name: string; text: string; repeat: number; durationMs: number }
  | { type: 'BROADCAST'; taskId: string; text: string; durationMs: number }
  | { type: 'SPEAK'; taskId: string; text: string; cause: string; durationMs: number }
  | { type: 'STOP'; taskId: string; cause: string }
  | { type: 'TAP'; taskId?: string }
  | { type: 'TAP_RULE'; rule: TapRule }
  | { type: 'BATTERY'; level: number; status?: BatteryStatus }
  | { type: 'LOCATION'; location: Location }
  /** The clip playing has run its duration (from the io's clip timer). */
  | { type: 'CLIP_ENDED' };

/** Typed events the badge emits for transcripts and behaviours. */
export type BadgeEmitted =
  | { type: 'clipStarted'; clip: Clip }
  | { type: 'clipCut'; clip: Clip }
  | { type: 'tapped'; taskId: string | null }
  | { type: 'stateChanged'; state: BadgeStatus };

export interface BadgeInput {
  deviceId: string;
  io: BadgeIo;
  batteryLevel?: number;
  location?: Location | null;
}
