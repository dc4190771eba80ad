/**
 * The defining property of a world snapshot, stub AND fleet together (issue 32, point 4;
 * docs/decisions.md WS30): run a random schedule of a stub and its badges to an instant, take
 * both snapshots and go on; restore both into a fresh stub and a fresh fleet and go on the same
 * way: the two give byte-identical step outcomes, events, task views, transcripts, what every
 * badge shows of itself, and ids. The restored badges say hello again naming the snapshot's
 * instant, and the stub restored from it lets them carry on with what they are playing (WS35):
 * the original world goes on untouched. In one process (badges without a socket), over HTTP (one stub on a port
 * for the file, badges by URL, the restore a PUT), and through files. Virtual clock, few runs.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { StubControlClient } from '../../client/control-client.ts';
import type { WorldSnapshot } from '../../protocol/snapshot.schema.ts';
import { takeSnapshot } from '../../server-stub/snapshot/world-snapshot.ts';
import { type StubHandle, startStub } from '../../server-stub/start-stub.ts';
import { startFleet } from '../../simulator/fleet.ts';
import type { FleetHandle } from '../../simulator/fleet-options.ts';
import { InProcessStubConnection } from '../../stub-connection/in-process-stub-connection.ts';
import {
  BADGES,
  BEHAVIOURS,
  type JointOp,
  jointDriver,
  jointSchedule,
  jointView,
  runJoint,
} from './joint-world.ts';
import { coreDriver, httpDriver } from './world-schedule.ts';

const SEED = 7;

/** A fleet of the four badges on a stub in this process, connected without sockets (SP5). */
function inProcessFleet(stub: StubHandle, snapshot?: string): Promise<FleetHandle> {
  const connection = new InProcessStubConnection(stub, {
    control: () => new StubControlClient(stub.url),
    inProcessDevices: true,
  });
  return startFleet({
    stub: connection,
    devices: BADGES,
    ...(snapshot === undefined ? { behaviours: BEHAVIOURS, seed: SEED } : { snapshot }),
  });
}

/** Waits for the badges a restored fleet brings back online (those online in its snapshot). */
async function broughtBack(fleet: FleetHandle, online: number): Promise<FleetHandle> {
  await fleet.waitUntilConnected(online, 10_000);
  await fleet.settled();
  return fleet;
}

const onlineCount = (fleet: FleetHandle) => BADGES.filter((id) => fleet.badge(id).online).length;

/** Both snapshots of a world at this instant, as JSON text, and how many badges are online. */
function snapshotsOf(stub: StubHandle, fleet: FleetHandle) {
  return {
    world: JSON.stringify(takeSnapshot(stub.core)),
    fleet: JSON.stringify(fleet.snapshot()),
    online: onlineCount(fleet),
  };
}

/** Waits (real time, bounded) until the stub holds no badge's connection: a PUT needs that (WS8). */
async function allGone(stub: StubHandle): Promise<void> {
  for (let i = 0; i < 200 && stub.app.gateway.connected().length > 0; i++)
    await new Promise((resolve) => setTimeout(resolve, 10));
  expect(stub.app.gateway.connected()).toEqual([]);
}

type Restore = (
  taken: ReturnType<typeof snapshotsOf>,
) => Promise<{ stub: StubHandle; fleet: FleetHandle }>;

/**
 * Runs a schedule to `at` on a fresh stub and fleet in this process, restores both snapshots
 * with `restore`, goes on with both worlds: they must go on alike.
 */
async function goOnJointly(ops: JointOp[], at: number, restore: Restore): Promise<void> {
  await using stub = await startStub({ seed: 5 });
  await using fleet = await inProcessFleet(stub);
  await fleet.waitUntilConnected();
  const posted: string[] = [];
  const original = jointDriver(coreDriver(stub.core), fleet);
  await runJoint(original, ops, 0, at, posted);
  const taken = snapshotsOf(stub, fleet);

  const other = await restore(taken);
  await using _stub = other.stub;
  await using _fleet = other.fleet;
  const postedAgain = [...posted];
  const went = await runJoint(original, ops, at, ops.length, posted);
  const again = jointDriver(coreDriver(other.stub.core), other.fleet);
  const wentAgain = await runJoint(again, ops, at, ops.length, postedAgain);
  expect(wentAgain).toEqual(went);
  expect(jointView(other.stub.core, other.fleet)).toBe(jointView(stub.core, fleet));
}

