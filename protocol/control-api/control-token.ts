/**
 * Where the control API lives and how a locked stub's control token travels
 * (docs/architecture.md, decision 4): read by the stub, the clients and the CLI alike.
 */

export const CONTROL_PREFIX = '/_stub';

/**
 * The header that carries the control token of a locked stub (`--control-token`). Its own
 * header, not `Authorization`: the emulated APIs use that one for their own credentials.
 */
export const CONTROL_TOKEN_HEADER = 'X-Badge-Sim-Control-Token';

/** The headers that carry a control token to a stub (none without a token). */
export function controlTokenHeaders(token: string | undefined): Record<string, string> {
  return token === undefined ? {} : { [CONTROL_TOKEN_HEADER]: token };
}

/** What a control token may hold: 1 to 1024 visible ASCII characters (a header value). */
const CONTROL_TOKEN_FORM = /^[\x21-\x7E]{1,1024}$/;

/**
 * Why a control token cannot be used, or undefined if it can. The message never repeats the
 * token: it is a secret.
 */
export function controlTokenProblem(token: string): string | undefined {
  if (token === '') return 'is empty';
  if (!CONTROL_TOKEN_FORM.test(token))
    return 'must be 1 to 1024 visible ASCII characters (letters, digits, punctuation; no spaces)';
  return undefined;
}
