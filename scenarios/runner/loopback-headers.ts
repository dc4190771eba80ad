/**
 * Headers as the runner's loopback fetch (loopback-fetch.ts, decision SP4) sends and reads
 * them, the way the WHATWG `Headers` class treats them, without it: in Node 20 the first touch
 * of `Headers` (or `fetch`, `Request`, `Response`) loads undici, some 75 ms of CPU, a fifth of
 * a one-scenario `badge-sim run` (issue 28: start-up). Names are lower-cased, values trimmed of
 * HTTP whitespace, a name given twice has its values joined by ", ", and they are listed sorted
 * by name; a name or value `Headers` refuses is refused with its words.
 */

/** What `Headers` accepts as a name (an HTTP token). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** What `Headers` refuses in a value (after trimming): NUL, CR and LF. */
const FORBIDDEN_IN_VALUE = /[\0\r\n]/;
const HTTP_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;

/** A header given by a caller, checked and normalised as `Headers.append` does. */
function normalised(name: string, value: string): [string, string] {
  const trimmed = String(value).replace(HTTP_WHITESPACE, '');
  if (!TOKEN.test(name))
    throw new TypeError(`Headers.append: "${name}" is an invalid header name.`);
  if (FORBIDDEN_IN_VALUE.test(trimmed))
    throw new TypeError(`Headers.append: "${trimmed}" is an invalid header value.`);
  return [name.toLowerCase(), trimmed];
}

/** What fetch takes as headers (undici's `HeadersInit`, not a global type here). */
type HeadersInit = NonNullable<RequestInit['headers']>;

const byName = ([a]: [string, string], [b]: [string, string]) => (a < b ? -1 : a > b ? 1 : 0);

/** Name and value pairs from what fetch takes as headers. */
function pairsOf(given: HeadersInit): [string, string][] {
  if (Array.isArray(given)) {
    return given.map((pair) => {
      if (pair.length !== 2)
        throw new TypeError(
          `Headers constructor: expected name/value pair to be length 2, found ${pair.length}.`,
        );
      return [pair[0]!, pair[1]!];
    });
  }
  // A Headers object (or any iterable of pairs) lists its own; a record, its fields.
  if (Symbol.iterator in given) return [...(given as Iterable<[string, string]>)];
  // A value given as a list is written as `Headers` writes it: String(list), "a,b".
  return Object.entries(given) as [string, string][];
}

/** A request's headers as `new Headers(given)` lists them: each name once, sorted. */
export function requestHeaderList(given: HeadersInit | undefined): [string, string][] {
  const merged = new Map<string, string>();
  for (const [name, value] of given === undefined ? [] : pairsOf(given)) {
    const [lower, trimmed] = normalised(name, value);
    const before = merged.get(lower);
    merged.set(lower, before === undefined ? trimmed : `${before}, ${trimmed}`);
  }
  return [...merged].sort(byName);
}

/**
 * The headers of an answer read whole, as a `Response`'s read: `get` joins a name's values,
 * iteration lists them sorted by name (each set-cookie apart); they cannot be changed.
 */
export class LoopbackHeaders implements Headers {
  readonly #values = new Map<string, string[]>();

  /** `raw`: names and values in turn, as received (`IncomingMessage.rawHeaders`). */
  constructor(raw: readonly string[]) {
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const [name, value] = normalised(raw[i]!, raw[i + 1]!);
      const values = this.#values.get(name);
      if (values) values.push(value);
      else this.#values.set(name, [value]);
    }
  }

  get(name: string): string | null {
    return this.#values.get(name.toLowerCase())?.join(', ') ?? null;
  }

  has(name: string): boolean {
    return this.#values.has(name.toLowerCase());
  }

  getSetCookie(): string[] {
    return [...(this.#values.get('set-cookie') ?? [])];
  }

  *entries(): IterableIterator<[string, string]> {
    const names = [...this.#values.keys()].sort();
    for (const name of names) {
      if (name === 'set-cookie') for (const value of this.#values.get(name)!) yield [name, value];
      else yield [name, this.get(name)!];
    }
  }

  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name;
  }

  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }

  forEach(callback: (value: string, name: string, parent: Headers) => void, thisArg?: unknown) {
    for (const [name, value] of this.entries()) callback.call(thisArg, value, name, this);
  }

  append(_name: string, _value: string): void {
    throw new TypeError('immutable');
  }

  set(_name: string, _value: string): void {
    throw new TypeError('immutable');
  }

  delete(_name: string): void {
    throw new TypeError('immutable');
  }
}
