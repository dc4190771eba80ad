/**
 * One device's queue of the alerts of one name (serial alerting, L7): the oldest plays, the
 * rest wait, in the order they reached the device. An alert leaves it when acknowledged or
 * ended, from anywhere in the queue.
 *
 * An array with lazy removal, not a Map by task id: a stub alerting the same group again and
 * again holds one entry a device a task, and a Map that large cost more per POST than the
 * rest of the alert's bookkeeping (hashing, growing). An entry carries whether it is still in
 * its lane (`inLane`), so leaving is O(1); the dead are skipped at the head and swept out when
 * they outnumber the living, so a lane holds at most about twice its entries.
 */

/** What a lane holds: anything that says whether it is still in it. */
export interface LaneEntry {
  inLane: boolean;
}

/** Dead entries tolerated beyond the living before a sweep (amortised O(1) a removal). */
const SWEEP_SLACK = 32;

export class Lane<T extends LaneEntry> {
  /** From `#head` on: entries in arrival order, some of them dead (`inLane` false). */
  #entries: (T | undefined)[] = [];
  #head = 0;
  #size = 0;

  /** Entries still in the lane. */
  get size(): number {
    return this.#size;
  }

  /** Slots held, the dead not yet let go included (for tests: at most about twice `size`). */
  get held(): number {
    return this.#entries.length - this.#head;
  }

  /** Puts an entry last. */
  add(entry: T): void {
    entry.inLane = true;
    this.#entries.push(entry);
    this.#size++;
  }

  /** The oldest entry still in the lane (the one that plays), if any. */
  head(): T | undefined {
    while (this.#head < this.#entries.length) {
      const entry = this.#entries[this.#head]!;
      if (entry.inLane) return entry;
      this.#entries[this.#head++] = undefined;
      // The emptied front is cut once it is most of the array: amortised O(1) an entry.
      if (this.#head > SWEEP_SLACK && this.#head * 2 > this.#entries.length) {
        this.#entries.splice(0, this.#head);
        this.#head = 0;
      }
    }
    return undefined;
  }

  /** The entries still in the lane, oldest first (a world snapshot's). */
  entries(): T[] {
    const living: T[] = [];
    for (let i = this.#head; i < this.#entries.length; i++) {
      const entry = this.#entries[i];
      if (entry?.inLane) living.push(entry);
    }
    return living;
  }

  /** Takes an entry out, wherever it is; false when it was not in the lane. */
  remove(entry: T): boolean {
    if (!entry.inLane) return false;
    entry.inLane = false;
    this.#size--;
    const held = this.#entries.length - this.#head;
    if (held > 2 * this.#size + SWEEP_SLACK) {
      // A new array of the living: the dead (and what they point to) are let go.
      const living: T[] = [];
      for (let i = this.#head; i < this.#entries.length; i++) {
        const e = this.#entries[i]!;
        if (e.inLane) living.push(e);
      }
      this.#entries = living;
      this.#head = 0;
    }
    return true;
  }
}
