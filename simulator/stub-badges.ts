/**
 * The badges a stub runs in its own process (`badge-sim stub --badges`, `startStub({ badges })`):
 * a fleet of the fixtures' devices (`'all'`) or of one group, which the stub's dashboard can take
 * offline and bring back. Given to the server by the package's entry point and the CLI, so the
 * server never imports the simulator (docs/architecture.md, "Layers").
 */
import type { StubTarget } from '../stub-connection/stub-connection.ts';
import { startFleet } from './fleet.ts';
import type { FleetSnapshot } from './snapshot/fleet-snapshot.ts';

export async function runStubBadges(
  stub: StubTarget,
  which: string,
  snapshot?: unknown,
): Promise<{
  has(deviceId: string): boolean;
  setOnline(deviceId: string, online: boolean): void;
  snapshot(): unknown;
  close(): Promise<void>;
}> {
  const group = which === 'all' ? undefined : which;
  // With the `badges` of the stub's snapshot file, the badges it holds carry on (WS24).
  const restore = snapshot === undefined ? {} : { snapshot: snapshot as FleetSnapshot };
  const fleet = await startFleet({ stub, group, ...restore });
  try {
    await fleet.waitUntilConnected();
  } catch (error) {
    await fleet.close();
    throw error;
  }
  const ids = new Set(fleet.badges.map((b) => b.deviceId));
  return {
    has: (deviceId) => ids.has(deviceId),
    setOnline: (deviceId, online) => {
      const badge = fleet.badge(deviceId);
      if (online) badge.comeBack();
      else badge.goOffline();
    },
    snapshot: () => fleet.snapshot(),
    close: () => fleet.close(),
  };
}
