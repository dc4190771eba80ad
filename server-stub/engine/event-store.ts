import { type AnalyticEvent, EVENTS_LIMIT_MAX } from '../../protocol/service-api.schema.ts';
import { formatMicros, type Micros, toMicros } from '../../protocol/timestamp.ts';

/**
 * An event as kept: its JSON in three pieces, two of them shared. A week of events is the
 * stub's largest store, and most of an event's JSON repeats: `head` (category and content:
 * the kind, the device that acknowledged) is shared by every event of that kind and device,
 * `task` by every event of the task. Only the id and the instant are the event's own; the
 * timestamp is formatted from the instant when read, as the engine formatted it.
 */
export interface StoredEvent {
  /** Whole microseconds: the instant exactly as printed, compared with `oldest` as parsed. */
  at: Micros;
  head: string;
  task: string;
  eventId: string;
}

/** How many task pieces are kept to share: the events of a task come close together. */
const RECENT_TASKS = 64;

/**
 * At most this many events an account: past it the oldest go before their 7 days, counted
 * (decision V8), so a stub alerting 1,000 badges all day holds about 6 MB of them, not a week's.
 */
export const EVENTS_CAP = 50_000;

interface AccountLog {
  /** Slots before `head` are emptied (undefined): a dropped event is not kept alive. */
  events: (StoredEvent | undefined)[];
  /** Index of the oldest retained event: pruning moves it instead of shifting the array. */
  head: number;
  /**
   * The last answer as JSON, by window: clients poll the same window again and again, and
   * the log only grows at its end, so an answer stays right until the log changes.
   */
  answer: { from: number; to: number; json: string; bytes: Buffer | undefined } | undefined;
}

/**
 * Analytic events per account, in time order, kept for the retention period of the clock.
 * Appends come in time order (the clock never goes back, and `toMicros` keeps that order), so
 * a window query is a binary search on whole microseconds plus a slice. Expired events are
 * dropped on reads and on appends (an account that is written to but never read must not grow
 * for ever), amortised: the head index moves, and the array is cut only when most of it is
 * dead.
 */
export class EventStore {
  #logs = new Map<string, AccountLog>();
  /** Heads by a short key of kind and device: as many as the fixtures have devices, times the kinds. */
  #heads = new Map<string, string>();
  /** Task pieces by the engine's task object (one for all of a task's events), the latest few. */
  #tasks = new Map<object, string>();
  /** The task type last written, when frozen, and its JSON (`#taskTypeJson`). */
  #lastTaskType: { type: object; json: string } | undefined;
  #droppedEarly = 0;

  constructor(
    readonly retentionMs: number,
    /** Events kept at most an account (the oldest dropped first, before their retention). */
    readonly cap = EVENTS_CAP,
  ) {}

  /** Events dropped past the cap, before their retention ran out, since the last `clear`. */
  get droppedEarly(): number {
    return this.#droppedEarly;
  }

  /**
   * Records an event at the clock instant `atMs`, kept as whole microseconds. `taskPiece`, when
   * given, is `taskPiece(event.task)` that the caller kept for the task (no lookup, no
   * JSON.stringify of the task per event).
   */
  append(subscriberId: string, atMs: number, event: AnalyticEvent, taskPiece?: string): void {
    const at = toMicros(atMs);
    const log = this.#logOf(subscriberId);
    log.events.push({
      at,
      head: this.#head(event),
      task: taskPiece ?? this.#task(event),
      eventId: flat(event.event_id),
    });
    log.answer = undefined;
    if (log.events.length - log.head > this.cap) {
      // Past the cap: the oldest goes now (amortised like expired ones, by `#prune`'s cut).
      log.events[log.head++] = undefined;
      this.#droppedEarly++;
      this.#prune(log, atMs);
    }
    // The oldest retained event expired: prune (a binary search; rarely more than a compare).
    else if (log.events[log.head]!.at < this.#cutoff(atMs)) this.#prune(log, atMs);
  }

  /**
   * The shared start of an event's JSON, found by a short key of its category and content
   * (the JSON is written only for a kind and device not seen before).
   */
  #head(event: Pick<AnalyticEvent, 'category' | 'content'>): string {
    let key = event.category;
    const content: Record<string, unknown> = event.content;
    for (const name in content) {
      const value = content[name];
      key += `\u0000${name}\u0001${typeof value === 'string' ? value : JSON.stringify(value)}`;
    }
    let head = this.#heads.get(key);
    if (head === undefined) {
      head = flat(
        `{"category":${JSON.stringify(event.category)},"content":${JSON.stringify(event.content)},"task":`,
      );
      this.#heads.set(key, head);
    }
    return head;
  }

