/**
 * The control token on the side of the commands that talk to a running stub's control API
 * (`run --stub`, `devices`, `env`): one option, one check, one message. Whether the stub
 * takes it is stub-check.ts's to say.
 */
import { Option } from 'commander';
import { CONTROL_TOKEN_HEADER, controlTokenProblem } from '../protocol/control-api.schema.ts';
import { fail } from './cli-errors.ts';

/**
 * `--control-token <token>`, or BADGE_SIM_CONTROL_TOKEN. No argParser: commander would print
 * a refused value, and this one is a secret (checked by `checkedControlToken`).
 */
export function controlTokenOption(): Option {
  return new Option(
    '--control-token <token>',
    `the control token of a stub whose control API is locked (sent as ${CONTROL_TOKEN_HEADER}); prefer the variable: a flag shows in the process list`,
  ).env('BADGE_SIM_CONTROL_TOKEN');
}

/** The token as given, after checking it can be sent (the message never repeats it). */
export function checkedControlToken(token: string | undefined): string | undefined {
  if (token === undefined) return undefined;
  const problem = controlTokenProblem(token);
  if (problem) fail(`--control-token (BADGE_SIM_CONTROL_TOKEN) ${problem}.`);
  return token;
}
