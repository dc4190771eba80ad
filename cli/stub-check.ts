/**
 * One look at a running stub before a command's work (issue 31 point 4): `run --stub`,
 * `devices` and `env` ask its control API for its settings once. A stub that cannot be
 * reached, a server that is not a badge-sim stub, a locked control API without its token and
 * an https:// stub whose certificate is not trusted are each ONE error up front, exit 2, saying
 * what was tried, what answered and what to check; never a failure per scenario or per badge.
 */
import { untrustedCertificateHint } from '../client/trust.ts';
import { CONTROL_PREFIX, controlTokenHeaders } from '../protocol/control-api.schema.ts';
import { fail } from './cli-errors.ts';

/** How long one look waits for an answer (real time: a transport guard). */
const ANSWER_TIMEOUT_MS = 5_000;

export interface StubCheckOptions {
  /** The option that named the URL, for the advice (`--stub`, `--base-url`). */
  option?: string;
  /** Said after "Check …" when nothing answers: the command's other way (run without --stub). */
  otherwise?: string;
  /**
   * Keep trying this long while nothing answers (a stub started at the same time): 100 ms
   * doubling to 5 s between looks. 0: one look.
   */
  waitMs?: number;
  /** Told once a look finds nothing and another follows (the error's code, as ECONNREFUSED). */
  onWaiting?(problem: string): void;
}

/**
 * Looks at the stub at `stubUrl` with the control token given; returns when a badge-sim stub
 * answered and let it in, else fails the command (exit 2) with what was tried and what to do.
 */
export async function checkStub(
  stubUrl: string,
  token: string | undefined,
  options: StubCheckOptions = {},
): Promise<void> {
  const { option = '--stub', waitMs = 0 } = options;
  const base = httpBaseUrl(stubUrl, option);
  const probe = `${base}${CONTROL_PREFIX}/settings`;
  const started = performance.now();
  let delayMs = 100;
  for (;;) {
    let response: Response;
    try {
      response = await fetch(probe, {
        headers: controlTokenHeaders(token),
        signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS),
      });
    } catch (error) {
      const untrusted = untrustedCertificateHint(error);
      if (untrusted) fail(`cannot reach the stub at ${base}: ${untrusted}.`);
      const failure = fetchFailure(probe, error, option);
      const waited = performance.now() - started;
      if (!failure.passing || waited >= waitMs) {
        const after =
          failure.passing && waitMs > 0 ? ` (tried for ${Math.round(waited / 1000)} s)` : '';
        fail(
          `no badge-sim stub answers at ${base}: GET ${probe} ${failure.what}${after}. Check ${failure.check}${options.otherwise ? `, ${options.otherwise}` : ''}.`,
        );
      }
      options.onWaiting?.(failure.code);
      await new Promise((resolve) => setTimeout(resolve, Math.min(delayMs, waitMs - waited)));
      delayMs = Math.min(delayMs * 2, 5_000);
      continue;
    }
    if (response.status === 401) {
      await response.body?.cancel();
      if (token === undefined)
        fail(
          `the stub at ${base} locks its control API: pass its token with --control-token <token> or BADGE_SIM_CONTROL_TOKEN.`,
        );
      fail(
        `the stub at ${base} refused the control token given (--control-token or BADGE_SIM_CONTROL_TOKEN): it is not that stub's token.`,
      );
    }
    const notAStub = await notAStubAnswer(response);
    if (notAStub)
      fail(
        `${base} is not a badge-sim stub: GET ${probe} answered ${notAStub}. Check ${wrongServerAdvice(base, option)}.`,
      );
    return;
  }
}

/** The URL without trailing slashes, once it is an http(s) URL; else the command fails. */
export function httpBaseUrl(stubUrl: string, option: string): string {
  const base = stubUrl.replace(/\/+$/, '');
  const url = URL.canParse(base) ? new URL(base) : undefined;
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:')
    fail(`${option} ${stubUrl} is not a URL such as http://127.0.0.1:8080.`);
  return base;
}

/**
 * What a failed request met, in words (`what` follows "GET <url>"), what to check, and
 * whether it may pass by waiting (nothing listens yet, no such host yet, no answer yet).
 */
export function fetchFailure(
  url: string,
  error: unknown,
  option: string,
): { what: string; check: string; code: string; passing: boolean } {
  const { hostname, port: given, protocol } = new URL(url);
  const port = given || (protocol === 'https:' ? '443' : '80');
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  const code =
    typeof cause?.code === 'string'
      ? cause.code
      : (error as Error).name === 'TimeoutError'
        ? 'timeout'
        : String(cause?.message ?? (error as Error).message);
  const running = `that the stub is running (badge-sim stub --port ${port}, or its container) and that ${option} gives its host and port`;
  switch (code) {
    case 'ECONNREFUSED':
      return {
        what: `was refused: nothing listens on ${hostname}:${port} (ECONNREFUSED)`,
        check: running,
        code,
        passing: true,
      };
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return {
        what: `found no host ${hostname} (${code})`,
        check: `the host name in ${option}`,
        code,
        passing: true,
      };
    case 'timeout':
      return {
        what: `had no answer in ${ANSWER_TIMEOUT_MS / 1000} s`,
        check: `${running}, and that nothing between drops the connection`,
        code,
        passing: true,
      };
    case 'bad port':
      return {
        what: `was not sent: fetch refuses port ${port} (a "bad port" of the Fetch standard)`,
        check: `${option}: run the stub on another port, such as 8080 (badge-sim stub --port 8080)`,
        code,
        passing: false,
      };
    case 'ERR_SSL_WRONG_VERSION_NUMBER':
    case 'EPROTO':
      return {
        what: `met plain HTTP where https:// asks for TLS (${code})`,
        check: `${option}: a stub started without --tls serves http://${hostname}:${port}`,
        code,
        passing: false,
      };
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return {
        what: `had its connection closed without an answer (${code})`,
        check: `${option}: a stub started with --tls serves https://, and ${running}`,
        code,
        passing: true,
      };
    default:
      return { what: `failed (${code})`, check: running, code, passing: false };
  }
}

/** What answered, when it is not a badge-sim stub's settings; undefined when it is. */
async function notAStubAnswer(response: Response): Promise<string | undefined> {
  const type = response.headers.get('content-type')?.split(';')[0] ?? 'no content type';
  const said = `${response.status}${response.statusText ? ` ${response.statusText}` : ''} (${type})`;
  if (!response.ok || type !== 'application/json') {
    await response.body?.cancel();
    return said;
  }
  const settings: unknown = await response.json().catch(() => undefined);
  const environments = (settings as { environments?: unknown } | undefined)?.environments;
  return typeof environments === 'object' && environments !== null
    ? undefined
    : `${said}, not a stub's settings`;
}

/** What to check when something other than a badge-sim stub answered. */
function wrongServerAdvice(base: string, option: string): string {
  if (base.endsWith(CONTROL_PREFIX))
    return `${option}: give the stub's base URL, without ${CONTROL_PREFIX}: ${option} ${base.slice(0, -CONTROL_PREFIX.length)}`;
  return `that ${option} is the base URL of a badge-sim stub (as its "control API" line prints it, without ${CONTROL_PREFIX}), not of another server`;
}
