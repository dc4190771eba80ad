import { createHash } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * Identifiers from a seed (DESIGN.md decision 6): the n-th id of a seed is always the same,
 * so the same scenario and seed give byte-identical task and event ids. One stream (sfc32,
 * seeded by a hash of the seed) serves both kinds, in the order they are asked for.
 */
export class IdSource {
  readonly #seed: string;
  readonly #state = new Uint32Array(4);

  constructor(seed: number | string = 0) {
    this.#seed = String(seed);
    this.reset();
  }

  /** Returns to the first id of the seed. */
  reset(): void {
    const hash = createHash('sha256').update(`badge-sim ids:${this.#seed}`).digest();
    for (let i = 0; i < 4; i++) this.#state[i] = hash.readUInt32LE(i * 4);
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
