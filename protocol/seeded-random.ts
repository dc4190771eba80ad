import { createHash } from 'node:crypto';

/**
 * The one seeded generator of badge-sim (docs/decisions.md Y3): sfc32, 128 bits of state.
 * Ids (`protocol/ids.ts`), badges' behaviour and reconnect draws, and the stub's fault draws
 * all take their streams from it; only fixtures keep faker's own generator (`faker.seed`).
 */
export class Sfc32 {
  readonly #state = new Uint32Array(4);

  /** @param start at least 16 bytes; the first 16 are the state. */
  constructor(start: Uint8Array) {
    this.restart(start);
  }

  /** Starts the stream again from `start` (16 bytes or more). */
  restart(start: Uint8Array): void {
    const view = new DataView(start.buffer, start.byteOffset, 16);
    for (let i = 0; i < 4; i++) this.#state[i] = view.getUint32(i * 4, true);
  }

  /** The 128 bits the stream goes on from, as four unsigned 32-bit words (a fleet's or world's snapshot keeps them). */
  get state(): [number, number, number, number] {
    const s = this.#state;
    return [s[0]!, s[1]!, s[2]!, s[3]!];
  }

  /** Goes on from `state` (what `state` read): the stream continues, it does not restart. */
  set state(words: readonly number[]) {
    this.resume(words);
  }

  /** Continues from 4 words `state` gave (a world snapshot's, WS4). */
  resume(state: readonly number[]): void {
    for (let i = 0; i < 4; i++) this.#state[i] = state[i]! >>> 0;
  }

  /** The next 32 bits, as an unsigned integer. */
  nextUint32(): number {
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

/** The 32 bytes a seed's stream starts from: a hash of its parts joined by `:`. */
export function seedBytes(...seed: (string | number)[]): Uint8Array {
  return createHash('sha256').update(seed.join(':')).digest();
}

/** A seeded stream of numbers in [0, 1), with the generator it draws from (its `state`). */
export type SeededRandom = (() => number) & { readonly stream: Sfc32 };

/**
 * A seeded stream of numbers in [0, 1): each badge draws from its own, derived from the fleet's
 * seed and its device id, so adding a badge changes no other's draws.
 */
export function seededRandom(...seed: (string | number)[]): SeededRandom {
  return randomOf(new Sfc32(seedBytes(...seed)));
}

/** A stream that goes on from a saved `state` (a snapshot's), without hashing a seed again. */
export function resumedRandom(state: readonly number[]): SeededRandom {
  const stream = new Sfc32(new Uint8Array(16));
  stream.state = state;
  return randomOf(stream);
}

function randomOf(stream: Sfc32): SeededRandom {
  return Object.assign(() => stream.nextUint32() / 4_294_967_296, { stream });
}

/** A whole number of ms drawn from [min, max]. */
export function draw(random: () => number, range: { min: number; max: number }): number {
  return Math.round(range.min + random() * (range.max - range.min));
}
