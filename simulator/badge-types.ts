/**
 * The types a badge is made with and answers (badge.ts): its options, what it heard, its
 * activity and its taps, its saved state and the status a saved machine stands for. Apart from
 * the class so that badge.ts stays about behaviour.
 */
import type { InspectionEvent } from 'xstate';
import type { Clock, TimerId } from '../clock/clock.ts';
import type { BadgeStatus, Location, StubFrame } from '../protocol/device-frames.schema.ts';
import type { BadgeEmitted } from './badge.machine.ts';
import type { PersistedBadge } from './badge-runner.ts';
import type { KeptClip } from './heard-clip.ts';
import type { BadgeLink, LinkHandlers, ReconnectOptions } from './transport.ts';
import type { TextToSpeech } from './tts/text-to-speech.ts';

/** What became of a badge's taps (`badge.taps`). */
export interface TapCounts {
  /** Taps that acknowledged something: each meant one button frame. */
  made: number;
  /** Button frames that left (a duplicated tap sends several). */
  sent: number;
  /** Button frames that never left: lost taps, and delayed ones due while offline. */
  lost: number;
  /** Taps whose frame left late. */
  delayed: number;
  /** Taps whose frame left more than once. */
  duplicated: number;
  /**
   * Alerts the stub acknowledged for this badge without a button frame of its own: taps made
   * for it through the control API (`POST /_stub/devices/{id}/tap`, the dashboard).
   */
  control: number;
}

/**
 * What a badge tells its listeners (`on`): what its machine emitted, and an acknowledgement
 * the stub made for it (`controlTap`: a `stop` acknowledged that no tap of its own asked for).
 */
export type BadgeNews = BadgeEmitted | { type: 'controlTap'; taskId: string };

/** What a badge heard: one entry a clip, with when it started and how long it lasted. */
export interface HeardEntry {
  at: string;
  kind: 'alert' | 'broadcast' | 'speech';
  task_id: string;
  text: string;
  duration_ms: number;
  repeat?: number;
  cause?: string;
  /** The stub stopped it before it finished. */
  cut?: true;
}

/**
 * What a badge did on its own side, on its clock (`badge.activity`): a press of its talk
 * button, and each time it went off or came back on the network. The HTML report's swimlanes
 * read it. At most ACTIVITY_CAP, the oldest forgotten first (decision HR3).
 */
export interface BadgeActivity {
  at: string;
  kind: 'tap' | 'offline' | 'online';
}
export interface BadgeOptions {
  deviceId: string;
  key?: string;
  clock: Clock;
  tts: TextToSpeech;
  /** Builds the link; the fleet passes one that knows the stub's device URL. */
  link: (handlers: LinkHandlers) => BadgeLink;
  batteryLevel?: number;
  location?: Location | null;
  /** Told of everything the badge's machine does (xstate's inspection): coverage listens here. */
  inspect?: (event: InspectionEvent) => void;
  /** The fleet session its hello names (decision D13): another fleet cannot take its device. */
  session?: string;
  /** The stub's clock arrived (welcome or clock frame): the fleet's clock may follow it. */
  onStubClock?: (frame: Extract<StubFrame, { type: 'welcome' | 'clock' }>) => void | Promise<void>;
  /**
   * The network vanished under the badge while it was online (`vanish`): a stub in this
   * process may be told, so it does not wait for answers that cannot come (decision SP2).
   */
  onVanish?: () => void;
  /** A command frame was sent at the stub's time `at` (ms): the fleet's clock may follow it. */
  onStubTime?: (at: number) => void | Promise<void>;
  /**
   * How many clips (default HEARD_CAP) and activity entries (default ACTIVITY_CAP) the badge
   * keeps; a fleet shares a budget between its badges (H4).
   */
  keep?: { heard: number; activity: number };
  /**
   * Reconnecting after an unexpected close or a failed connect: real time, bounded and
   * jittered (see `Backoff`), drawn from `random`. `false`: stay offline. Default 100 ms
   * doubling to 5 s.
   */
  reconnect?: (Partial<ReconnectOptions> & { random?: () => number }) | false;
  /**
   * @internal Carries on from a fleet's snapshot (decision FS2): the badge's saved state and the
   * snapshot's table of clips its transcript points into.
   */
  resumed?: { state: BadgeState; clips: readonly KeptClip[] };
}

/**
 * A badge as a fleet's snapshot keeps it (docs/decisions.md FS1–FS19): plain JSON data, read by
 * `Badge.saveState` and given back to a new badge (`BadgeOptions.resumed`). Instants are the
 * badge clock's ms; a timer keeps when it is due and its place among timers due at the same
 * instant (`seq`), so a restore sets them again in the order they would have fired.
 */
/** A timer as a snapshot keeps it. */
export interface SavedTimer {
  due: number;
  seq: number;
}

export interface BadgeState {
  deviceId: string;
  /** The badge machine's persisted snapshot: its state and context (queue, open alerts, battery, location). */
  machine: PersistedBadge;
  /** The clip playing (`machine.context.current`): how far into it, and when it ends. */
  clip: (SavedTimer & { elapsedMs: number }) | null;
  /** What it heard: [instant, index into the fleet snapshot's `clips`], oldest first. */
  heard: { at: number[]; clip: number[]; dropped: number };
  activity: { at: number[]; kind: BadgeActivity['kind'][]; dropped: number };
  errors: { entries: { code: string; message: string }[]; dropped: number };
  taps: TapCounts;
  /** Alerts a button frame of this badge named, until their stop. */
  tappedFor: string[];
  /** Button frames waiting to leave (delayed or spaced taps). */
  buttons: (SavedTimer & { taskId: string | null })[];
  /** The timer that brings the badge back after `drop`. */
  dropBack: SavedTimer | null;
  link: {
    wantOnline: boolean;
    offlineOnPurpose: boolean;
    gaveUpOn: number | null;
    reconnects: number;
    claimedTries: number;
    user: string | null;
  };
}

/** A clock a snapshot can read its timers from (the fleet's `VirtualClock`). */
export type PendingClock = Clock & { pending?(id: TimerId | undefined): SavedTimer | undefined };

/** The status a restored machine's state value stands for (`route` passes at once: idle). */
export function statusOf(value: BadgeState['machine']['value']): BadgeStatus {
  if (typeof value === 'string') return value as BadgeStatus;
  const inner = String((value as { online: string }).online);
  return (inner === 'route' ? 'idle' : inner) as BadgeStatus;
}
