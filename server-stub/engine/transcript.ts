import type { DeviceCommand } from './device-command.ts';

/**
 * Transcript lines over every device of the fixtures, shared equally: 1,000 devices keep 100
 * lines each, up to 100 devices the full cap (H2).
 */
const TRANSCRIPT_LINES_BUDGET = 100_000;

/** A device's share of TRANSCRIPT_LINES_BUDGET among `devices`: at most `cap`, at least 1. */
export function transcriptShare(devices: number, cap: number): number {
  return Math.max(1, Math.min(cap, Math.floor(TRANSCRIPT_LINES_BUDGET / Math.max(1, devices))));
}

/** The smallest buffer a transcript starts with; it doubles up to its cap as lines come. */
const INITIAL_CAPACITY = 8;

/**
 * One device's transcript: the commands it was given and when, oldest first, at most `cap`
 * lines. A ring of instants in a Float64Array beside the (shared) command objects: 12 bytes a
 * line, so a stub that keeps a week of lines for thousands of devices stays small (H2).
 */
export class Transcript {
  #times = new Float64Array(INITIAL_CAPACITY);
  #commands: (DeviceCommand | undefined)[] = new Array(INITIAL_CAPACITY);
  #start = 0;
  #size = 0;
  #dropped = 0;

  constructor(readonly cap: number) {}

  get size(): number {
    return this.#size;
  }

  /** Lines dropped so far: past the cap, or older than a `dropBefore` cutoff. */
  get dropped(): number {
    return this.#dropped;
  }

  /** Appends a line; at the cap, the oldest line is dropped. */
  add(atMs: number, command: DeviceCommand): void {
    if (this.#size === this.#times.length && this.#size < this.cap) this.#grow();
    const capacity = this.#times.length;
    if (this.#size === capacity) {
      this.#commands[this.#start] = undefined;
      this.#start = (this.#start + 1) % capacity;
      this.#size--;
      this.#dropped++;
    }
    const at = (this.#start + this.#size) % capacity;
    this.#times[at] = atMs;
    this.#commands[at] = command;
    this.#size++;
  }

  /** Drops the lines older than `cutoff` (usually none: one comparison). */
  /**
   * Refills an empty transcript with a snapshot's lines, oldest first (the i-th at `at[i]`,
   * its command `commandAt(i)`): sized once for them, not grown as they come.
   */
  load(at: readonly number[], commandAt: (i: number) => DeviceCommand): void {
    const capacity = Math.min(this.cap, Math.max(INITIAL_CAPACITY, at.length));
    if (this.#size === 0 && capacity > this.#times.length) {
      this.#times = new Float64Array(capacity);
      this.#commands = new Array(capacity);
      this.#start = 0;
    }
    for (let i = 0; i < at.length; i++) this.add(at[i]!, commandAt(i));
  }

  dropBefore(cutoff: number): void {
    const capacity = this.#times.length;
    while (this.#size > 0 && this.#times[this.#start]! < cutoff) {
      this.#commands[this.#start] = undefined;
      this.#start = (this.#start + 1) % capacity;
      this.#size--;
      this.#dropped++;
    }
  }

  /** The lines, oldest first. */
  *lines(): Generator<{ atMs: number; command: DeviceCommand }> {
    const capacity = this.#times.length;
    for (let i = 0; i < this.#size; i++) {
      const at = (this.#start + i) % capacity;
      yield { atMs: this.#times[at]!, command: this.#commands[at]! };
    }
  }

  #grow(): void {
    const capacity = Math.min(this.cap, this.#times.length * 2);
    const times = new Float64Array(capacity);
    const commands: (DeviceCommand | undefined)[] = new Array(capacity);
    const old = this.#times.length;
    for (let i = 0; i < this.#size; i++) {
      const from = (this.#start + i) % old;
      times[i] = this.#times[from]!;
      commands[i] = this.#commands[from];
    }
    this.#times = times;
    this.#commands = commands;
    this.#start = 0;
  }
}
