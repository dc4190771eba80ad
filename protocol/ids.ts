import { randomBytes } from 'node:crypto';
import { Sfc32, seedBytes } from './seeded-random.ts';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/*
 * Ids are made from character codes in one go: a string grown a character or a piece at a
 * time is, in V8, a chain of a dozen small objects, and every alert keeps its ids a while
 * (the task, its events): that chain cost more than the rest of an alert's bookkeeping.
 */
const BASE62_CODES = Array.from(BASE62, (c) => c.charCodeAt(0));
const HEX_CODES = Array.from('0123456789abcdef', (c) => c.charCodeAt(0));
/** Scratch arrays, filled and read at once (nothing else runs in between). */
const TASK_ID_CODES: number[] = new Array(22).fill(0);
const EVENT_ID_CODES: number[] = new Array(32).fill(0);

/**
 * Identifiers, from a seed or from chance. One stream (sfc32, `seeded-random.ts`) serves task
 * and event ids in the order they are asked for.
 *
 * - Seeded (docs/architecture.md, decision 6): the stream starts from a hash of the seed, so the n-th id
 *   of a seed is always the same and the same scenario and seed give byte-identical ids;
 *   `reset()` returns to the first id of the seed.
 * - Unseeded (no seed given): the stream starts from `crypto.randomBytes`, and `reset()`
 *   draws a fresh start, so ids are not repeated by another process or after a reset (a stale
 *   DELETE or token of an earlier run never reaches what this run issued).
 */
export class IdSource {
  #seed: string | undefined;
  readonly #stream = new Sfc32(new Uint8Array(16));
  readonly #forcedStart: Uint8Array | undefined;

  /**
   * @param seed the ids repeat from run to run with one, and so do the tokens (U1, U3).
   * @param forcedStart for tests only: the 16 bytes an unseeded stream starts from instead of
   *   `crypto.randomBytes`, to show that tokens do not follow the stream (U12).
   */
  constructor(seed?: number | string, forcedStart?: Uint8Array) {
    this.#seed = seed === undefined ? undefined : String(seed);
    this.#forcedStart = forcedStart;
    this.reset();
  }

  /** Whether the ids come from a seed given explicitly (and so repeat from run to run). */
  get seeded(): boolean {
    return this.#seed !== undefined;
  }

  /** Seeded: back to the first id of the seed. Unseeded: a new random start. */
  reset(): void {
    this.#stream.restart(
      this.#seed === undefined
        ? (this.#forcedStart ?? randomBytes(16))
        : seedBytes(`badge-sim ids:${this.#seed}`),
    );
  }

  /**
   * Takes another seed and starts again from its first id, as `new IdSource(seed)` would: for
   * a stub renewed for the next scenario (`StubCore.renew`), whose engine and token store
   * keep this source.
   */
  reseed(seed: number | string | undefined): void {
    this.#seed = seed === undefined ? undefined : String(seed);
    this.reset();
  }

  /** The seed and where the stream stands, for a world snapshot (WS4). */
  get state(): { seed: string | null; state: number[] } {
    return { seed: this.#seed ?? null, state: this.#stream.state };
  }

  /** Takes a snapshot's seed and continues its stream where it stood: ids go on, never repeat. */
  resume({ seed, state }: { seed: string | null; state: readonly number[] }): void {
    this.#seed = seed ?? undefined;
    this.#stream.resume(state);
  }

  /** A task id as the service writes it: 22 letters and digits. */
  taskId(): string {
    const codes = TASK_ID_CODES;
    for (let i = 0; i < 22; i++) codes[i] = BASE62_CODES[this.#stream.nextUint32() % 62]!;
    return String.fromCharCode.apply(null, codes);
  }

  /** An event id as the service writes it: 32 hexadecimal digits (each draw's 8, high first). */
  eventId(): string {
    const codes = EVENT_ID_CODES;
    for (let i = 0; i < 32; i += 8) {
      const n = this.#stream.nextUint32();
      for (let digit = 0; digit < 8; digit++)
        codes[i + digit] = HEX_CODES[(n >>> (28 - 4 * digit)) & 15]!;
    }
    return String.fromCharCode.apply(null, codes);
  }

  /**
   * 22 letters and digits of a token (refresh, access). Seeded: from the id stream, so a
   * seeded run issues byte-identical tokens. Unseeded: from `crypto.randomBytes`, never from
   * the stream: event ids show four raw outputs of it, and whoever could rebuild its state
   * from them must not be able to tell the next token issued to another account (U12).
   */
  tokenWord(): string {
    if (this.seeded) return this.taskId();
    let word = '';
    while (word.length < 22) {
      for (const byte of randomBytes(32)) {
        // 248 = 4 × 62: the bytes above would favour the first letters.
        if (byte < 248 && word.length < 22) word += BASE62[byte % 62];
      }
    }
    return word;
  }

  /** 32 hexadecimal digits of an id token: the stream when seeded, else `crypto` (U12). */
  tokenHex(): string {
    return this.seeded ? this.eventId() : randomBytes(16).toString('hex');
  }
}
