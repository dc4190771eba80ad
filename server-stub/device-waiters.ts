/**
 * Waiters for a device to be as asked: online or offline, a battery level, status or low
 * (`GET /_stub/devices/{id}/await`, and the in-process `StubConnection.waitForDevice`). The
 * gateway tells them each connect, close and `state` frame of a device, and a waiter checks
 * its wants against the device's view then, so nobody polls. Every wait is bounded in real
 * time (a transport wait, like `GET /_stub/events/await`), and so is the number of waiters
 * (HO decisions).
 */
import {
  DEVICE_WANT_FIELDS,
  type DeviceFacts,
  type DeviceWant,
} from '../protocol/control-api.schema.ts';

/** The most waits at once; one more is refused (429), not queued. */
export const MAX_DEVICE_WAITERS = 1_000;

/**
 * How a wait ended: the device is (or became) as asked, the real-time bound passed, the
 * caller went away, the stub was reset or is stopping, or too many were waiting already.
 */
export type DeviceWaitOutcome = 'now' | 'timeout' | 'gone' | 'reset' | 'closing' | 'too_many';

export interface DeviceWaitOptions {
  /** Real time to wait, in ms: a transport bound, not domain time. */
  timeoutMs: number;
  /** The caller went away: stop waiting. */
  signal?: AbortSignal;
}

interface Waiter {
  deviceId: string;
  want: DeviceWant;
  end: (outcome: DeviceWaitOutcome) => void;
}

/** Whether the device shows every field the wait asks for. */
function isAsWanted(want: DeviceWant, facts: DeviceFacts): boolean {
  return DEVICE_WANT_FIELDS.every(
    (field) => want[field] === undefined || want[field] === facts[field],
  );
}

/** The wants as a query would write them, for messages: `online=true, battery_level=15`. */
export function describeWant(want: DeviceWant): string {
  return DEVICE_WANT_FIELDS.filter((field) => want[field] !== undefined)
    .map((field) => `${field}=${want[field]}`)
    .join(', ');
}

export class DeviceWaiters {
  readonly #waiting = new Set<Waiter>();

  constructor(
    /** The device as the stub shows it now (`GET /_stub/devices`). */
    readonly factsOf: (deviceId: string) => DeviceFacts,
  ) {}

  /** Waits still under way: none once every one has ended. */
  get size(): number {
    return this.#waiting.size;
  }

  /** Resolves once the device is as `want`ed (at once if it is), or why not. */
  wait(deviceId: string, want: DeviceWant, options: DeviceWaitOptions): Promise<DeviceWaitOutcome> {
    if (isAsWanted(want, this.factsOf(deviceId))) return Promise.resolve('now');
    if (this.#waiting.size >= MAX_DEVICE_WAITERS) return Promise.resolve('too_many');
    const { signal } = options;
    if (signal?.aborted) return Promise.resolve('gone');
    return new Promise((resolve) => {
      const onAbort = () => waiter.end('gone');
      const timer = setTimeout(() => waiter.end('timeout'), options.timeoutMs);
      const waiter: Waiter = {
        deviceId,
        want: { ...want },
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

  /** The gateway saw the device connect, close or report its state: its waiters look again. */
  changed(deviceId: string): void {
    let facts: DeviceFacts | undefined;
    for (const waiter of this.#waiting) {
      if (waiter.deviceId !== deviceId) continue;
      facts ??= this.factsOf(deviceId);
      if (isAsWanted(waiter.want, facts)) waiter.end('now');
    }
  }

  /** Ends every wait: the stub was reset (its devices may be others now) or is stopping. */
  interruptAll(why: 'reset' | 'closing'): void {
    for (const waiter of [...this.#waiting]) waiter.end(why);
  }
}
