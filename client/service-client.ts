/**
 * A client of the notification and events interface: alerts, cancel, broadcasts, events
 * (with paging past the 100-event limit). It sends a `User-Agent` on every request and never
 * puts the API key in an error message.
 */

import { ownValue } from '../input/own.ts';
import type {
  AlertRequest,
  AnalyticEvent,
  BroadcastRequest,
} from '../protocol/service-api.schema.ts';
import { type CaPem, fetchTrusting } from './trust.ts';

export interface ServiceClientOptions {
  /** The base URL: `{base_url}` of the spec (the part before /subscribers). */
  baseUrl: string;
  subscriberId: string;
  apiKey: string;
  /** Scheme word of the Authorization header (default `ServiceApiKey`). */
  authScheme?: string;
  userAgent?: string;
  /** PEM of a CA to trust besides Node's: an `https://` stub's own (`StubHandle.tls.caPem`). */
  ca?: CaPem;
  /** Sends with this fetch instead of the global one (it then decides what to trust; `ca` is not used). */
  fetch?: typeof fetch;
}

/** An answer of the service as it came, for callers that look at failures too. */
export interface RawResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

/** A refusal of the service: the status and the body it sent. */
export class ServiceError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    what: string,
  ) {
    const detail =
      ownValue(body, 'message') !== undefined ? `: ${String(ownValue(body, 'message'))}` : '';
    super(`badge-sim client: ${what} answered ${status}${detail}`);
    this.name = 'ServiceError';
  }
}

/** Events cannot all be listed by paging with `oldest` (see `ServiceClient.allEvents`). */
export class PagingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PagingError';
  }
}

/** The most events the service answers in one page. */
const PAGE_SIZE = 100;

export class ServiceClient {
  readonly #options: Required<Omit<ServiceClientOptions, 'ca' | 'fetch'>>;
  readonly #fetch: typeof fetch;

  constructor({ ca, fetch: givenFetch, ...options }: ServiceClientOptions) {
    this.#options = {
      authScheme: 'ServiceApiKey',
      userAgent: 'badge-sim-client/0.1',
      ...options,
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
    };
    this.#fetch = givenFetch ?? fetchTrusting(ca);
  }

  /** `{base_url}/subscribers/{id}/api/v1` */
  get apiBase(): string {
    return `${this.#options.baseUrl}/subscribers/${encodeURIComponent(this.#options.subscriberId)}/api/v1`;
  }

  async alert(request: AlertRequest): Promise<{ task_id: string }> {
    return this.#ok(await this.request('POST', 'alerts', { body: request }), 'POST alerts');
  }

  async cancel(taskId: string): Promise<void> {
    await this.#ok(
      await this.request('DELETE', `alerts/${encodeURIComponent(taskId)}`),
      'DELETE alerts',
    );
  }

  async broadcast(request: BroadcastRequest): Promise<{ task_id: string }> {
    return this.#ok(await this.request('POST', 'broadcasts', { body: request }), 'POST broadcasts');
  }

  /** One page of events: oldest first from `oldest`, at most 100. */
  async events(query: { oldest?: string | Date; limit?: number } = {}): Promise<AnalyticEvent[]> {
    return this.#ok(await this.request('GET', `events${eventsQuery(query)}`), 'GET events');
  }

  /**
   * Every event from `oldest` on (by default the service's own window, 7 days), paging past
   * the 100-event limit. Each page starts at the newest timestamp of the one before, so the
   * pages overlap by the events at that instant, and events already seen (same id) are
   * skipped: none is lost where two pages meet, none is listed twice.
   *
   * Throws `PagingError` when a full page holds one timestamp only (100 events or more share
   * it: no `oldest` reaches those after the first 100), or after `maxPages` pages, rather
   * than answer a list with events missing.
   */
  async allEvents(oldest?: string | Date, maxPages = 10_000): Promise<AnalyticEvent[]> {
    const seen = new Set<string>();
    const all: AnalyticEvent[] = [];
    let from = oldest;
    for (let page = 0; page < maxPages; page++) {
      const events = await this.events({ oldest: from, limit: PAGE_SIZE });
      let fresh = 0;
      for (const event of events) {
        if (seen.has(event.event_id)) continue;
        seen.add(event.event_id);
        all.push(event);
        fresh++;
      }
      if (events.length < PAGE_SIZE) return all;
      const last = events.at(-1)!.timestamp;
      if (events[0]!.timestamp === last) {
        throw new PagingError(
          `badge-sim client: ${PAGE_SIZE} or more events share the timestamp ${last}; the service answers at most ${PAGE_SIZE} from one 'oldest', so paging by time cannot get past them`,
        );
      }
      // A service that ignores `oldest` would answer the same page for ever.
      if (fresh === 0) {
        throw new PagingError(
          `badge-sim client: a full page from ${last} held no new event; the service does not page by 'oldest'`,
        );
      }
      from = last;
    }
    throw new PagingError(
      `badge-sim client: more than ${maxPages} pages of events; stopped rather than list some of them`,
    );
  }

  /** Any request to the service API (path after `/api/v1/`); the answer as it came. */
  async request<T = unknown>(
    method: string,
    path: string,
    options: { body?: unknown; rawBody?: string; contentType?: string; auth?: string | null } = {},
  ): Promise<RawResponse<T>> {
    const headers: Record<string, string> = { 'user-agent': this.#options.userAgent };
    const auth =
      options.auth === undefined
        ? `${this.#options.authScheme} ${this.#options.apiKey}`
        : options.auth;
    if (auth !== null) headers.authorization = auth;
    let body: string | undefined = options.rawBody;
    if (options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined) headers['content-type'] = options.contentType ?? 'application/json';
    const response = await this.#fetch(`${this.apiBase}/${path}`, { method, headers, body });
    const parsed = await readBody(response);
    return { status: response.status, headers: response.headers, body: parsed as T };
  }

  async #ok<T>(response: RawResponse, what: string): Promise<T> {
    if (response.status >= 400) throw new ServiceError(response.status, response.body, what);
    return response.body as T;
  }
}

function eventsQuery(query: { oldest?: string | Date; limit?: number }): string {
  const params = new URLSearchParams();
  if (query.oldest !== undefined) {
    params.set('oldest', query.oldest instanceof Date ? query.oldest.toISOString() : query.oldest);
  }
  if (query.limit !== undefined) params.set('limit', String(query.limit));
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** A response body as JSON when it is JSON, else its text (undefined when empty). */
export async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return text;
  }
}
