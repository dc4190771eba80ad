/**
 * A fixed ring of lines about devices for the live stream (what each heard, when each went
 * offline and came back): written in place, so a line costs three array stores and no
 * allocation whether or not a dashboard is open; instants are printed only when read.
 * Readers remember `count` (how many lines were ever written) and ask for what came since.
 */
import { formatTimestamp } from '../clock/clock.ts';

export class DeviceLineRing<Payload, Line> {
  readonly #times: Float64Array;
  readonly #devices: (string | undefined)[];
  readonly #payloads: (Payload | undefined)[];
  /** Lines ever written; the ring holds the last `capacity` of them. */
  #count = 0;
  /** Lines before this one were cleared (a reset): never read again. */
  #floor = 0;

  constructor(
    readonly capacity: number,
    /** A kept line as readers see it; `at` is its instant, printed. */
    readonly lineOf: (deviceId: string, payload: Payload, at: string) => Line,
  ) {
    this.#times = new Float64Array(capacity);
    this.#devices = new Array(capacity);
    this.#payloads = new Array(capacity);
  }

  get count(): number {
    return this.#count;
  }

  /** Lines written since the last reset that the ring no longer holds (the oldest go first). */
  get dropped(): number {
    return Math.max(0, this.#count - this.#floor - this.capacity);
  }

  add(atMs: number, deviceId: string, payload: Payload): void {
    const at = this.#count % this.capacity;
    this.#times[at] = atMs;
    this.#devices[at] = deviceId;
    this.#payloads[at] = payload;
    this.#count++;
  }

  /** Forgets every line (a reset); the count goes on, so readers' marks stay valid. */
  clear(): void {
    this.#floor = this.#count;
    this.#devices.fill(undefined);
    this.#payloads.fill(undefined);
  }

  /** The lines written since `from` (a past `count`), oldest first, and how many of them the ring no longer holds. */
  since(from: number): { lines: Line[]; dropped: number } {
    const first = Math.max(from, this.#floor, this.#count - this.capacity);
    const dropped = Math.max(0, first - Math.max(from, this.#floor));
    const lines: Line[] = [];
    for (let n = first; n < this.#count; n++) {
      const at = n % this.capacity;
      lines.push(
        this.lineOf(this.#devices[at]!, this.#payloads[at]!, formatTimestamp(this.#times[at]!)),
      );
    }
    return { lines, dropped };
  }
}
