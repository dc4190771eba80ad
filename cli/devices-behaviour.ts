import type { FixtureBehaviour } from '../fixtures/fixtures.schema.ts';
import { flakyEveryProblem } from '../fixtures/flaky-every.ts';
import { parseDuration, parseDurationRange } from '../protocol/duration.ts';
import { fail } from './cli-errors.ts';
import type { DevicesOptions } from './devices-options.ts';

/**
 * The behaviour the flags of `badge-sim devices` give badges whose fixture declares none
 * (acknowledging, going offline, vanishing, flaky links, tap, drop and battery faults), or
 * undefined for none; each refusal names the flag to fix.
 */
export function behaviourFrom(options: DevicesOptions): FixtureBehaviour | undefined {
  const behaviour: FixtureBehaviour = {};
  if (options.ackAfter !== undefined && options.ackOnRepeat !== undefined) {
    fail('give either --ack-after or --ack-on-repeat, not both.');
  }
  if (options.ackAfter !== undefined) {
    if (!parseDurationRange(options.ackAfter))
      fail(
        `--ack-after '${options.ackAfter}' is not a duration such as 12s or a range such as 5s..40s.`,
      );
    behaviour.ack = { after: options.ackAfter };
  }
  if (options.ackOnRepeat !== undefined) behaviour.ack = { on_repeat: options.ackOnRepeat };
  if (options.offlineFor !== undefined && options.offlineAt === undefined)
    fail('--offline-for needs --offline-at.');
  if (options.offlineAt !== undefined) {
    for (const [flag, value] of [
      ['--offline-at', options.offlineAt],
      ['--offline-for', options.offlineFor],
    ] as const) {
      if (value !== undefined && parseDuration(value) === undefined)
        fail(`${flag} '${value}' is not a duration such as 40s or 2m.`);
    }
    behaviour.offline = [
      { at: options.offlineAt, ...(options.offlineFor ? { for: options.offlineFor } : {}) },
    ];
  }
  if (options.vanishFor !== undefined && options.vanishAt === undefined)
    fail('--vanish-for needs --vanish-at.');
  if (options.vanishAt !== undefined) {
    for (const [flag, value] of [
      ['--vanish-at', options.vanishAt],
      ['--vanish-for', options.vanishFor],
    ] as const) {
      if (value !== undefined && !parseDurationRange(value))
        fail(`${flag} '${value}' is not a duration or a range such as 10s..60s.`);
    }
    behaviour.vanish = [
      { at: options.vanishAt, ...(options.vanishFor ? { for: options.vanishFor } : {}) },
    ];
  }
  if ((options.flakyEvery === undefined) !== (options.flakyDown === undefined))
    fail('--flaky-every and --flaky-down go together.');
  if (options.flakyEvery !== undefined && options.flakyDown !== undefined) {
    for (const [flag, value] of [
      ['--flaky-every', options.flakyEvery],
      ['--flaky-down', options.flakyDown],
    ] as const) {
      if (!parseDurationRange(value))
        fail(`${flag} '${value}' is not a duration or a range such as 2s..10s.`);
    }
    const tooShort = flakyEveryProblem(options.flakyEvery);
    if (tooShort) fail(`--flaky-every ${tooShort}.`);
    behaviour.flaky = { every: options.flakyEvery, down: options.flakyDown };
  }
  Object.assign(behaviour, deviceFaultsFrom(options));
  return Object.keys(behaviour).length > 0 ? behaviour : undefined;
}

/** The tap, drop and battery faults the flags ask for; each refusal names the flag to fix. */
function deviceFaultsFrom(options: DevicesOptions): FixtureBehaviour {
  const tap = tapFaultsFrom(options);
  const drop = dropFrom(options);
  const battery = batteryFrom(options);
  return { ...(tap && { tap }), ...(drop && { drop }), ...(battery && { battery }) };
}

/** A duration or range flag's value, or a message saying what to write. */
function rangeFlag(flag: string, value: string, example: string): string {
  if (!parseDurationRange(value))
    fail(`${flag} '${value}' is not a duration or a range low..high such as ${example}.`);
  return value;
}

/** Refuses a flag given without the one it qualifies. */
function needs(given: unknown, flag: string, other: string): void {
  if (given !== undefined) fail(`${flag} needs ${other}.`);
}

const chance = (p: number | undefined) => (p === undefined ? {} : { chance: p });

function tapFaultsFrom(options: DevicesOptions): FixtureBehaviour['tap'] {
  if (options.tapDelay === undefined)
    needs(options.tapDelayChance, '--tap-delay-chance', '--tap-delay');
  if (options.tapDuplicate === undefined) {
    needs(options.tapDuplicateChance, '--tap-duplicate-chance', '--tap-duplicate');
    needs(options.tapGap, '--tap-gap', '--tap-duplicate');
  }
  if (options.tapGap !== undefined && parseDuration(options.tapGap) === undefined)
    fail(`--tap-gap '${options.tapGap}' is not a duration such as 500ms or 2s.`);
  const tap: NonNullable<FixtureBehaviour['tap']> = {};
  if (options.tapLose !== undefined) tap.lose = { chance: options.tapLose };
  if (options.tapDelay !== undefined)
    tap.delay = {
      by: rangeFlag('--tap-delay', options.tapDelay, '1s..5s'),
      ...chance(options.tapDelayChance),
    };
  if (options.tapDuplicate !== undefined)
    tap.duplicate = {
      times: options.tapDuplicate,
      ...(options.tapGap === undefined ? {} : { gap: options.tapGap }),
      ...chance(options.tapDuplicateChance),
    };
  return Object.keys(tap).length > 0 ? tap : undefined;
}

function dropFrom(options: DevicesOptions): FixtureBehaviour['drop'] {
  if (options.dropOnPlay !== undefined && options.dropChance !== undefined)
    fail('give either --drop-on-play or --drop-chance, not both.');
  if (options.dropOnPlay === undefined && options.dropChance === undefined) {
    needs(options.dropFor, '--drop-for', '--drop-on-play or --drop-chance');
    needs(options.dropAfter, '--drop-after', '--drop-on-play or --drop-chance');
    return undefined;
  }
  if (options.dropFor === undefined) fail('--drop-on-play and --drop-chance need --drop-for.');
  return {
    ...(options.dropOnPlay === undefined ? {} : { on_play: options.dropOnPlay }),
    ...chance(options.dropChance),
    ...(options.dropAfter === undefined
      ? {}
      : { after: rangeFlag('--drop-after', options.dropAfter, '0s..5s') }),
    for: rangeFlag('--drop-for', options.dropFor, '10s..30s'),
  };
}

function batteryFrom(options: DevicesOptions): FixtureBehaviour['battery'] {
  if (options.batteryDrain === undefined) {
    needs(options.batteryFrom, '--battery-from', '--battery-drain');
    return undefined;
  }
  return {
    drain: options.batteryDrain,
    ...(options.batteryFrom === undefined ? {} : { from: options.batteryFrom }),
  };
}
