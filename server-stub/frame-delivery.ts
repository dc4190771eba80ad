/**
 * Delivery of the gateway's writes in real and scaled time (decision D12): they are flushed
 * after the code that queued them has returned, so a POST that reaches 10,000 badges answers
 * once the engine has done its part, and the frames go out in chunks of FLUSH_CHUNK, each
 * connection's in order, letting the event loop breathe (other requests, badges' frames)
 * between chunks. On the virtual clock they go at once (`Connection.deferWrites`): nothing
 * waits on the wall clock there, and scenarios see the fan-out exactly as before.
 */
import type { Connection } from './device-connection.ts';

/** Writes to badges per turn of the event loop, at most (decision D12). */
export const FLUSH_CHUNK = 512;

export class FlushQueue {
  /** Connections with writes queued, in the order they queued them. */
  #toFlush: Connection[] = [];
  #flushScheduled = false;

  /** A connection queued its first write: it is flushed on a coming turn. */
  schedule(connection: Connection): void {
    this.#toFlush.push(connection);
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    setImmediate(() => this.#flush());
  }

  #flush(): void {
    this.#flushScheduled = false;
    let budget = FLUSH_CHUNK;
    let i = 0;
    for (; i < this.#toFlush.length && budget > 0; i++) {
      const connection = this.#toFlush[i]!;
      budget -= connection.flush(budget);
      // Not all of it written: it goes to the back of the line.
      if (connection.queued > 0) this.#toFlush.push(connection);
    }
    this.#toFlush = this.#toFlush.slice(i);
    if (this.#toFlush.length > 0 && !this.#flushScheduled) {
      this.#flushScheduled = true;
      setImmediate(() => this.#flush());
    }
  }
}
