import { Option } from 'commander';
import { fail } from './cli-errors.ts';

/** An option that the environment variable BADGE_SIM_<name> can also give (the flag wins). */
export function fromEnv(flags: string, description: string, name: string): Option {
  return new Option(flags, description).env(`BADGE_SIM_${name}`);
}

/** true/1/yes or false/0/no; anything else is refused, naming the variable. */
export function booleanFromEnv(name: string, otherwise = false): boolean {
  const value = process.env[name]?.trim().toLowerCase();
  if (value === undefined || value === '') return otherwise;
  if (['true', '1', 'yes'].includes(value)) return true;
  if (['false', '0', 'no'].includes(value)) return false;
  fail(`${name} must be true or false (it is '${process.env[name]}').`);
}