  /**
   * The piece of an event's JSON from its `task` to the opening quote of its `event_id`, as
   * `JSON.stringify` writes it. A task of the engine's shape (`{ id, name, task_type }`, in
   * that order) is written without walking it: the task type, one frozen object shared by
   * every alert, is written once, the id and name are quoted as JSON quotes them.
   */
  taskPiece(task: AnalyticEvent['task']): string {
    const keys = Object.keys(task);
    if (keys.length !== 3 || keys[0] !== 'id' || keys[1] !== 'name' || keys[2] !== 'task_type') {
      return flat(`${JSON.stringify(task)},"event_id":"`);
    }
    return flat(
      `{"id":${JSON.stringify(task.id)},"name":${JSON.stringify(task.name)},"task_type":${this.#taskTypeJson(task.task_type)}},"event_id":"`,
    );
  }

  /** A task type's JSON; a frozen one's (its fields are numbers and strings) is kept. */
  #taskTypeJson(type: AnalyticEvent['task']['task_type']): string {
    if (this.#lastTaskType?.type === type) return this.#lastTaskType.json;
    const json = JSON.stringify(type);
    if (Object.isFrozen(type)) this.#lastTaskType = { type, json };
    return json;
  }

  /** The task's piece: written once for each task object (the engine gives its events one). */
  #task(event: AnalyticEvent): string {
    let piece = this.#tasks.get(event.task);
    if (piece === undefined) {
      piece = this.taskPiece(event.task);
      this.#tasks.set(event.task, piece);
      // A task's events come close together: the oldest pieces are let go.
      if (this.#tasks.size > RECENT_TASKS) this.#tasks.delete(this.#tasks.keys().next().value!);
    }
    return piece;
  }

