/**
 * The fetch the runner's clients use with a stub in this process (decision SP4): the same HTTP
 * requests on kept-alive sockets, sent with `node:http` rather than the WHATWG `fetch`, whose
 * Request, Response, Headers, body streams and abort signals cost about as much CPU again as
 * the request itself (a scenario makes a few to a few hundred); `node:http` is loaded already
 * (the stub serves with it), where undici's own request API would add its load time to a
 * one-scenario run. What goes on the wire is what Node's fetch sends, its default headers
 * included (`accept: *\/*`, `user-agent: node`, …, when the caller gives none) and in its
 * order, so the stub, its journal among it, sees the same requests. The answer is read whole
 * and handed back as a `LoopbackResponse`: what a `Response` gives of an answer read whole
 * (status, headers, text, JSON, bytes, and its body as a stream when asked), without building
 * streams nobody reads, and its headers without `Headers`, which loads undici
 * (loopback-headers.ts). No redirects are followed (the stub sends none to its clients) and no
 * request body is streamed: the clients send text.
 */
import { Agent, request } from 'node:http';
import { LoopbackHeaders, requestHeaderList } from './loopback-headers.ts';

/** What Node's fetch adds to a request that does not set them. */
const FETCH_DEFAULT_HEADERS: Readonly<Record<string, string>> = {
  accept: '*/*',
  'accept-language': '*',
  'sec-fetch-mode': 'cors',
  'user-agent': 'node',
  'accept-encoding': 'gzip, deflate',
};

/** Statuses whose `Response` carries no body (the WHATWG null body statuses). */
export const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/** Kept-alive connections, as fetch keeps them; an idle one does not hold the process open. */
const agent = new Agent({ keepAlive: true });

export const loopbackFetch = (async (input, init = {}) => {
  const { url, method, headers, body } = fetchRequest(input, init);
  const { status, rawHeaders, text } = await new Promise<{
    status: number;
    rawHeaders: string[];
    text: string;
  }>((resolve, reject) => {
    const sent = request(
      url,
      { method, headers, agent, signal: init.signal ?? undefined },
      (answer) => {
        answer.setEncoding('utf8');
        let text = '';
        answer.on('data', (chunk: string) => {
          text += chunk;
        });
        answer.on('end', () =>
          resolve({ status: answer.statusCode!, rawHeaders: answer.rawHeaders, text }),
        );
        answer.on('error', reject);
      },
    );
    sent.on('error', reject);
    sent.end(body);
  });
  return new LoopbackResponse(
    url.href,
    status,
    rawHeaders,
    NULL_BODY.has(status) ? null : text,
  ) as unknown as Response;
}) as typeof fetch;

/** The request fetch would send for these arguments: its URL, method, headers and text body. */
export function fetchRequest(
  input: Parameters<typeof fetch>[0],
  init: RequestInit,
): { url: URL; method: string; headers: Record<string, string>; body: string | undefined } {
  const body = init.body ?? undefined;
  if (body !== undefined && typeof body !== 'string')
    throw new TypeError('badge-sim: loopbackFetch sends text bodies only');
  const url = new URL(String(input));
  const method = normalizedMethod(init.method ?? 'GET');
  // In fetch's order: host and connection, the caller's headers, a text body's type if they
  // gave none, the defaults they did not set, then the length of a body (fetch sends 0 for a
  // POST or PUT without one).
  const headers: Record<string, string> = { host: url.host, connection: 'keep-alive' };
  for (const [name, value] of requestHeaderList(init.headers)) headers[name] = value;
  if (body !== undefined) headers['content-type'] ??= 'text/plain;charset=UTF-8';
  for (const [name, value] of Object.entries(FETCH_DEFAULT_HEADERS)) headers[name] ??= value;
  if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
  else if (method === 'POST' || method === 'PUT') headers['content-length'] = '0';
  return { url, method, headers, body };
}

/**
 * As fetch normalises a method: the six it knows upper-cased. Any other must be written in
 * upper case: fetch would send it as written, `node:http` upper-cases every method.
 */
function normalizedMethod(method: string): string {
  const upper = method.toUpperCase();
  if (upper !== method && !FETCH_NORMALISED_METHODS.has(upper))
    throw new TypeError(`badge-sim: loopbackFetch sends ${method} only in upper case`);
  return upper;
}
const FETCH_NORMALISED_METHODS = new Set(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT']);

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
    /** Names and values in turn, as received. */
    private readonly rawHeaders: string[],
    private readonly content: string | null,
  ) {}

  get ok(): boolean {
    return this.status >= 200 && this.status <= 299;
  }

  get headers(): Headers {
    this.#headers ??= new LoopbackHeaders(this.rawHeaders);
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
