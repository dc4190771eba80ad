/**
 * Reaching the devices of an alert or a broadcast after the request has been answered
 * (decision D14). In real and scaled time a POST that names 10,000 devices answers once its
 * task exists and its `start` event is stored; the devices are reached here, FAN_OUT_CHUNK at a
 * time, each chunk in its own turn of the event loop so that other requests and the badges'
 * frames are served in between. Jobs run strictly in the order they were added, device by
 * device: two alerts of one name reach every device in the order they were posted, so the
 * same-name queue (L7) is the same as when the fan-out runs at once.
 */

/** Devices reached per turn of the event loop. */
export const FAN_OUT_CHUNK = 512;

interface Job<T> {
  items: readonly T[];
  next: number;
  reach: (item: T) => void;
}

/** What a finished job's place in the queue holds. */
const DONE: Job<unknown> = { items: [], next: 0, reach: () => {} };

export class FanOut {
  #jobs: Job<unknown>[] = [];
  #head = 0;
  #scheduled = false;

  /** Devices not reached yet, over every job. */
  get pending(): number {
    let count = 0;
    for (let i = this.#head; i < this.#jobs.length; i++) {
      const job = this.#jobs[i]!;
      count += job.items.length - job.next;
    }
    return count;
  }

  /**
   * Reaches `items` in order: at once when nothing is waiting and they fit in one chunk (a
   * small alert is reached before its POST answers, as before), otherwise in later turns.
   */
  add<T>(items: readonly T[], reach: (item: T) => void): void {
    if (items.length === 0) return;
    const idle = this.#head === this.#jobs.length;
    this.#jobs.push({ items, next: 0, reach } as Job<unknown>);
    if (idle && items.length <= FAN_OUT_CHUNK) this.#run(FAN_OUT_CHUNK);
    this.#schedule();
  }

  /** Reaches everything still waiting, now (the clock became virtual: nothing may lag). */
  drain(): void {
    this.#run(Number.POSITIVE_INFINITY);
  }

  /** Forgets everything still waiting (a reset). */
  clear(): void {
    this.#jobs = [];
    this.#head = 0;
  }

  #run(budget: number): void {
    while (budget > 0 && this.#head < this.#jobs.length) {
      const job = this.#jobs[this.#head]!;
      const end = Math.min(job.items.length, job.next + budget);
      budget -= end - job.next;
      // `next` moves before `reach`, so a reach that adds a job (or drains) never repeats one.
      while (job.next < end) job.reach(job.items[job.next++]!);
      if (job.next >= job.items.length && this.#jobs[this.#head] === job) {
        // A finished job lets go of its devices and its task now, not when the queue empties.
        this.#jobs[this.#head++] = DONE;
      }
    }
    if (this.#head === this.#jobs.length) this.clear();
  }

  #schedule(): void {
    if (this.#scheduled || this.#head === this.#jobs.length) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      // A listener that throws (a bug) is said loudly, and the devices after it are reached.
      try {
        this.#run(FAN_OUT_CHUNK);
      } catch (error) {
        process.emitWarning(error as Error, 'BadgeSimFanOutWarning');
      }
      this.#schedule();
    });
  }
}
