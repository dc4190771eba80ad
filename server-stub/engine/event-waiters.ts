/**
 * Waiters for analytic events (the control API's `GET /_stub/events/await`): each names what
 * it waits for and is called once, with the first matching event the engine records after it
 * was added. Pure: it hears the engine through its listener, and knows no HTTP.
 */
import type { AnalyticEvent } from '../../protocol/service-api.schema.ts';
import type { AlertEngine } from './alert-engine.ts';

/** What an awaited event must be; every field given must hold. */
export interface EventFilter {
  type?: AnalyticEvent['content']['type'];
  taskId?: string;
  /** Values `content.device` may have: the user a badge acknowledges as (and its device's). */
  devices?: readonly string[];
  subscriberId?: string;
}

export interface EventMatch {
  subscriberId: string;
  event: AnalyticEvent;
}

export function matchesFilter(
  filter: EventFilter,
  subscriberId: string,
  event: AnalyticEvent,
): boolean {
  return (
    (filter.type === undefined || event.content.type === filter.type) &&
    (filter.taskId === undefined || event.task.id === filter.taskId) &&
    (filter.subscriberId === undefined || subscriberId === filter.subscriberId) &&
    (filter.devices === undefined ||
      (event.content.device !== undefined && filter.devices.includes(event.content.device)))
  );
}

interface Waiter {
  filter: EventFilter;
  onMatch: (match: EventMatch) => void;
}

export class EventWaiters {
  readonly #waiting = new Set<Waiter>();

  constructor(engine: AlertEngine) {
    engine.onEvent((subscriberId, event) => {
      for (const waiter of this.#waiting) {
        if (!matchesFilter(waiter.filter, subscriberId, event)) continue;
        this.#waiting.delete(waiter);
        waiter.onMatch({ subscriberId, event });
      }
    });
  }

  /** Waiters still waiting: none once every request has been answered or has gone. */
  get size(): number {
    return this.#waiting.size;
  }

  /**
   * Calls `onMatch` once, with the next matching event recorded; returns the function that
   * stops waiting (call it on every way out: answered, timed out, client gone).
   */
  add(filter: EventFilter, onMatch: (match: EventMatch) => void): () => void {
    const waiter: Waiter = { filter, onMatch };
    this.#waiting.add(waiter);
    return () => this.#waiting.delete(waiter);
  }
}
