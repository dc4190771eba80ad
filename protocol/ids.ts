import { createHash, randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * Identifiers, from a seed or from chance. One stream (sfc32) serves task and event ids in
 * the order they are asked for.
 *
 * - Seeded (DESIGN.md decision 6): the stream starts from a hash of the seed, so the n-th id
 *   of a seed is always the same and the same scenario and seed give byte-identical ids;
 *   `reset()` returns to the first id of the seed.
 * - Unseeded (no seed given): the stream starts from `crypto.randomBytes`, and `reset()`
 *   draws a fresh start, so ids are not repeated by another process or after a reset (a stale
 *   DELETE or token of an earlier run never reaches what this run issued).
 */
export class IdSource {
  readonly #seed: string | undefined;
  readonly #state = new Uint32Array(4);

  constructor(seed?: number | string) {
    this.#seed = seed === undefined ? undefined : String(seed);
    this.reset();
  }

  /** Whether the ids come from a seed given explicitly (and so repeat from run to run). */
  get seeded(): boolean {
    return this.#seed !== undefined;
  }

  /** Seeded: back to the first id of the seed. Unseeded: a new random start. */
  reset(): void {
    const start =
      this.#seed === undefined
        ? randomBytes(16)
        : createHash('sha256').update(`badge-sim ids:${this.#seed}`).digest();
    for (let i = 0; i < 4; i++) this.#state[i] = start.readUInt32LE(i * 4);
  }

  /** A task id as the service writes it: 22 letters and digits. */
  taskId(): string {
    let id = '';
    for (let i = 0; i < 22; i++) id += BASE62[this.#next() % 62];
    return id;
  }

  /** An event id as the service writes it: 32 hexadecimal digits. */
  eventId(): string {
    let id = '';
    for (let i = 0; i < 4; i++) id += this.#next().toString(16).padStart(8, '0');
    return id;
  }

  /** sfc32: small, fast, and good enough for identifiers that only need to be distinct. */
  #next(): number {
    const s = this.#state;
    const t = (((s[0]! + s[1]!) >>> 0) + s[3]!) >>> 0;
    s[3] = (s[3]! + 1) >>> 0;
    s[0] = s[1]! ^ (s[1]! >>> 9);
    s[1] = (s[2]! + (s[2]! << 3)) >>> 0;
    s[2] = ((s[2]! << 21) | (s[2]! >>> 11)) >>> 0;
    s[2] = (s[2]! + t) >>> 0;
    return t;
  }
}