describe('a restored stub and fleet go on as the world they were taken of (WS30)', () => {
  test('in one process: outcomes, events, task views, transcripts, badges and ids are byte-identical', async () => {
    await fc.assert(
      fc.asyncProperty(jointSchedule(12), ({ ops, at }) =>
        goOnJointly(ops, at, async (taken) => {
          // Another seed: what the snapshots say wins.
          const stub = await startStub({ seed: 99, snapshot: JSON.parse(taken.world) });
          return {
            stub,
            fleet: await broughtBack(await inProcessFleet(stub, taken.fleet), taken.online),
          };
        }),
      ),
      { numRuns: 20, seed: 32 },
    );
  }, 60_000);

  test('through files: the stub started from its file, the fleet from its own', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'badge-sim-joint-'));
    const worldFile = join(dir, 'world.json');
    const fleetFile = join(dir, 'fleet.json');
    await fc.assert(
      fc.asyncProperty(jointSchedule(12), ({ ops, at }) =>
        goOnJointly(ops, at, async (taken) => {
          writeFileSync(worldFile, taken.world);
          writeFileSync(fleetFile, taken.fleet);
          const stub = await startStub({ snapshot: worldFile });
          const fleet = await inProcessFleet(stub, readFileSync(fleetFile, 'utf8'));
          return { stub, fleet: await broughtBack(fleet, taken.online) };
        }),
      ),
      { numRuns: 5, seed: 33 },
    );
  }, 30_000);
});

describe('over HTTP: one stub on a port, badges by URL, the world restored by PUT (WS30)', () => {
  let stub: StubHandle;
  let control: StubControlClient;
  let start: WorldSnapshot;
  beforeAll(async () => {
    stub = await startStub({ seed: 5 });
    control = new StubControlClient(stub.url);
    start = await control.snapshot();
  });
  afterAll(() => stub.close());

  /**
   * Runs `ops` on the stub by URL from the world it started with; takes both snapshots at `at`
   * and goes on; says what it took, what each step did and what users saw.
   */
  async function runOverHttp(ops: JointOp[], at: number) {
    await control.restore(start);
    const fleet = await startFleet({
      stub: stub.url,
      devices: BADGES,
      behaviours: BEHAVIOURS,
      seed: SEED,
    });
    await fleet.waitUntilConnected();
    const posted: string[] = [];
    const driver = jointDriver(httpDriver(stub.url, stub.controlUrl), fleet);
    await runJoint(driver, ops, 0, at, posted);
    const world = await control.snapshot();
    const saved = JSON.stringify(fleet.snapshot());
    const online = onlineCount(fleet);
    const went = await runJoint(driver, ops, at, ops.length, [...posted]);
    const view = jointView(stub.core, fleet);
    await fleet.close();
    await allGone(stub);
    return { world, saved, online, posted, went, view };
  }

  test('GET both at T, go on; PUT the world back, restore the fleet by URL, go on: the same', async () => {
    await fc.assert(
      fc.asyncProperty(jointSchedule(8), async ({ ops, at }) => {
        const first = await runOverHttp(ops, at);
        await control.restore(first.world);
        const fleet = await startFleet({ stub: stub.url, devices: BADGES, snapshot: first.saved });
        try {
          await broughtBack(fleet, first.online);
          const driver = jointDriver(httpDriver(stub.url, stub.controlUrl), fleet);
          const went = await runJoint(driver, ops, at, ops.length, [...first.posted]);
          expect(went).toEqual(first.went);
          expect(jointView(stub.core, fleet)).toBe(first.view);
        } finally {
          await fleet.close();
          await allGone(stub);
        }
      }),
      { numRuns: 5, seed: 34 },
    );
  }, 60_000);
});
