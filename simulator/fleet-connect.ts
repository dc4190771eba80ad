/**
 * What a fleet's errors are, and the wait behind `waitUntilConnected` (a fleet in this thread
 * and one over worker threads): badges online, then both sides settled. A stub lost on the way
 * (killed, restarting) is waited for while the badges reconnect (decision F11), not taken as
 * the end of the fleet.
 */
import { StubControlClient } from '../client/control-client.ts';
import { type CaPem, fetchTrusting, untrustedCertificateHint } from '../client/trust.ts';
import { CONTROL_PREFIX } from '../protocol/control-api.schema.ts';
import { HttpStubConnection } from '../stub-connection/http-stub-connection.ts';
import { InProcessStubConnection } from '../stub-connection/in-process-stub-connection.ts';
import type { StubConnection, StubTarget } from '../stub-connection/stub-connection.ts';
import { OPEN_FILES_HEADROOM } from './open-files.ts';
import { Backoff, DEFAULT_RECONNECT, type ReconnectOptions } from './transport.ts';

/** A fleet option that cannot work, or a fleet that cannot go on; the message says what to fix. */
export class FleetError extends Error {
  override name = 'FleetError';
}

/**
 * The stub stopped answering a call of the fleet (refused, reset: `code` is the network's
 * code). While the badges reconnect it may come back; `waitUntilConnected` waits for it.
 */
