import { createHash } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * Identifiers from a seed (DESIGN.md decision 6): the n-th id of a seed is always the same,
 * so the same scenario and seed give byte-identical task and event ids.
 */
export class IdSource {
  readonly #seed: string;
  #counter = 0;

  constructor(seed: number | string = 0) {
    this.#seed = String(seed);
  }

  /** Returns to the first id of the seed. */
  reset(): void {
    this.#counter = 0;
  }

  /** A task id as the service writes it: 22 letters and digits. */
  taskId(): string {
    const bytes = this.#next();
    let id = '';
    for (let i = 0; i < 22; i++) id += BASE62[bytes[i]! % 62];
    return id;
  }

  /** An event id as the service writes it: 32 hexadecimal digits. */
  eventId(): string {
    return this.#next().toString('hex', 0, 16);
  }

  #next(): Buffer {
    return createHash('sha256')
      .update(`${this.#seed}:${this.#counter++}`)
      .digest();
  }
}
