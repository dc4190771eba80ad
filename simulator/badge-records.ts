import { formatTimestamp } from '../clock/clock.ts';
import type { Clip } from './badge.machine.ts';
import type { BadgeActivity, BadgeOptions, BadgeState, HeardEntry } from './badge-types.ts';
import { type KeptClip, sharedClip } from './heard-clip.ts';
import { KeptLog } from './kept-log.ts';

/**
 * What a badge remembers (its transcript): the clips of the last 7 days on its clock (the
 * stub's event window), at most HEARD_CAP of them (fewer in a large fleet: `keep`), the oldest
 * forgotten first and counted, so a fleet left running stays flat (docs/decisions.md H4).
 */
export const HEARD_CAP = 1_000;
/** The errors a badge keeps, newest last (decision H4). */
const ERRORS_CAP = 100;
const HEARD_RETENTION_MS = 7 * 24 * 3600 * 1000;

export const ACTIVITY_CAP = 1_000;

type Kept = Record<'heard' | 'activity' | 'errors', { cap: number; dropped: number }>;

/** What a badge keeps of what happened to it: clips heard, taps and network changes, errors. */
export class BadgeRecords {
  /**
   * What the badge heard as it happened: the clip (shared with the badges that heard the same)
   * and the domain time it started. Kept raw and formatted only when read: a fan-out to 10,000
   * badges should not format 10,000 timestamps nobody may ask for.
   */
  readonly #heard: KeptLog<KeptClip>;
  /** Taps and network changes, raw like `#heard`, at most ACTIVITY_CAP. */
  readonly #activity: KeptLog<BadgeActivity['kind']>;
  /** The badge's errors (its public `errors`), newest last, at most ERRORS_CAP. */
  readonly #errors: { code: string; message: string }[];
  #errorsDropped = 0;

  constructor(keep: BadgeOptions['keep'], errors: { code: string; message: string }[]) {
    this.#heard = new KeptLog(keep?.heard ?? HEARD_CAP);
    this.#activity = new KeptLog(keep?.activity ?? ACTIVITY_CAP);
    this.#errors = errors;
  }

  clipStarted(now: number, clip: Clip): void {
    this.#heard.push(now, sharedClip(clip));
    this.#heard.dropBefore(now - HEARD_RETENTION_MS);
  }

  /** Cut on this badge only: its own copy says so. */
  clipCut(): void {
    const last = this.#heard.last();
    if (last) this.#heard.replaceLast({ ...last, cut: true });
  }

  noteActivity(now: number, kind: BadgeActivity['kind']): void {
    this.#activity.push(now, kind);
  }

  /** Keeps the newest errors only: a badge left running against a stub that refuses it stays small. */
  error(code: string, message: string): void {
    this.#errors.push({ code, message });
    if (this.#errors.length > ERRORS_CAP) {
      this.#errors.shift();
      this.#errorsDropped++;
    }
  }

  get transcript(): HeardEntry[] {
    return this.#heard.map((atMs, clip) => ({
      at: formatTimestamp(atMs),
      kind: clip.kind,
      task_id: clip.taskId,
      text: clip.text,
      duration_ms: clip.durationMs,
      ...(clip.repeat === undefined ? {} : { repeat: clip.repeat }),
      ...(clip.cause === undefined ? {} : { cause: clip.cause }),
      ...(clip.cut ? { cut: clip.cut } : {}),
    }));
  }

  get activity(): BadgeActivity[] {
    return this.#activity.map((atMs, kind) => ({ at: formatTimestamp(atMs), kind }));
  }

  get kept(): Kept {
    return {
      heard: { cap: this.#heard.cap, dropped: this.#heard.dropped },
      activity: { cap: this.#activity.cap, dropped: this.#activity.dropped },
      errors: { cap: ERRORS_CAP, dropped: this.#errorsDropped },
    };
  }

  /** What a fleet's snapshot keeps of them; `clipIndex` numbers the clips in its table. */
  save(clipIndex: (clip: KeptClip) => number): Pick<BadgeState, 'heard' | 'activity' | 'errors'> {
    return {
      heard: {
        at: this.#heard.map((at) => at),
        clip: this.#heard.map((_, c) => clipIndex(c)),
        dropped: this.#heard.dropped,
      },
      activity: {
        at: this.#activity.map((at) => at),
        kind: this.#activity.map((_, kind) => kind),
        dropped: this.#activity.dropped,
      },
      errors: { entries: this.#errors.map((e) => ({ ...e })), dropped: this.#errorsDropped },
    };
  }

  load(state: BadgeState, clips: readonly KeptClip[]): void {
    const { heard, activity } = state;
    this.#heard.load(heard.at, (i) => clips[heard.clip[i]!]!, heard.dropped);
    this.#activity.load(activity.at, (i) => activity.kind[i]!, activity.dropped);
    this.#errors.push(...state.errors.entries.map((e) => ({ ...e })));
    this.#errorsDropped = state.errors.dropped;
  }
}