export class StubUnreachableError extends FleetError {
  override name = 'StubUnreachableError';

  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

export interface ConnectAndSettle {
  count: number;
  timeoutMs: number;
  /** Resolves true once `count` badges are online, false after `timeoutMs` (real time). */
  untilOnline(count: number, timeoutMs: number): Promise<boolean>;
  /** Both sides quiet; rejects with a StubUnreachableError when the stub cannot be reached. */
  settled(): Promise<void>;
  /** The badges' reconnect delays, which space the tries here too; false: they never reconnect. */
  reconnect: ReconnectOptions | false;
  /** The error when time is up; `lost` is the stub's last failure, if it was lost meanwhile. */
  timedOut(lost: StubUnreachableError | undefined): Error;
}

/**
 * Waits (real time, at most `timeoutMs`) until `count` badges are online and both sides have
 * settled. The settle is a call to the stub: if the stub is lost meanwhile (it was killed just
 * as an alert went out), its badges are reconnecting, or about to see their sockets close, so
 * the wait goes back to waiting for them, the tries spaced by the reconnect delays. A fleet
 * whose badges never reconnect fails at once, as before.
 */
export async function connectAndSettle(wait: ConnectAndSettle): Promise<void> {
  const deadline = performance.now() + wait.timeoutMs;
  const backoff = wait.reconnect ? new Backoff(wait.reconnect) : undefined;
  let lost: StubUnreachableError | undefined;
  for (;;) {
    const left = deadline - performance.now();
    if (left <= 0 || !(await wait.untilOnline(wait.count, left))) throw wait.timedOut(lost);
    try {
      await wait.settled();
      return;
    } catch (error) {
      if (!(error instanceof StubUnreachableError) || !backoff) throw error;
      lost = error;
    }
    // The badges' sockets may not have closed yet: look again after a reconnect delay.
    const pause = Math.min(backoff.next(), deadline - performance.now());
    if (pause > 0) await new Promise((resolve) => setTimeout(resolve, pause));
  }
}

/**
 * Every badge holds a socket of this process: more badges than the process may open files
 * would connect only in part, the rest failing again and again (decision SC2).
 */
export function checkOpenFiles(badges: number, fit: number | undefined, socketsPerBadge = 1): void {
  if (fit === undefined || badges * socketsPerBadge <= fit) return;
  const n = (count: number) => count.toLocaleString('en-US');
  throw new FleetError(
    `badge-sim: ${n(badges)} badges need ${n(badges * socketsPerBadge)} sockets${socketsPerBadge > 1 ? ' (the stub is in this process: both ends of each are here)' : ''}, but this process may open at most ${n(fit + OPEN_FILES_HEADROOM)} files (ulimit -n), room for ${n(Math.floor(fit / socketsPerBadge))} badges: raise the limit (ulimit -n) or split the fleet over processes with --shard i/n (startFleet's shard), each under it.`,
  );
}

/**
 * Waits (real time) until something answers HTTP at `stubUrl`, retrying a refused or failed
 * connection with the reconnect backoff: for a fleet started at the same time as its stub.
 * `onWaiting` hears each failure (what went wrong, and the real ms waited so far). Throws a
 * FleetError once `timeoutMs` have passed; `timeoutMs` 0 tries once. Whether it is a stub is
 * `startFleet`'s to say.
 */
export async function waitForStub(
  stubUrl: string,
  options: {
    timeoutMs: number;
    onWaiting?: (problem: string, waitedMs: number) => void;
    /** A CA to trust besides Node's (`startFleet`'s `ca`). */
    ca?: CaPem;
  },
): Promise<void> {
  const fetch = fetchTrusting(options.ca);
  const url = `${stubUrl.replace(/\/+$/, '')}${CONTROL_PREFIX}/health`;
  const backoff = new Backoff(DEFAULT_RECONNECT);
  const started = performance.now();
  for (;;) {
    let problem: string;
    let retry: boolean;
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
      await response.body?.cancel();
      return;
    } catch (error) {
      // An untrusted certificate will not pass by waiting: say what to do.
      const untrusted = untrustedCertificateHint(error);
      if (untrusted)
        throw new FleetError(`badge-sim: cannot reach the stub at ${stubUrl}: ${untrusted}`);
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      problem = cause?.code ?? cause?.message ?? (error as Error).message;
      // A network error (refused, reset, timed out, no such host yet) may pass; a URL fetch
      // will never open (a bad port, a malformed URL) will not.
      retry = typeof cause?.code === 'string' || (error as Error).name === 'TimeoutError';
    }
    const waited = performance.now() - started;
    if (!retry || waited >= options.timeoutMs) {
      throw new FleetError(
        `badge-sim: cannot reach the stub at ${stubUrl} (${problem}${retry && options.timeoutMs > 0 ? ` for ${Math.round(waited / 1000)} s` : ''}): is it running? Start one with 'badge-sim stub'.`,
      );
    }
    options.onWaiting?.(problem, waited);
    const delay = Math.min(backoff.next(), options.timeoutMs - waited);
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

/** The first call to a stub by URL failed: say whether to trust it or to start it. */
export function firstContactError(stubUrl: string, error: unknown): FleetError {
  const untrusted = untrustedCertificateHint(error);
  return new FleetError(
    untrusted
      ? `badge-sim: cannot reach the stub at ${stubUrl}: ${untrusted}`
      : `badge-sim: cannot reach the stub at ${stubUrl} (${(error as Error).message}): is it running? Start one with 'badge-sim stub'.`,
  );
}

/** The control API of a stub by URL; a refusal is a FleetError saying what to fix. */
class FleetStubControl extends StubControlClient {
  constructor(
    private readonly stubUrl: string,
    private readonly options: { controlToken?: string; ca?: CaPem },
  ) {
    super(stubUrl, options);
  }

  protected override refusal(status: number, body: unknown, what: string): Error {
    const path = what.replace(/^\S+ /, '');
    if (status === 401) {
      return new FleetError(
        `badge-sim: the stub at ${this.stubUrl} locks its control API and ${this.options.controlToken === undefined ? 'no control token was given' : 'refused the control token given'}: pass its token with --control-token or BADGE_SIM_CONTROL_TOKEN (startFleet's controlToken in code).`,
      );
    }
    if (path === `${CONTROL_PREFIX}/clock/advance`) {
      return new FleetError(
        `badge-sim: the stub refused to advance its clock: ${JSON.stringify(body)}`,
      );
    }
    return new FleetError(
      `badge-sim: ${this.stubUrl} answered ${status} for ${path}${path === `${CONTROL_PREFIX}/fixtures` ? ': is it a badge-sim stub?' : ''}`,
    );
  }
}

/**
 * The connection to the stub the options name: the given one, one to a stub in this process
 * (badges share its clock), or one by URL (badges follow its clock).
 */
export function connectionOf(
  options: { stub: StubTarget; controlToken?: string; ca?: CaPem },
  unreachable: (code: string, error: unknown) => Error,
): StubConnection {
  const stub = options.stub;
  if (typeof stub === 'string') {
    const url = stub.replace(/\/+$/, '');
    const control = new FleetStubControl(url, {
      controlToken: options.controlToken,
      ca: options.ca,
    });
    return new HttpStubConnection(url, control, { ca: options.ca, unreachable });
  }
  if ('badgeClock' in stub) return stub;
  return new InProcessStubConnection(stub, {
    control: () => new StubControlClient(stub.url, { ca: stub.tls?.caPem }),
  });
}