  /**
   * Events at or after `oldest` (µs), oldest first, at most `limit`, none older than retention
   * on the clock's `now` (ms).
   */
  query(subscriberId: string, oldest: Micros, limit: number, now: number): AnalyticEvent[] {
    return this.#window(subscriberId, oldest, limit, now).map(
      (stored) => JSON.parse(jsonOf(stored)) as AnalyticEvent,
    );
  }

  /** The same window as a JSON array, joined from each event's stored JSON. */
  queryJson(subscriberId: string, oldest: Micros, limit: number, now: number): string {
    const log = this.#logs.get(subscriberId);
    if (!log) return '[]';
    const [from, to] = this.#bounds(log, oldest, limit, now);
    const cached = log.answer;
    if (cached && cached.from === from && cached.to === to) return cached.json;
    let json = '[';
    for (let i = from; i < to; i++)
      json += i === from ? jsonOf(log.events[i]!) : `,${jsonOf(log.events[i]!)}`;
    json += ']';
    log.answer = { from, to, json, bytes: undefined };
    return json;
  }

  /**
   * The same window as UTF-8 bytes, encoded once while the window's answer stands: a poller's
   * answer is sent again and again, and encoding 27 KB of JSON was most of what sending it cost.
   */
  queryBytes(subscriberId: string, oldest: Micros, limit: number, now: number): Buffer {
    const json = this.queryJson(subscriberId, oldest, limit, now);
    const answer = this.#logs.get(subscriberId)?.answer;
    if (answer?.json !== json) return Buffer.from(json);
    answer.bytes ??= Buffer.from(json);
    return answer.bytes;
  }

  #window(subscriberId: string, oldest: Micros, limit: number, now: number): StoredEvent[] {
    const log = this.#logs.get(subscriberId);
    if (!log) return [];
    const [from, to] = this.#bounds(log, oldest, limit, now);
    return log.events.slice(from, to) as StoredEvent[];
  }

  /** The index range of a window: retained, at or after `oldest`, at most `limit`. */
  #bounds(log: AccountLog, oldest: Micros, limit: number, now: number): [number, number] {
    this.#prune(log, now);
    const from = Math.max(log.head, firstAtOrAfter(log.events, oldest, log.head));
    return [from, Math.min(log.events.length, from + Math.max(0, limit))];
  }

  /**
   * The earliest retained event at or after `oldest` (µs) that `match` accepts, in the accounts
   * named (every account when none is), with its account: for the control API's awaited
   * events. Across accounts the earliest instant wins.
   */
  find(
    subscriberIds: readonly string[] | undefined,
    oldest: Micros,
    now: number,
    match: (subscriberId: string, event: AnalyticEvent) => boolean,
  ): { subscriberId: string; event: AnalyticEvent } | undefined {
    let found: { subscriberId: string; event: AnalyticEvent; at: Micros } | undefined;
    for (const subscriberId of subscriberIds ?? [...this.#logs.keys()]) {
      const log = this.#logs.get(subscriberId);
      if (!log) continue;
      this.#prune(log, now);
      for (let i = firstAtOrAfter(log.events, oldest, log.head); i < log.events.length; i++) {
        const stored = log.events[i]!;
        if (found && stored.at >= found.at) break;
        const event = JSON.parse(jsonOf(stored)) as AnalyticEvent;
        if (match(subscriberId, event)) {
          found = { subscriberId, event, at: stored.at };
          break;
        }
      }
    }
    return found && { subscriberId: found.subscriberId, event: found.event };
  }

  /** Every retained event of an account, for the control API. */
  count(subscriberId: string, now: number): number {
    const log = this.#logs.get(subscriberId);
    if (!log) return 0;
    this.#prune(log, now);
    return log.events.length - log.head;
  }

  /**
   * Puts back an account's events of a snapshot, as kept pieces (`headOf`, `taskPiece`),
   * oldest first, after its others (the snapshot's restore checked their order).
   */
  restoreStored(subscriberId: string, events: StoredEvent[]): void {
    const log = this.#logOf(subscriberId);
    // An account without events (a restore's, just cleared) takes the array as it is.
    if (log.events.length === 0) log.events = events;
    else for (const event of events) log.events.push(event);
    log.answer = undefined;
  }

  /** The shared head piece of events of this category and content (what `append` keeps). */
  headOf(kind: Pick<AnalyticEvent, 'category' | 'content'>): string {
    return this.#head(kind);
  }

  /** An account's log, made when it records its first event. */
  #logOf(subscriberId: string): AccountLog {
    let log = this.#logs.get(subscriberId);
    if (!log) {
      log = { events: [], head: 0, answer: undefined };
      this.#logs.set(subscriberId, log);
    }
    return log;
  }

  /** Every account's retained events at `now`, oldest first, as kept: a world snapshot's (WS3). */
  retained(now: number): { subscriberId: string; events: StoredEvent[] }[] {
    const accounts: { subscriberId: string; events: StoredEvent[] }[] = [];
    for (const [subscriberId, log] of this.#logs) {
      this.#prune(log, now);
      if (log.head < log.events.length)
        accounts.push({ subscriberId, events: log.events.slice(log.head) as StoredEvent[] });
    }
    return accounts;
  }

  /** Events held (retained or not yet pruned), and accounts with a log: for tests and benches. */
  stats(): { accounts: number; events: number } {
    let events = 0;
    for (const log of this.#logs.values()) events += log.events.length - log.head;
    return { accounts: this.#logs.size, events };
  }

  /** Forgets every event. New maps, so no capacity of the old ones is kept. */
  clear(): void {
    this.#logs = new Map();
    this.#heads = new Map();
    this.#tasks = new Map();
    this.#droppedEarly = 0;
  }

  /** The oldest instant (µs) still retained at the clock's `now` (ms). */
  #cutoff(now: number): Micros {
    return toMicros(now - this.retentionMs);
  }

  #prune(log: AccountLog, now: number): void {
    const head = firstAtOrAfter(log.events, this.#cutoff(now), log.head);
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
function firstAtOrAfter(events: (StoredEvent | undefined)[], time: Micros, from: number): number {
  // Most often `from` itself (nothing expired, a window from retention's start): one compare,
  // not a search that touches events all over a long log.
  if (from >= events.length || events[from]!.at >= time) return from;
  let lo = from + 1;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (events[mid]!.at < time) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** An event's JSON, as `JSON.stringify` wrote the event (category, content, task, id, time). */
function jsonOf(stored: StoredEvent): string {
  return `${stored.head}${stored.task}${stored.eventId}","timestamp":"${formatMicros(stored.at)}"}`;
}

/**
 * A string built by concatenation is a tree of pieces in V8; converting it to a number makes
 * V8 flatten it into one run of characters, which is what a store that keeps it wants.
 */
function flat(text: string): string {
  // Kept where the optimising compiler must write it: a conversion whose result went unused
  // was dropped as dead code, and the pieces of every concatenation stayed alive.
  _flattened = Number(text);
  return text;
}

/** Where `flat` writes its conversion (never read: the write is what keeps it done). */
let _flattened = 0;

/** How many events a GET's `limit` asks for: at most EVENTS_LIMIT_MAX, all of them if unsaid. */
export function eventLimit(limit: number | undefined): number {
  return Math.max(0, Math.min(limit ?? EVENTS_LIMIT_MAX, EVENTS_LIMIT_MAX));
}
