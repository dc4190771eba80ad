import { InvalidArgumentError } from 'commander';
import { nearestWord } from '../input/nearest-word.ts';
import { parseDuration } from '../protocol/duration.ts';

/** Parses a whole number option, or says what to fix. */
export function integerOption(name: string, min = 0, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^-?\d+$/.test(value.trim()) || n < min || n > max) {
      throw new InvalidArgumentError(`${name} must be a whole number from ${min} to ${max}.`);
    }
    return n;
  };
}

/** Parses a positive number option. */
export function positiveNumberOption(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0)
      throw new InvalidArgumentError(`${name} must be a positive number.`);
    return n;
  };
}

/** Parses a probability from 0 to 1 ('0.05'), or says what to fix. */
export function probabilityOption(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1)
      throw new InvalidArgumentError(`${name} must be a probability from 0 to 1, such as 0.05.`);
    return n;
  };
}

/** Parses a number within [min, max], or says what to fix. */
export function numberOption(name: string, min: number, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n) || n < min || n > max)
      throw new InvalidArgumentError(`${name} must be a number from ${min} to ${max}.`);
    return n;
  };
}

/** Parses one of a fixed set of words. */
export function choiceOption<T extends string>(name: string, choices: readonly T[]) {
  return (value: string): T => {
    if (!choices.includes(value as T)) {
      const nearest = nearestWord(value, choices);
      throw new InvalidArgumentError(
        `${name} must be one of: ${choices.join(', ')}${nearest ? `; did you mean ${nearest}?` : '.'}`,
      );
    }
    return value as T;
  };
}

/** A single word of a given form (never empty), or says what to fix. */
export function wordOption(name: string, form: RegExp, example: string) {
  return (value: string): string => {
    if (!form.test(value))
      throw new InvalidArgumentError(`${name} must be one word such as ${example}.`);
    return value;
  };
}

/** Parses a duration option ('30s', '5m', …). */
export function durationOption(name: string) {
  return (value: string): number => {
    const ms = parseDuration(value);
    if (ms === undefined)
      throw new InvalidArgumentError(`${name} must be a duration such as 30s, 5m, 2h.`);
    return ms;
  };
}

/** Prints a one-line error that says what to do, and exits with status 2. */
export function fail(message: string): never {
  process.stderr.write(`badge-sim: ${message.replace(/^badge-sim( client)?: /, '')}\n`);
  process.exit(2);
}
