import { createHash } from 'node:crypto';

/**
 * A small seeded generator (mulberry32) for behaviours: each badge draws from its own stream,
 * derived from the fleet's seed and its device id, so adding a badge changes no other's draws.
 */
export function seededRandom(...seed: (string | number)[]): () => number {
  let state = createHash('sha256').update(seed.join(':')).digest().readUInt32LE(0);
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** A whole number of ms drawn from [min, max]. */
export function draw(random: () => number, range: { min: number; max: number }): number {
  return Math.round(range.min + random() * (range.max - range.min));
}
