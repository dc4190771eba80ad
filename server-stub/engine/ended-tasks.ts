/**
 * The tasks that ended, in the order they ended (the clock never goes back between resets):
 * each is forgotten once it ended more than the retention ago (7 days, H1), or earlier when the
 * ended tasks hold more than ENDED_TASKS_CAP tasks or ENDED_RECIPIENTS_CAP recipients in all
 * (a busy stub stays flat, H10); those forgotten early are counted.
 */

/** At most this many ended tasks are kept (H10). */
export const ENDED_TASKS_CAP = 10_000;
/**
 * At most this many recipients over the ended tasks kept: an ended task costs about 15 bytes a
 * recipient, so 1,000-device alerts keep the last 100 (H10).
 */
export const ENDED_RECIPIENTS_CAP = 100_000;

interface Ended<T> {
  task: T;
  endedAt: number;
  recipients: number;
}

export class EndedTasks<T> {
  /** From `#head` on; slots before it are emptied, so a forgotten task is not kept alive. */
  #queue: (Ended<T> | undefined)[] = [];
  #head = 0;
  #recipients = 0;
  #droppedEarly = 0;

  constructor(
    readonly retentionMs: number,
    /** Called for each task forgotten (the engine drops it from its map too). */
    readonly forget: (task: T) => void,
  ) {}

  get size(): number {
    return this.#queue.length - this.#head;
  }

  /** Ended tasks forgotten before their retention ran out, past a cap, since the last reset. */
  get droppedEarly(): number {
    return this.#droppedEarly;
  }

  /** A task ended at `endedAt` with `recipients` devices; the oldest go if a cap is passed. */
  push(task: T, endedAt: number, recipients: number): void {
    this.#queue.push({ task, endedAt, recipients });
    this.#recipients += recipients;
    while (
      this.size > ENDED_TASKS_CAP ||
      (this.#recipients > ENDED_RECIPIENTS_CAP && this.size > 1)
    ) {
      this.#dropOldest();
      this.#droppedEarly++;
    }
    this.#compact();
  }

  /**
   * Forgets the tasks that ended before `now` − retention. Called on every read and write of
   * tasks: usually one comparison; each task is dropped once (amortised O(1)).
   */
  forgetExpired(now: number): void {
    const cutoff = now - this.retentionMs;
    while (this.#head < this.#queue.length && this.#queue[this.#head]!.endedAt < cutoff)
      this.#dropOldest();
    this.#compact();
  }

  /** The tasks that ended most recently, newest first, at most `limit`. */
  *newest(limit: number): Generator<T> {
    for (let i = this.#queue.length - 1, n = 0; i >= this.#head && n < limit; i--, n++)
      yield this.#queue[i]!.task;
  }

  #dropOldest(): void {
    const oldest = this.#queue[this.#head]!;
    this.#queue[this.#head] = undefined;
    this.#head++;
    this.#recipients -= oldest.recipients;
    this.forget(oldest.task);
  }

  /** The array is cut only when most of it is dead: amortised O(1) a task. */
  #compact(): void {
    if (this.#head === this.#queue.length) {
      this.#queue = [];
      this.#head = 0;
    } else if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
      this.#queue.splice(0, this.#head);
      this.#head = 0;
    }
  }
}
