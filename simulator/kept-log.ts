/**
 * What a badge keeps of its past (its transcript, its activity): a ring of at most `cap`
 * entries, each an instant and a value, the oldest dropped first and counted. Instants sit in
 * a plain array of doubles (8 bytes each, unboxed) beside the values, so a record costs 16
 * bytes when its value is shared; the arrays grow as entries come, up to `cap`, so a badge that
 * hears little holds little (decision H4).
 */
export class KeptLog<T> {
  readonly #at: number[] = [];
  readonly #values: T[] = [];
  /** Index of the oldest entry once the ring is full (before, 0). */
  #start = 0;
  #dropped = 0;

  constructor(readonly cap: number) {
    if (!(Number.isInteger(cap) && cap >= 0)) throw new RangeError(`cap ${cap} is not a count`);
  }

  get size(): number {
    return this.#at.length;
  }

  /** Entries dropped since the start: past the cap, or older than a `dropBefore` cutoff. */
  get dropped(): number {
    return this.#dropped;
  }

  /** Appends; at the cap, the oldest entry is dropped (and counted). */
  push(atMs: number, value: T): void {
    if (this.cap === 0) {
      this.#dropped++;
      return;
    }
    if (this.#at.length < this.cap) {
      this.#at.push(atMs);
      this.#values.push(value);
      return;
    }
    this.#at[this.#start] = atMs;
    this.#values[this.#start] = value;
    this.#start = (this.#start + 1) % this.cap;
    this.#dropped++;
  }

  /** Drops the entries older than `cutoffMs` (usually none: one comparison). */
  dropBefore(cutoffMs: number): void {
    let old = 0;
    while (old < this.#at.length && this.#at[this.#index(old)]! < cutoffMs) old++;
    if (old === 0) return;
    // Rare (a week of a badge's clock has passed): rebuilt in order, from index 0.
    const at: number[] = [];
    const values: T[] = [];
    for (let i = old; i < this.#at.length; i++) {
      at.push(this.#at[this.#index(i)]!);
      values.push(this.#values[this.#index(i)]!);
    }
    this.#at.length = 0;
    this.#values.length = 0;
    this.#at.push(...at);
    this.#values.push(...values);
    this.#start = 0;
    this.#dropped += old;
  }

  /** The newest entry's value, if any. */
  last(): T | undefined {
    return this.#at.length === 0 ? undefined : this.#values[this.#index(this.#at.length - 1)];
  }

  /** Replaces the newest entry's value (a clip cut short). */
  replaceLast(value: T): void {
    if (this.#at.length > 0) this.#values[this.#index(this.#at.length - 1)] = value;
  }

  /** The entries, oldest first, made by `entry` (a new array on every call). */
  map<U>(entry: (atMs: number, value: T) => U): U[] {
    const out: U[] = new Array(this.#at.length);
    for (let i = 0; i < this.#at.length; i++)
      out[i] = entry(this.#at[this.#index(i)]!, this.#values[this.#index(i)]!);
    return out;
  }

  /**
   * Refills an empty log with a snapshot's entries, oldest first (the i-th at `at[i]`, its value
   * `valueAt(i)`: a snapshot's columns, no pair made an entry), and its dropped count.
   */
  load(at: readonly number[], valueAt: (i: number) => T, dropped: number): void {
    const first = Math.max(0, at.length - this.cap);
    for (let i = first; i < at.length; i++) this.push(at[i]!, valueAt(i));
    this.#dropped = dropped + first;
  }

  /** The i-th oldest entry's place in the arrays. */
  #index(i: number): number {
    const n = this.#at.length;
    const j = this.#start + i;
    return j >= n ? j - n : j;
  }
}
