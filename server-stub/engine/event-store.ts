import type { AnalyticEvent } from '../../protocol/service-api.schema.ts';

interface StoredEvent {
  at: number;
  event: AnalyticEvent;
  /** The event as JSON, made once: a GET answers by joining these, not by serialising. */
  json: string;
}

interface AccountLog {
  events: StoredEvent[];
  /** Index of the oldest retained event: pruning moves it instead of shifting the array. */
  head: number;
}

/**
 * Analytic events per account, in time order, kept for the retention period of the clock.
 * Appends come in time order (the clock never goes back), so a window query is a binary
 * search plus a slice.
 */
export class EventStore {
  readonly #logs = new Map<string, AccountLog>();

  constructor(readonly retentionMs: number) {}

  append(subscriberId: string, at: number, event: AnalyticEvent): void {
    let log = this.#logs.get(subscriberId);
    if (!log) {
      log = { events: [], head: 0 };
      this.#logs.set(subscriberId, log);
    }
    log.events.push({ at, event, json: JSON.stringify(event) });
  }

  /** Events at or after `oldest`, oldest first, at most `limit`, none older than retention. */
  query(subscriberId: string, oldest: number, limit: number, now: number): AnalyticEvent[] {
    return this.#window(subscriberId, oldest, limit, now).map((stored) => stored.event);
  }

  /** The same window as a JSON array, joined from each event's stored JSON. */
  queryJson(subscriberId: string, oldest: number, limit: number, now: number): string {
    return `[${this.#window(subscriberId, oldest, limit, now)
      .map((stored) => stored.json)
      .join(',')}]`;
  }

  #window(subscriberId: string, oldest: number, limit: number, now: number): StoredEvent[] {
    const log = this.#logs.get(subscriberId);
    if (!log) return [];
    this.#prune(log, now);
    const from = Math.max(log.head, firstAtOrAfter(log.events, oldest, log.head));
    return log.events.slice(from, Math.min(log.events.length, from + Math.max(0, limit)));
  }

  /** Every retained event of an account, for the control API. */
  count(subscriberId: string, now: number): number {
    const log = this.#logs.get(subscriberId);
    if (!log) return 0;
    this.#prune(log, now);
    return log.events.length - log.head;
  }

  clear(): void {
    this.#logs.clear();
  }

  #prune(log: AccountLog, now: number): void {
    log.head = firstAtOrAfter(log.events, now - this.retentionMs, log.head);
    if (log.head > 1024 && log.head * 2 > log.events.length) {
      log.events.splice(0, log.head);
      log.head = 0;
    }
  }
}

function firstAtOrAfter(events: StoredEvent[], time: number, from: number): number {
  let lo = from;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (events[mid]!.at < time) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
