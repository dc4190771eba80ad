/**
 * The request journal: one entry per request to the emulated APIs, as it was received and
 * answered, secrets masked (journal-mask.ts), at most `limit` entries (oldest dropped first,
 * counted). No HTTP here: `journal-recorder.ts` gives it what fastify saw.
 */
import {
  JOURNAL_BODY_MAX_CHARS,
  JOURNAL_PAGE_DEFAULT,
  type JournalEntry,
  type JournalPage,
} from '../protocol/journal.schema.ts';
import type { PathMatcher } from '../protocol/path-pattern.ts';
import { formatMicros, type Micros, toMicros } from '../protocol/timestamp.ts';
import type { AppliedFault } from './applied-fault.ts';
import { maskAuthorization, maskSecrets, maskText } from './journal-mask.ts';

/** The headers an entry shows (RJ6); others (cookies, proxies' own) are left out. */
const SHOWN_HEADERS = ['content-type', 'content-length', 'accept', 'user-agent', 'authorization'];
/** A shown header value is cut to this many characters. */
const HEADER_MAX_CHARS = 256;

/** What the recorder saw of one request and its answer. */
export interface ReceivedRequest {
  /** Clock time (ms) when it arrived. */
  arrivedAt: number;
  method: string;
  /** The path as sent, without the query string. */
  path: string;
  query: unknown;
  headers: Record<string, string | string[] | undefined>;
  /** The body as parsed (`{ parsed }`), its text when it could not be (`{ text }`), or none. */
  body?: { parsed: unknown } | { text: string };
  account: string | null;
  /** null: the connection closed before the answer was sent whole. */
  status: number | null;
  answer?: { text: string; contentType: string | undefined };
  durationMs: number;
  fault?: AppliedFault;
}

/** Which entries `list` returns. */
export interface JournalFilter {
  method?: string;
  path?: PathMatcher;
  account?: string;
  /** Entries at or after this instant. */
  since?: Micros;
  status?: number;
  fault?: boolean;
  /** Entries with a larger id. */
  after?: number;
  limit?: number;
}

interface Kept {
  readonly entry: JournalEntry;
  readonly micros: Micros;
}

export class RequestJournal {
  #kept: Kept[] = [];
  #dropped = 0;
  /** Ids keep counting across clears and resets: an `after` cursor never names two entries. */
  #lastId = 0;

  /** `limit`: entries kept, read at each record (a setting that fixtures may change). */
  constructor(private readonly limit: () => number) {}

  get size(): number {
    return this.#kept.length;
  }

  record(request: ReceivedRequest): JournalEntry {
    const micros = toMicros(request.arrivedAt);
    const truncated: ('body' | 'answer')[] = [];
    const body = bounded(journalBody(request.body), () => truncated.push('body'));
    const answer = bounded(journalAnswer(request.answer), () => truncated.push('answer'));
    const entry: JournalEntry = {
      id: ++this.#lastId,
      time: formatMicros(micros),
      method: request.method,
      path: request.path,
      query: maskSecrets(request.query ?? {}) as Record<string, unknown>,
      headers: shownHeaders(request.headers),
      body,
      account: request.account,
      status: request.status,
      answer,
      duration_ms: Math.round(request.durationMs * 1000) / 1000,
      fault: request.fault
        ? { id: request.fault.id, kind: request.fault.kind, let_through: request.fault.letThrough }
        : null,
      ...(truncated.length > 0 ? { truncated } : {}),
    };
    this.#kept.push({ entry, micros });
    const over = this.#kept.length - Math.max(1, this.limit());
    if (over > 0) {
      this.#kept.splice(0, over);
      this.#dropped += over;
    }
    return entry;
  }

  /** The entries that match, oldest first, one page of them, and where the next page starts. */
  list(filter: JournalFilter = {}): JournalPage {
    const limit = filter.limit ?? JOURNAL_PAGE_DEFAULT;
    const method = filter.method?.toUpperCase();
    const entries: JournalEntry[] = [];
    let more = false;
    for (const { entry, micros } of this.#kept) {
      if (filter.after !== undefined && entry.id <= filter.after) continue;
      if (method !== undefined && entry.method !== method) continue;
      if (filter.account !== undefined && entry.account !== filter.account) continue;
      if (filter.since !== undefined && micros < filter.since) continue;
      if (filter.status !== undefined && entry.status !== filter.status) continue;
      if (filter.fault !== undefined && (entry.fault !== null) !== filter.fault) continue;
      if (filter.path && !filter.path(entry.path)) continue;
      if (entries.length === limit) {
        more = true;
        break;
      }
      entries.push(entry);
    }
    return { entries, dropped: this.#dropped, next: more ? entries.at(-1)!.id : null };
  }

  /** Empties the journal (and its dropped count); answers how many entries it held. */
  clear(): number {
    const removed = this.#kept.length;
    this.#kept = [];
    this.#dropped = 0;
    return removed;
  }
}

function journalBody(body: ReceivedRequest['body']): unknown {
  if (body === undefined) return null;
  if ('parsed' in body) return body.parsed === undefined ? null : maskSecrets(body.parsed);
  return body.text === '' ? null : maskText(body.text);
}

function journalAnswer(answer: ReceivedRequest['answer']): unknown {
  if (answer === undefined || answer.text === '') return null;
  if (answer.contentType?.includes('json')) {
    try {
      return maskSecrets(JSON.parse(answer.text));
    } catch {
      // Not JSON after all: kept as text.
    }
  }
  return maskText(answer.text);
}

/** The value, or its JSON text cut to JOURNAL_BODY_MAX_CHARS when longer (RJ4). */
function bounded(value: unknown, cut: () => void): unknown {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (text === undefined || text.length <= JOURNAL_BODY_MAX_CHARS) return value;
  cut();
  return text.slice(0, JOURNAL_BODY_MAX_CHARS);
}

function shownHeaders(headers: ReceivedRequest['headers']): Record<string, string> {
  const shown: Record<string, string> = {};
  for (const name of SHOWN_HEADERS) {
    const given = headers[name];
    if (given === undefined) continue;
    const value = (Array.isArray(given) ? given.join(', ') : given).slice(0, HEADER_MAX_CHARS);
    shown[name] = name === 'authorization' ? maskAuthorization(value) : value;
  }
  return shown;
}
