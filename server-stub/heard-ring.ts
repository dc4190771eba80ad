/**
 * The newest plays, broadcasts and speech the stub sent, across devices, for the live stream
 * (UI12): a fixed ring written in place, so a delivery costs three array stores and no
 * allocation whether or not a dashboard is open; instants are printed only when read.
 * Readers remember `count` (how many lines were ever written) and ask for what came since.
 */
import { formatTimestamp } from '../clock/clock.ts';
import type { LiveHeardLine } from '../protocol/live-stream.schema.ts';
import type { DeviceCommand } from './engine/alert-engine.ts';

/** A command a device hears or says (a stop is not heard). */
export type HeardCommand = Exclude<DeviceCommand, { type: 'stop' }>;

export class HeardRing {
  readonly #times: Float64Array;
  readonly #devices: (string | undefined)[];
  readonly #commands: (HeardCommand | undefined)[];
  /** Lines ever written; the ring holds the last `capacity` of them. */
  #count = 0;
  /** Lines before this one were cleared (a reset): never read again. */
  #floor = 0;

  constructor(readonly capacity: number) {
    this.#times = new Float64Array(capacity);
    this.#devices = new Array(capacity);
    this.#commands = new Array(capacity);
  }

  get count(): number {
    return this.#count;
  }

  add(atMs: number, deviceId: string, command: HeardCommand): void {
    const at = this.#count % this.capacity;
    this.#times[at] = atMs;
    this.#devices[at] = deviceId;
    this.#commands[at] = command;
    this.#count++;
  }

  /** Forgets every line (a reset); the count goes on, so readers' marks stay valid. */
  clear(): void {
    this.#floor = this.#count;
    this.#devices.fill(undefined);
    this.#commands.fill(undefined);
  }

  /** The lines written since `from` (a past `count`), oldest first, and how many of them the ring no longer holds. */
  since(from: number): { lines: LiveHeardLine[]; dropped: number } {
    const first = Math.max(from, this.#floor, this.#count - this.capacity);
    const dropped = Math.max(0, first - Math.max(from, this.#floor));
    const lines: LiveHeardLine[] = [];
    for (let n = first; n < this.#count; n++) {
      const at = n % this.capacity;
      const command = this.#commands[at]!;
      lines.push({
        device_id: this.#devices[at]!,
        kind: command.type,
        text: command.text,
        task_id: command.taskId,
        at: formatTimestamp(this.#times[at]!),
      });
    }
    return { lines, dropped };
  }
}
