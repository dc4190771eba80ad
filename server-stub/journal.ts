/**
 * The request journal: one entry per request to the emulated APIs, as it was received and
 * answered, secrets masked (journal-mask.ts), at most `limit` entries (oldest dropped first,
 * counted). No HTTP here: `journal-recorder.ts` gives it what fastify saw.
 *
 * Recording a request costs next to nothing (principle 10): the journal keeps the texts as
 * they were sent, by reference (a copy of the first JOURNAL_BODY_MAX_CHARS when longer, so an
 * entry holds at most twice that many characters of body and answer), and does the work only
 * a reader needs — parsing, masking, cutting — when the entry is read (RJ4).
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
import { maskAuthorization, maskJsonText, maskSecrets, maskText } from './journal-mask.ts';

/** The headers an entry shows (RJ6); others (cookies, proxies' own) are left out. */
const SHOWN_HEADERS = ['content-type', 'content-length', 'accept', 'user-agent', 'authorization'];
/** A shown header value is cut to this many characters. */
const HEADER_MAX_CHARS = 256;

/**
 * A body or answer as it was sent, and how it reads: `json` and `form` were parsed so by the
 * stub (a body) or said so by their content type (an answer); `text` is shown as it is.
 */
export interface SentText {
  text: string;
  as: 'json' | 'form' | 'text';
}

/** What the recorder saw of one request and its answer. */
export interface ReceivedRequest {
  /** Clock time (ms) when it arrived. */
  arrivedAt: number;
  method: string;
  /** The path as sent, without the query string. */
  path: string;
  query: unknown;
  headers: Record<string, string | string[] | undefined>;
  /** The body as sent; none when none arrived (or it was refused before it was read, RJ8). */
  body?: SentText;
  account: string | null;
  /** null: the connection closed before the answer was sent whole. */
  status: number | null;
  answer?: SentText;
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

/** A sent text as kept: whole (the sender's own string), or its start copied out (`cut`). */
interface KeptText {
  readonly text: string;
  readonly as: SentText['as'];
  readonly cut: boolean;
}

/** What the journal keeps of a request until it is read. */
interface Kept {
  readonly id: number;
  readonly micros: Micros;
  readonly method: string;
  readonly path: string;
  readonly query: unknown;
  /** The shown headers, cut but not yet masked. */
  readonly headers: Record<string, string>;
  readonly body: KeptText | undefined;
  readonly account: string | null;
  readonly status: number | null;
  readonly answer: KeptText | undefined;
  readonly durationMs: number;
  readonly fault: AppliedFault | undefined;
}

export class RequestJournal {
  #kept: Kept[] = [];
  /** Index of the oldest entry still kept: the array is compacted now and then, not per drop. */
  #first = 0;
  #dropped = 0;
  /** Ids keep counting across clears and resets: an `after` cursor never names two entries. */
  #lastId = 0;
  /**
   * The last long text cut, and what was kept of it: the same text again (a polled GET events
   * answer is one cached string until the events change) shares that copy. Holding its source
   * keeps one long text alive at most, which its sender holds anyway while it is the answer.
   */
  #lastCut: { source: string; kept: KeptText } | undefined;

  /** `limit`: entries kept, read at each record (a setting that fixtures may change). */
  constructor(private readonly limit: () => number) {}

  get size(): number {
    return this.#kept.length - this.#first;
  }

  /** Keeps a request; answers its id. Nothing is parsed or masked here (`entry` does that). */
  record(request: ReceivedRequest): number {
    const id = ++this.#lastId;
    this.#kept.push({
      id,
      micros: toMicros(request.arrivedAt),
      method: request.method,
      path: request.path,
      query: request.query ?? {},
      headers: shownHeaders(request.headers),
      body: this.#keptText(request.body),
      account: request.account,
      status: request.status,
      answer: this.#keptText(request.answer),
      durationMs: request.durationMs,
      fault: request.fault,
    });
    const over = this.size - Math.max(1, this.limit());
    if (over > 0) {
      this.#first += over;
      this.#dropped += over;
      // Compacted once the dropped head is as long as what is kept: amortised O(1) a record.
      if (this.#first >= this.#kept.length / 2) {
        this.#kept = this.#kept.slice(this.#first);
        this.#first = 0;
      }
    }
    return id;
  }

  /** The entry of the request with this id, as a reader sees it; undefined once dropped. */
  entry(id: number): JournalEntry | undefined {
    const first = this.#kept[this.#first];
    if (first === undefined) return undefined;
    const kept = this.#kept[this.#first + id - first.id];
    return kept?.id === id ? entryOf(kept) : undefined;
  }

  /** The entries that match, oldest first, one page of them, and where the next page starts. */
  list(filter: JournalFilter = {}): JournalPage {
    const limit = filter.limit ?? JOURNAL_PAGE_DEFAULT;
    const method = filter.method?.toUpperCase();
    const entries: JournalEntry[] = [];
    let more = false;
    for (let i = this.#first; i < this.#kept.length; i++) {
      const kept = this.#kept[i]!;
      if (filter.after !== undefined && kept.id <= filter.after) continue;
      if (method !== undefined && kept.method !== method) continue;
      if (filter.account !== undefined && kept.account !== filter.account) continue;
      if (filter.since !== undefined && kept.micros < filter.since) continue;
      if (filter.status !== undefined && kept.status !== filter.status) continue;
      if (filter.fault !== undefined && (kept.fault !== undefined) !== filter.fault) continue;
      if (filter.path && !filter.path(kept.path)) continue;
      if (entries.length === limit) {
        more = true;
        break;
      }
      entries.push(entryOf(kept));
    }
    return { entries, dropped: this.#dropped, next: more ? entries.at(-1)!.id : null };
  }

  /** A sent text kept by reference when short; else its start, copied so the rest can go. */
  #keptText(sent: SentText | undefined): KeptText | undefined {
    if (sent === undefined || sent.text === '') return undefined;
    if (sent.text.length <= JOURNAL_BODY_MAX_CHARS)
      return { text: sent.text, as: sent.as, cut: false };
    const last = this.#lastCut;
    if (last?.source === sent.text && last.kept.as === sent.as) return last.kept;
    const kept: KeptText = { text: startOf(sent.text), as: sent.as, cut: true };
    this.#lastCut = { source: sent.text, kept };
    return kept;
  }

  /** Empties the journal (and its dropped count); answers how many entries it held. */
  clear(): number {
    const removed = this.size;
    this.#kept = [];
    this.#lastCut = undefined;
    this.#first = 0;
    this.#dropped = 0;
    return removed;
  }
}

