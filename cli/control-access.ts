/**
 * The control token on the side of the commands that talk to a running stub's control API
 * (`run --stub`, `devices`, `env`): one option, one check, one message.
 */
import { Option } from 'commander';
import { untrustedCertificateHint } from '../client/trust.ts';
import {
  CONTROL_PREFIX,
  CONTROL_TOKEN_HEADER,
  controlTokenHeaders,
  controlTokenProblem,
} from '../protocol/control-api.schema.ts';
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

/**
 * Asks the stub's control API once, before the real work: a locked stub that was given no
 * token, or the wrong one, is reported here in one line saying what to pass, and so is an
 * https:// stub whose certificate is not trusted. A stub that cannot be reached is left to
 * the command, which says so in its own words.
 */
export async function checkControlAccess(stubUrl: string, token: string | undefined) {
  const base = stubUrl.replace(/\/+$/, '');
  let status: number;
  try {
    const response = await fetch(`${base}${CONTROL_PREFIX}/settings`, {
      headers: controlTokenHeaders(token),
    });
    status = response.status;
    await response.body?.cancel();
  } catch (error) {
    // An https:// stub whose CA this process does not trust: no command can go on.
    const untrusted = untrustedCertificateHint(error);
    if (untrusted) fail(`cannot reach the stub at ${base}: ${untrusted}.`);
    return;
  }
  if (status !== 401) return;
  if (token === undefined)
    fail(
      `the stub at ${base} locks its control API: pass its token with --control-token <token> or BADGE_SIM_CONTROL_TOKEN.`,
    );
  fail(
    `the stub at ${base} refused the control token given (--control-token or BADGE_SIM_CONTROL_TOKEN): it is not that stub's token.`,
  );
}
