/**
 * The devices of an alerting task, in the order they were alerted, found by id. An array, and
 * a Map by id only once a device is looked up in a large task: most alerts name a few
 * devices, a stub can hold many thousands of them alerting at once, and a Map each was the
 * largest part of what an alert kept.
 */

/** Up to this many devices, a lookup by id reads the array. */
const SCAN_MAX = 16;

export class TaskDevices<T extends { device: { id: string } }> {
  readonly #list: T[] = [];
  #byId: Map<string, T> | undefined;

  get size(): number {
    return this.#list.length;
  }

  /** Adds a device (each device once; a task's devices are fixed when it is posted). */
  add(td: T): void {
    this.#list.push(td);
    this.#byId?.set(td.device.id, td);
  }

  get(deviceId: string): T | undefined {
    if (this.#list.length <= SCAN_MAX) {
      for (const td of this.#list) if (td.device.id === deviceId) return td;
      return undefined;
    }
    if (!this.#byId) {
      this.#byId = new Map();
      for (const td of this.#list) this.#byId.set(td.device.id, td);
    }
    return this.#byId.get(deviceId);
  }

  values(): readonly T[] {
    return this.#list;
  }
}