/**
 * The first JOURNAL_BODY_MAX_CHARS of a text, copied: a slice alone would keep the whole text
 * alive (V8 slices point into their parent). Slicing a concatenation makes V8 flatten it into a
 * new string first, so what is kept is that copy, in the JS heap (a Buffer would be C memory,
 * which the allocator keeps after the journal lets it go).
 */
function startOf(text: string): string {
  return ` ${text.slice(0, JOURNAL_BODY_MAX_CHARS)}`.slice(1);
}

/** The entry a reader sees: bodies parsed and masked, long ones cut (RJ4, RJ5). */
function entryOf(kept: Kept): JournalEntry {
  const truncated: ('body' | 'answer')[] = [];
  const body = shown(kept.body, () => truncated.push('body'));
  const answer = shown(kept.answer, () => truncated.push('answer'));
  return {
    id: kept.id,
    time: formatMicros(kept.micros),
    method: kept.method,
    path: kept.path,
    query: maskSecrets(kept.query) as Record<string, unknown>,
    headers: maskedHeaders(kept.headers),
    body,
    account: kept.account,
    status: kept.status,
    answer,
    duration_ms: Math.round(kept.durationMs * 1000) / 1000,
    fault: kept.fault
      ? { id: kept.fault.id, kind: kept.fault.kind, let_through: kept.fault.letThrough }
      : null,
    ...(truncated.length > 0 ? { truncated } : {}),
  };
}

/**
 * A kept text as the journal shows it: parsed and masked when it reads as JSON or a form,
 * else masked text; past JOURNAL_BODY_MAX_CHARS of JSON, the text cut there (`cut` called).
 */
function shown(kept: KeptText | undefined, cut: () => void): unknown {
  if (kept === undefined) return null;
  if (kept.cut) {
    cut();
    const start = kept.text;
    return (kept.as === 'text' ? maskText(start) : maskJsonText(start)).slice(
      0,
      JOURNAL_BODY_MAX_CHARS,
    );
  }
  const text = kept.text;
  const parsed = parsedText(text, kept.as);
  const value = parsed === undefined ? maskText(text) : maskSecrets(parsed.value);
  // Masking can lengthen a text a little: the bound holds for what is shown.
  const json = typeof value === 'string' ? value : JSON.stringify(value);
  if (json === undefined || json.length <= JOURNAL_BODY_MAX_CHARS) return value;
  cut();
  return json.slice(0, JOURNAL_BODY_MAX_CHARS);
}

/** The text read as the stub read it; undefined when it does not read so (kept as text). */
function parsedText(text: string, as: SentText['as']): { value: unknown } | undefined {
  try {
    if (as === 'json') return { value: JSON.parse(text) };
    if (as === 'form') return { value: Object.fromEntries(new URLSearchParams(text)) };
  } catch {
    // Not JSON after all (an answer that said so, a body refused): shown as text.
  }
  return undefined;
}

function shownHeaders(headers: ReceivedRequest['headers']): Record<string, string> {
  const shown: Record<string, string> = {};
  for (const name of SHOWN_HEADERS) {
    const given = headers[name];
    if (given === undefined) continue;
    shown[name] = (Array.isArray(given) ? given.join(', ') : given).slice(0, HEADER_MAX_CHARS);
  }
  return shown;
}

function maskedHeaders(headers: Record<string, string>): Record<string, string> {
  const authorization = headers.authorization;
  return authorization === undefined
    ? { ...headers }
    : { ...headers, authorization: maskAuthorization(authorization) };
}
