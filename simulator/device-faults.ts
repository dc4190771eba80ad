/**
 * Device faults a behaviour scripts (fixtures' `behaviour:` `tap`, `drop`, `battery`): taps
 * that go wrong on the way, a drop during an alert play, a battery that drains. Times are on
 * the badge's clock; draws come from the badge's fault stream (`protocol/seeded-random.ts`),
 * so the same seed gives the same pattern.
 */
import type { BatteryDrain, DropMidPlay, TapFaults } from '../fixtures/fixtures.schema.ts';
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

/** Schedules `fire` in `ms` on the badge's clock (a behaviour's timer, stopped with it). */
export type Later = (ms: number, fire: () => void) => void;

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

/**
 * Drops the badge during its Nth alert play (or each play, by chance), `after` into it, for
 * `for`; one drop at a time: a play while the badge is dropped (or due to drop) starts none.
 * Returns the function that stops listening (the behaviour's timers stop with it).
 */
export function startDrops(
  badge: DropTarget,
  drop: DropMidPlay,
  later: Later,
  random: () => number,
): () => void {
  const after = parseDurationRange(drop.after ?? '0s')!;
  const away = parseDurationRange(drop.for)!;
  let plays = 0;
  let dropping = false;
  return badge.onAlertPlay(() => {
    plays++;
    const hit = drop.on_play === undefined ? random() < (drop.chance ?? 0) : plays === drop.on_play;
    if (!hit || dropping) return;
    dropping = true;
    later(draw(random, after), () => {
      badge.goOffline();
      later(draw(random, away), () => {
        dropping = false;
        badge.comeBack();
      });
    });
  });
}

/** What a draining battery needs of a badge. */
export interface BatteryTarget {
  readonly batteryLevel: number;
  setBattery(level: number, status?: 'discharging'): void;
}

/**
 * Drains the battery from `from` (default: the level the badge has) by one whole % every
 * 60,000 / drain ms of the badge's clock, down to 0, where it stays; each step is a `state`
 * report when online (the badge's `setBattery`).
 */
export function startBatteryDrain(badge: BatteryTarget, battery: BatteryDrain, later: Later): void {
  const stepMs = Math.round(60_000 / battery.drain);
  let level = battery.from ?? badge.batteryLevel;
  if (battery.from !== undefined) badge.setBattery(level, 'discharging');
  const step = () => {
    level = Math.max(0, level - 1);
    badge.setBattery(level, 'discharging');
    if (level > 0) later(stepMs, step);
  };
  if (level > 0) later(stepMs, step);
}
