/**
 * The badges a stub runs in its own process (`badge-sim stub --badges`, `startStub({ badges })`):
 * a fleet of the fixtures' devices (`'all'`) or of one group, which the stub's dashboard can take
 * offline and bring back. Given to the server by the package's entry point and the CLI, so the
 * server never imports the simulator (docs/architecture.md, "Layers").
 */
import type { StubTarget } from '../stub-connection/stub-connection.ts';
import { startFleet } from './fleet.ts';

export async function runStubBadges(
  stub: StubTarget,
  which: string,
): Promise<{
  has(deviceId: string): boolean;
  setOnline(deviceId: string, online: boolean): void;
  close(): Promise<void>;
}> {
  const fleet = await startFleet({ stub, group: which === 'all' ? undefined : which });
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
    close: () => fleet.close(),
  };
}
