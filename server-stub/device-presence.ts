/**
 * Waiters for a device to be seen online or offline (`GET /_stub/devices/{id}/await`, and the
 * in-process `StubConnection.waitForDevice`): the gateway tells them each connect and close,
 * so nobody polls. Every wait is bounded in real time (a transport wait, like
 * `GET /_stub/events/await`), and so is the number of waiters (HO decisions).
 */

/** The most waits at once; one more is refused (429), not queued. */
export const MAX_PRESENCE_WAITERS = 1_000;

/**
 * How a wait ended: the device is (or became) as asked, the real-time bound passed, the
 * caller went away, the stub was reset or is stopping, or too many were waiting already.
 */
export type PresenceOutcome = 'now' | 'timeout' | 'gone' | 'reset' | 'closing' | 'too_many';

export interface PresenceWaitOptions {
  /** Real time to wait, in ms: a transport bound, not domain time. */
  timeoutMs: number;
  /** The caller went away: stop waiting. */
  signal?: AbortSignal;
}

interface Waiter {
  deviceId: string;
  online: boolean;
  end: (outcome: PresenceOutcome) => void;
}

export class PresenceWaiters {
  readonly #waiting = new Set<Waiter>();

  constructor(
    /** Whether the gateway sees the device connected now. */
    readonly isOnline: (deviceId: string) => boolean,
  ) {}

  /** Waits still under way: none once every one has ended. */
  get size(): number {
    return this.#waiting.size;
  }

  /** Resolves once the device is `online` as asked (at once if it is), or why not. */
  wait(deviceId: string, online: boolean, options: PresenceWaitOptions): Promise<PresenceOutcome> {
    if (this.isOnline(deviceId) === online) return Promise.resolve('now');
    if (this.#waiting.size >= MAX_PRESENCE_WAITERS) return Promise.resolve('too_many');
    const { signal } = options;
    if (signal?.aborted) return Promise.resolve('gone');
    return new Promise((resolve) => {
      const onAbort = () => waiter.end('gone');
      const timer = setTimeout(() => waiter.end('timeout'), options.timeoutMs);
      const waiter: Waiter = {
        deviceId,
        online,
        end: (outcome) => {
          if (!this.#waiting.delete(waiter)) return;
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          resolve(outcome);
        },
      };
      this.#waiting.add(waiter);
      signal?.addEventListener('abort', onAbort);
    });
  }

  /** The gateway saw a device connect (`true`) or its connection close (`false`). */
  changed(deviceId: string, online: boolean): void {
    for (const waiter of this.#waiting) {
      if (waiter.deviceId === deviceId && waiter.online === online) waiter.end('now');
    }
  }

  /** Ends every wait: the stub was reset (its devices may be others now) or is stopping. */
  interruptAll(why: 'reset' | 'closing'): void {
    for (const waiter of [...this.#waiting]) waiter.end(why);
  }
}
