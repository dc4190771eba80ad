import type { AnalyticEvent } from '../../protocol/service-api.schema.ts';

interface StoredEvent {
  at: number;
  /**
   * The event as JSON, made once: a GET answers by joining these, not by serialising. Only
   * the JSON is kept (not the object as well): a week of events is the stub's largest store,
   * and the object form is asked for only by tests (`query`), which parse it back.
   */
  json: string;
}

interface AccountLog {
  /** Slots before `head` are emptied (undefined): a dropped event is not kept alive. */
  events: (StoredEvent | undefined)[];
  /** Index of the oldest retained event: pruning moves it instead of shifting the array. */
  head: number;
  /**
   * The last answer as JSON, by window: clients poll the same window again and again, and
   * the log only grows at its end, so an answer stays right until the log changes.
   */
  answer: { from: number; to: number; json: string } | undefined;
}

/**
 * Analytic events per account, in time order, kept for the retention period of the clock.
 * Appends come in time order (the clock never goes back), so a window query is a binary
 * search plus a slice. Expired events are dropped on reads and on appends (an account that
 * is written to but never read must not grow for ever), amortised: the head index moves, and
 * the array is cut only when most of it is dead.
 */
export class EventStore {
  #logs = new Map<string, AccountLog>();

  constructor(readonly retentionMs: number) {}

  append(subscriberId: string, at: number, event: AnalyticEvent): void {
    let log = this.#logs.get(subscriberId);
    if (!log) {
      log = { events: [], head: 0, answer: undefined };
      this.#logs.set(subscriberId, log);
    }
    log.events.push({ at, json: flat(JSON.stringify(event)) });
    log.answer = undefined;
    // The oldest retained event expired: prune (a binary search; rarely more than a compare).
    if (log.events[log.head]!.at < at - this.retentionMs) this.#prune(log, at);
  }

  /** Events at or after `oldest`, oldest first, at most `limit`, none older than retention. */
  query(subscriberId: string, oldest: number, limit: number, now: number): AnalyticEvent[] {
    return this.#window(subscriberId, oldest, limit, now).map(
      (stored) => JSON.parse(stored.json) as AnalyticEvent,
    );
  }

  /** The same window as a JSON array, joined from each event's stored JSON. */
  queryJson(subscriberId: string, oldest: number, limit: number, now: number): string {
    const log = this.#logs.get(subscriberId);
    if (!log) return '[]';
    const [from, to] = this.#bounds(log, oldest, limit, now);
    const cached = log.answer;
    if (cached && cached.from === from && cached.to === to) return cached.json;
    let json = '[';
    for (let i = from; i < to; i++)
      json += i === from ? log.events[i]!.json : `,${log.events[i]!.json}`;
    json += ']';
    log.answer = { from, to, json };
    return json;
  }

  #window(subscriberId: string, oldest: number, limit: number, now: number): StoredEvent[] {
    const log = this.#logs.get(subscriberId);
    if (!log) return [];
    const [from, to] = this.#bounds(log, oldest, limit, now);
    return log.events.slice(from, to) as StoredEvent[];
  }

  /** The index range of a window: retained, at or after `oldest`, at most `limit`. */
  #bounds(log: AccountLog, oldest: number, limit: number, now: number): [number, number] {
    this.#prune(log, now);
    const from = Math.max(log.head, firstAtOrAfter(log.events, oldest, log.head));
    return [from, Math.min(log.events.length, from + Math.max(0, limit))];
  }

  /** Every retained event of an account, for the control API. */
  count(subscriberId: string, now: number): number {
    const log = this.#logs.get(subscriberId);
    if (!log) return 0;
    this.#prune(log, now);
    return log.events.length - log.head;
  }

  /** Events held (retained or not yet pruned), and accounts with a log: for tests and benches. */
  stats(): { accounts: number; events: number } {
    let events = 0;
    for (const log of this.#logs.values()) events += log.events.length - log.head;
    return { accounts: this.#logs.size, events };
  }

  /** Forgets every event. A new map, so no capacity of the old one is kept. */
  clear(): void {
    this.#logs = new Map();
  }

  #prune(log: AccountLog, now: number): void {
    const head = firstAtOrAfter(log.events, now - this.retentionMs, log.head);
    // Each event is emptied once: amortised O(1) an append.
    for (let i = log.head; i < head; i++) log.events[i] = undefined;
    log.head = head;
    if (log.head === log.events.length && log.head > 0) {
      // Everything expired: a new array, so the old backing store goes too.
      log.events = [];
      log.head = 0;
      log.answer = undefined;
    } else if (log.head > 1024 && log.head * 2 > log.events.length) {
      log.events.splice(0, log.head);
      log.head = 0;
      log.answer = undefined; // Its indices name other events now.
    }
  }
}

/** The first index at or after `from` (a retained event) whose time is at or after `time`. */
function firstAtOrAfter(events: (StoredEvent | undefined)[], time: number, from: number): number {
  let lo = from;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (events[mid]!.at < time) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * JSON.stringify builds a long result as a tree of string pieces (about 500 bytes an event);
 * converting it to a number makes V8 flatten it into one run of characters (about 360), and
 * a week of events is the stub's largest store.
 */
function flat(text: string): string {
  Number(text);
  return text;
}
