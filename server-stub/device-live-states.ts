/**
 * What the gateway keeps of each badge beyond the fixtures (device-live-state.ts), by device:
 * made from its fixture when first needed, the offline ones forgotten at a reset.
 */
import type { DeviceFacts } from '../protocol/control-api.schema.ts';
import { batteryOf } from './device-info.ts';
import type { DeviceLiveState } from './device-live-state.ts';
import type { StubCore } from './stub-core.ts';

export class DeviceLiveStates {
  readonly #core: StubCore;
  readonly #live = new Map<string, DeviceLiveState>();

  constructor(core: StubCore) {
    this.#core = core;
  }

  /** Live state of a device (offline and unknown until it first connects). */
  get(deviceId: string): DeviceLiveState {
    return this.#live.get(deviceId) ?? emptyLiveState();
  }

  /** What the stub shows of a device (`GET /_stub/devices`): online, battery. */
  facts(deviceId: string): DeviceFacts {
    const live = this.get(deviceId);
    return { online: live.online, ...batteryOf(live, this.#core.deviceFixture(deviceId)) };
  }

  /** The live state kept for a device, to change: made from its fixture when first needed. */
  of(deviceId: string): DeviceLiveState {
    let live = this.#live.get(deviceId);
    if (!live) {
      const fixture = this.#core.deviceFixture(deviceId);
      live = emptyLiveState();
      live.batteryLevel = fixture?.battery_level ?? null;
      live.location = fixture?.location
        ? { ...fixture.location, timestamp: this.#core.clock.now() }
        : null;
      this.#live.set(deviceId, live);
    }
    return live;
  }

  /** Whether a connected badge answers the clock in time; counted unresponsive since now. */
  markResponsive(deviceId: string, responsive: boolean): void {
    const live = this.of(deviceId);
    live.responsive = responsive;
    live.unresponsiveSince = responsive ? null : this.#core.clock.now();
  }

  /** After a reset: what was kept of the devices offline now is forgotten. */
  forgetOffline(): void {
    for (const [id, live] of this.#live) if (!live.online) this.#live.delete(id);
  }
}

function emptyLiveState(): DeviceLiveState {
  return {
    online: false,
    lastConnect: null,
    lastDisconnect: null,
    state: null,
    batteryLevel: null,
    batteryStatus: null,
    location: null,
    appVersion: null,
    responsive: true,
    unresponsiveSince: null,
  };
}
