/**
 * What a fleet's badges did, as counts that add up over worker threads (`startFleet({ workers
 * })`, `badge-sim devices --workers`): their states, what they heard and tapped, the errors the
 * stub sent them, and when each first heard each recent alert (the fan-out's latency, in epoch
 * ms so that times from several threads compare).
 */
import type { Badge, BadgeStatus } from './badge.ts';

/** The alerts whose first plays are kept (the most recent), so a long run stays bounded. */
const FIRST_PLAYS_TASKS = 16;

export interface FleetActivityCounts {
  /** Badges by state (`idle`, `playing`, `offline`, …). */
  states: Partial<Record<BadgeStatus, number>>;
  /** Alert plays heard (every repeat counts). */
  alertPlays: number;
  broadcasts: number;
  /** Spoken replies (`on_ack`, `on_quorum`, `on_timeout`, workflows). */
  speech: number;
  /** Taps of the talk button. */
  taps: number;
  /** Alerts the stub acknowledged for a badge through the control API (no tap of its own). */
  controlTaps: number;
  /** Button frames lost, delayed or duplicated by device faults. */
  tapFaults: { lost: number; delayed: number; duplicated: number };
  /** Error frames the stub sent, and the first of them (`device: code: message`). */
  errors: number;
  firstError: string | undefined;
}

export function emptyActivity(): FleetActivityCounts {
  return {
    states: {},
    alertPlays: 0,
    broadcasts: 0,
    speech: 0,
    taps: 0,
    controlTaps: 0,
    tapFaults: { lost: 0, delayed: 0, duplicated: 0 },
    errors: 0,
    firstError: undefined,
  };
}

/** Adds `b` into `a` (the counts of several threads into one). */
export function addActivity(a: FleetActivityCounts, b: FleetActivityCounts): FleetActivityCounts {
  const states = { ...a.states };
  for (const [state, n] of Object.entries(b.states) as [BadgeStatus, number][])
    states[state] = (states[state] ?? 0) + n;
  return {
    states,
    alertPlays: a.alertPlays + b.alertPlays,
    broadcasts: a.broadcasts + b.broadcasts,
    speech: a.speech + b.speech,
    taps: a.taps + b.taps,
    controlTaps: a.controlTaps + b.controlTaps,
    tapFaults: {
      lost: a.tapFaults.lost + b.tapFaults.lost,
      delayed: a.tapFaults.delayed + b.tapFaults.delayed,
      duplicated: a.tapFaults.duplicated + b.tapFaults.duplicated,
    },
    errors: a.errors + b.errors,
    firstError: a.firstError ?? b.firstError,
  };
}

/** Listens to every badge of a fleet and counts. */
export class FleetActivity {
  readonly #badges: readonly Badge[];
  #heard = { alertPlays: 0, broadcasts: 0, speech: 0, taps: 0 };
  /** Per alert (the most recent FIRST_PLAYS_TASKS), the epoch ms each badge first heard it. */
  readonly #firstPlays = new Map<string, { at: number[]; seen: Set<number> }>();
  readonly #stops: (() => void)[] = [];

  constructor(badges: readonly Badge[]) {
    this.#badges = badges;
    badges.forEach((badge, index) => {
      const clips = badge.on('clipStarted', ({ clip }) => {
        if (clip.kind === 'alert') {
          this.#heard.alertPlays++;
          this.#firstPlay(clip.taskId, index);
        } else if (clip.kind === 'broadcast') this.#heard.broadcasts++;
        else this.#heard.speech++;
      });
      const taps = badge.on('tapped', () => {
        this.#heard.taps++;
      });
      this.#stops.push(
        () => clips.unsubscribe(),
        () => taps.unsubscribe(),
      );
    });
  }

  counts(): FleetActivityCounts {
    const counts = { ...emptyActivity(), ...this.#heard };
    for (const badge of this.#badges) {
      counts.states[badge.status] = (counts.states[badge.status] ?? 0) + 1;
      badge.addTapFaultsTo(counts.tapFaults);
      // Read, not listened for: a listener more on each of 10,000 badges costs memory.
      counts.controlTaps += badge.controlTaps;
      const errors = badge.errors;
      counts.errors += errors.length;
      if (counts.firstError === undefined && errors.length > 0)
        counts.firstError = `${badge.deviceId}: ${errors[0]!.code}: ${errors[0]!.message}`;
    }
    return counts;
  }

  /** When each badge first heard the alert, epoch ms, in the order they heard it. */
  firstPlays(taskId: string): number[] {
    return [...(this.#firstPlays.get(taskId)?.at ?? [])];
  }

  stop(): void {
    for (const stop of this.#stops) stop();
  }

  #firstPlay(taskId: string, badge: number): void {
    let plays = this.#firstPlays.get(taskId);
    if (!plays) {
      if (this.#firstPlays.size >= FIRST_PLAYS_TASKS)
        this.#firstPlays.delete(this.#firstPlays.keys().next().value!);
      plays = { at: [], seen: new Set() };
      this.#firstPlays.set(taskId, plays);
    }
    if (plays.seen.has(badge)) return;
    plays.seen.add(badge);
    plays.at.push(performance.timeOrigin + performance.now());
  }
}
