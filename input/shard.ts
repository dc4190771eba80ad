/**
 * Slices of a suite (`--shard i/n`, decision SH1): the sorted list cut into n contiguous
 * slices whose sizes differ by at most one, the same on every machine; every item in exactly
 * one slice. A slice may be empty when there are fewer items than slices.
 */
import { InvalidArgumentError } from 'commander';

export interface Shard {
  /** 1 to total. */
  index: number;
  total: number;
}

/** The most slices a suite is cut into. */
const MAX_SHARDS = 1000;

export function shardOption(value: string): Shard {
  const match = /^(\d{1,4})\/(\d{1,4})$/.exec(value);
  const index = Number(match?.[1]);
  const total = Number(match?.[2]);
  if (!match || total < 1 || total > MAX_SHARDS || index < 1 || index > total)
    throw new InvalidArgumentError(
      `--shard must be i/n with 1 ≤ i ≤ n ≤ ${MAX_SHARDS}, such as 2/4 (got '${value}')`,
    );
  return { index, total };
}

/** The items of one slice, in their order. */
export function shardOf<T>(items: readonly T[], shard: Shard): T[] {
  const from = Math.floor(((shard.index - 1) * items.length) / shard.total);
  const to = Math.floor((shard.index * items.length) / shard.total);
  return items.slice(from, to);
}
