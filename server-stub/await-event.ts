/**
 * The wait behind `GET /_stub/events/await`, without HTTP: a stored event that matches, else
 * the next one recorded, until the real-time bound or the caller goes; with `advanceTo`, the
 * clock moves on timer by timer meanwhile and stops at the first match (docs/decisions.md AW).
 */
import type { Micros } from '../protocol/timestamp.ts';
import { type EventFilter, type EventMatch, matchesFilter } from './engine/event-waiters.ts';
import type { StubCore } from './stub-core.ts';

export interface AwaitOptions {
  /** The oldest stored event that answers (whole µs); default: every one still kept. */
  oldest?: Micros;
  /** Real time to wait, in ms: a transport bound, not domain time. */
  timeoutMs: number;
  /** Move the clock on, at most to this instant (ms), until a match. */
  advanceTo?: number;
  /** The caller went away: stop waiting (and advancing). */
  signal: AbortSignal;
}

/** The match, or why there is none: the real-time bound, the advance bound, or the caller gone. */
export type AwaitOutcome = EventMatch | 'timeout' | 'advance_bound' | 'gone';

export async function awaitEvent(
  core: StubCore,
  filter: EventFilter,
  options: AwaitOptions,
): Promise<AwaitOutcome> {
  const stored = core.engine.findEvent(
    (subscriberId, event) => matchesFilter(filter, subscriberId, event),
    { subscriberId: filter.subscriberId, oldest: options.oldest },
  );
  if (stored) return stored;

  let outcome: AwaitOutcome | undefined;
  let wake = () => {};
  const end = (why: AwaitOutcome) => {
    outcome ??= why;
    wake();
  };
  const stopWaiting = core.eventWaiters.add(filter, end);
  const onAbort = () => end('gone');
  options.signal.addEventListener('abort', onAbort);
  if (options.signal.aborted) end('gone');
  const timer = setTimeout(() => end('timeout'), options.timeoutMs);
  try {
    if (options.advanceTo !== undefined) {
      await advanceUntil(core, options.advanceTo, () => outcome !== undefined);
      end('advance_bound');
    } else if (outcome === undefined) {
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  } finally {
    clearTimeout(timer);
    stopWaiting();
    options.signal.removeEventListener('abort', onAbort);
  }
  return outcome!;
}

/**
 * Moves the clock on as `POST /_stub/clock/advance` does (timers in order, badges settling),
 * one due instant at a time, so that it stops where `done` first holds, or at `bound`.
 */
async function advanceUntil(core: StubCore, bound: number, done: () => boolean): Promise<void> {
  try {
    while (!done()) {
      const next = core.clock.nextDueAt();
      if (next === null || next > bound) {
        await core.clock.catchUpTo(bound);
        return;
      }
      await (next <= core.clock.now() ? core.clock.runDue() : core.clock.catchUpTo(next));
    }
  } finally {
    core.clockChanged();
  }
}
