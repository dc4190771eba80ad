/**
 * A snapshot's tasks name their devices by id, 100,000 of them in a world of 1,000 tasks. The
 * check finds each id once, as its row among the fixtures' devices (in the order the engine's
 * directory lists them: accounts, then their devices), and the restore takes the device of that
 * row: no id is looked up twice, and nothing is made an id (WS19's columns stay columns).
 */
import type { Fixtures } from '../../fixtures/fixtures.schema.ts';

export class DeviceRows {
  readonly #rowOf = new Map<string, number>();
  readonly #ids: string[] = [];
  readonly #subscriberOf: string[] = [];
  /** The task that last listed each row, plus one: a row listed twice by one task is refused. */
  readonly #listedBy: Int32Array;
  #task = 0;

  constructor(fixtures: Fixtures) {
    for (const account of fixtures.accounts) {
      for (const device of account.devices) {
        this.#rowOf.set(device.id, this.#ids.length);
        this.#ids.push(device.id);
        this.#subscriberOf.push(account.subscriber_id);
      }
    }
    this.#listedBy = new Int32Array(this.#ids.length);
  }

  /** How many devices the fixtures hold: the engine's directory lists as many, in this order. */
  get size(): number {
    return this.#ids.length;
  }

  /** Where `deviceId` is among a task's `rows`, or -1. */
  indexIn(rows: Int32Array, deviceId: string): number {
    const row = this.#rowOf.get(deviceId);
    return row === undefined ? -1 : rows.indexOf(row);
  }

  /**
   * The row of each of a task's devices, or the index of the first id that is not a device of
   * `subscriberId` or that the task lists twice.
   */
  rowsOf(ids: readonly string[], subscriberId: string): Int32Array | { wrong: number } {
    const task = ++this.#task;
    const rows = new Int32Array(ids.length);
    let next = -1;
    for (let j = 0; j < ids.length; j++) {
      const id = ids[j]!;
      // Tasks list their devices mostly in the fixtures' order: the row after the last is tried first.
      const row = next >= 0 && this.#ids[next] === id ? next : (this.#rowOf.get(id) ?? -1);
      if (row < 0 || this.#subscriberOf[row] !== subscriberId || this.#listedBy[row] === task)
        return { wrong: j };
      this.#listedBy[row] = task;
      rows[j] = row;
      next = row + 1 < this.#ids.length ? row + 1 : -1;
    }
    return rows;
  }
}
