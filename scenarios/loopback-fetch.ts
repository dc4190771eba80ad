/**
 * The fetch the runner's clients use with a stub in this process (decision SP4): the same HTTP
 * requests on the same sockets, sent through undici's `request` rather than the WHATWG
 * `fetch`, whose Request, Response, Headers, body streams and abort signals cost about as much
 * CPU again as the request itself (a scenario makes a few to a few hundred). What goes on the
 * wire is what Node's fetch sends, the default headers included (`accept: *\/*`,
 * `user-agent: node`, …, when the caller gives none), so the stub, its journal among it, sees
 * the same requests. The answer is read whole and handed back as a `LoopbackResponse`: what a
 * `Response` gives of an answer read whole (status, headers, text, JSON, bytes, and its body as
 * a stream when asked), without building streams nobody reads. No redirects are followed (the
 * stub sends none to its clients) and no request body is streamed: the clients send text.
 */
import { type Dispatcher, request } from 'undici';

/** What Node's fetch adds to a request that does not set them. */
const FETCH_DEFAULT_HEADERS: Readonly<Record<string, string>> = {
  accept: '*/*',
  'accept-language': '*',
  'sec-fetch-mode': 'cors',
  'user-agent': 'node',
  'accept-encoding': 'gzip, deflate',
};

/** Statuses whose `Response` carries no body (the WHATWG null body statuses). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

export const loopbackFetch = (async (input, init = {}) => {
  if (init.body !== undefined && init.body !== null && typeof init.body !== 'string')
    throw new TypeError('badge-sim: loopbackFetch sends text bodies only');
  // In fetch's order: the caller's headers, then the defaults it did not set.
  const headers: Record<string, string> = Object.fromEntries(new Headers(init.headers));
  for (const [name, value] of Object.entries(FETCH_DEFAULT_HEADERS)) headers[name] ??= value;
  const answer = await request(String(input), {
    method: (init.method ?? 'GET') as Dispatcher.HttpMethod,
    headers,
    body: init.body ?? undefined,
    signal: init.signal ?? undefined,
  });
  const text = await answer.body.text();
  return new LoopbackResponse(
    String(input),
    answer.statusCode,
    answer.headers,
    NULL_BODY.has(answer.statusCode) ? null : text,
  ) as unknown as Response;
}) as typeof fetch;

/** An answer read whole, with the part of `Response` that reads it. */
export class LoopbackResponse {
  readonly type = 'basic';
  readonly redirected = false;
  readonly statusText = '';
  #headers: Headers | undefined;
  #used = false;

  constructor(
    readonly url: string,
    readonly status: number,
    private readonly rawHeaders: Record<string, string | string[] | undefined>,
    private readonly content: string | null,
  ) {}

  get ok(): boolean {
    return this.status >= 200 && this.status <= 299;
  }

  get headers(): Headers {
    if (!this.#headers) {
      this.#headers = new Headers();
      for (const [name, value] of Object.entries(this.rawHeaders)) {
        if (value === undefined) continue;
        for (const one of Array.isArray(value) ? value : [value]) this.#headers.append(name, one);
      }
    }
    return this.#headers;
  }

  get bodyUsed(): boolean {
    return this.#used;
  }

  /** The body as a stream, made only when asked (a null body stays null). */
  get body(): ReadableStream<Uint8Array> | null {
    return this.content === null ? null : new Response(this.content).body;
  }

  async text(): Promise<string> {
    if (this.#used) throw new TypeError('Body is unusable: Body has already been read');
    this.#used = true;
    return this.content ?? '';
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = new TextEncoder().encode(await this.text());
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  }
}
