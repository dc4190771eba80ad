/**
 * What a fleet's errors are, and the wait behind `waitUntilConnected` (a fleet in this thread
 * and one over worker threads): badges online, then both sides settled. A stub lost on the way
 * (killed, restarting) is waited for while the badges reconnect (decision F11), not taken as
 * the end of the fleet.
 */
import { Backoff, type ReconnectOptions } from './transport.ts';

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
