/**
 * Device faults a behaviour scripts (fixtures' `behaviour:` `tap`, `drop`, `battery`): taps
 * that go wrong on the way, and what a drop during an alert play and a draining battery need of
 * a badge (behaviours.ts runs them, as timers a snapshot can keep). Draws come from the badge's
 * fault stream (`protocol/seeded-random.ts`), so the same seed gives the same pattern.
 */
import type { TapFaults } from '../fixtures/fixtures.schema.ts';
import { MAX_TAP_COPIES } from '../fixtures/fixtures.schema.ts';
import { MAX_DURATION_MS, parseDuration, parseDurationRange } from '../protocol/duration.ts';
import { draw } from '../protocol/seeded-random.ts';

/** What happens to one tap's button frame on its way to the stub. */
export interface TapFate {
  /** It never leaves: the badge believes it tapped. */
  lose?: boolean;
  /** It leaves this many ms (badge clock) after the tap. */
  delayMs?: number;
  /** It arrives this many times (2 or more: duplicated). */
  copies?: number;
  /** Ms between the copies (default 0: back to back). */
  gapMs?: number;
}

/** A duration given in code: whole ms from 0 to MAX_DURATION_MS, or a RangeError naming it. */
export function checkMs(name: string, ms: number): void {
  if (!(Number.isInteger(ms) && ms >= 0 && ms <= MAX_DURATION_MS))
    throw new RangeError(
      `badge-sim: ${name} must be whole ms from 0 to ${MAX_DURATION_MS}, got ${ms}`,
    );
}

/** A fate given in code, as bounded as one a behaviour draws; a RangeError names the field. */
export function checkTapFate(fate: TapFate): void {
  if (fate.delayMs !== undefined) checkMs('delayMs', fate.delayMs);
  if (fate.gapMs !== undefined) checkMs('gapMs', fate.gapMs);
  const copies = fate.copies;
  if (
    copies !== undefined &&
    !(Number.isInteger(copies) && copies >= 1 && copies <= MAX_TAP_COPIES)
  )
    throw new RangeError(
      `badge-sim: copies must be a whole number from 1 to ${MAX_TAP_COPIES}, got ${copies}`,
    );
}

/**
 * The fate of tap number `n` (1 the first tap that acknowledges something). Every configured
 * chance is drawn on every tap, lost or not, so one fault's hits never shift another's.
 */
export function tapFates(faults: TapFaults, random: () => number) {
  const hits = (which: { chance?: number; taps?: number[] }, n: number) =>
    which.taps ? which.taps.includes(n) : which.chance === undefined || random() < which.chance;
  const delayRange = faults.delay && parseDurationRange(faults.delay.by)!;
  return (n: number): TapFate | undefined => {
    const lose = faults.lose !== undefined && hits(faults.lose, n);
    const delayed = faults.delay !== undefined && hits(faults.delay, n);
    const duplicated = faults.duplicate !== undefined && hits(faults.duplicate, n);
    const delayMs = delayed ? draw(random, delayRange!) : undefined;
    if (lose) return { lose };
    if (!delayed && !duplicated) return undefined;
    return {
      ...(delayMs ? { delayMs } : {}),
      ...(duplicated
        ? { copies: faults.duplicate!.times, gapMs: parseDuration(faults.duplicate!.gap ?? 0)! }
        : {}),
    };
  };
}

/** What a drop needs of a badge. */
export interface DropTarget {
  goOffline(): void;
  comeBack(): void;
  onAlertPlay(listener: (taskId: string, repeat: number) => void): () => void;
}

/** What a draining battery needs of a badge. */
export interface BatteryTarget {
  readonly batteryLevel: number;
  setBattery(level: number, status?: 'discharging'): void;
}
