/**
 * Device faults over real WebSockets to a real stub (one process, one virtual clock): what
 * the stub receives of a duplicated or lost tap, and the battery a draining badge reports.
 */
import { describe, expect, test, vi } from 'vitest';
import { StubControlClient } from '../../client/control-client.ts';
import { checkFixtures } from '../../fixtures/load-fixtures.ts';
import { startStub } from '../../server-stub/start-stub.ts';
import { startFleet } from '../../simulator/fleet.ts';
import { serviceClient } from '../support/http.ts';

const BEN = '350000000000002';

/** The stub's engine, watched: what each button frame that reached it came to. */
function watchAcknowledgements(stub: Awaited<ReturnType<typeof startStub>>) {
  const acknowledge = vi.spyOn(stub.core.engine, 'acknowledge');
  return () => acknowledge.mock.results.map((r) => (r.value as { result: string }).result);
}

describe('taps that go wrong on the way', () => {
  test('a duplicated tap reaches the stub as two button frames and counts once', async () => {
    await using stub = await startStub();
    await using fleet = await startFleet({
      stub,
      devices: [BEN],
      behaviours: { [BEN]: { tap: { duplicate: { times: 2, gap: '1s' } } } },
    });
    await fleet.waitUntilConnected();
    const frames = watchAcknowledgements(stub);
    const api = serviceClient(stub);
    const { body } = await api.alert({ notification: 'Spill', groups: ['Nurses'] });
    await fleet.advanceBy(5_000);
    fleet.badge(BEN).tap();
    await fleet.advanceBy(2_000);

    expect(frames()).toEqual(['acknowledged', 'duplicate']);
    expect(fleet.badge(BEN).taps).toMatchObject({ made: 1, sent: 2, duplicated: 1 });
    const events = (await api.events()).body as { content: { type: string } }[];
    expect(events.filter((e) => e.content.type === 'acknowledged')).toHaveLength(1);
    const control = new StubControlClient(stub.url);
    expect(await control.task(body.task_id)).toMatchObject({ acknowledgements: 1 });
  });

  test("a lost tap never reaches the stub: the alert repeats, and the badge's next tap acknowledges", async () => {
    await using stub = await startStub();
    await using fleet = await startFleet({
      stub,
      devices: [BEN],
      behaviours: { [BEN]: { tap: { lose: { taps: [1] } } } },
    });
    await fleet.waitUntilConnected();
    const frames = watchAcknowledgements(stub);
    const api = serviceClient(stub);
    await api.alert({ notification: 'Spill', groups: ['Nurses'], quorum: 1 });
    await fleet.advanceBy(5_000);
    fleet.badge(BEN).tap();
    await fleet.advanceBy(30_000);

    expect(frames()).toEqual([]);
    expect(fleet.transcript(BEN).map((e) => e.kind)).toEqual(['alert', 'alert']);
    fleet.badge(BEN).tap();
    await fleet.settled();
    expect(frames()).toEqual(['acknowledged']);
    expect(fleet.badge(BEN).taps).toMatchObject({ made: 2, sent: 1, lost: 1 });
  });
});

test('a draining battery shows in GET /_stub/devices: level, status, and low at 20 %', async () => {
  await using stub = await startStub();
  await using fleet = await startFleet({
    stub,
    devices: [BEN],
    behaviours: { [BEN]: { battery: { from: 22, drain: 1 } } },
  });
  await fleet.waitUntilConnected();
  const control = new StubControlClient(stub.url);
  const ben = async () => (await control.devices()).find((d) => d.device_id === BEN);
  // State reports are telemetry, not answered: the stub has one once it arrives (real time).
  const shows = (expected: object) =>
    vi.waitFor(async () => expect(await ben()).toMatchObject(expected), { timeout: 2_000 });
  await shows({ battery_level: 22, battery_low: false });
  await fleet.advanceBy(60_000);
  await shows({ battery_level: 21, battery_status: 'discharging', battery_low: false });
  await fleet.advanceBy(60_000);
  await shows({ battery_level: 20, battery_low: true });
});

describe('refused values from code and fixtures', () => {
  test('startFleet refuses a fault a schema cannot catch, naming the behaviour and field', async () => {
    await using stub = await startStub();
    await expect(
      startFleet({ stub, devices: [BEN], behaviour: { tap: { delay: { by: '5s..1s' } } } }),
    ).rejects.toThrow(
      "behaviour.tap.delay.by '5s..1s' is not a duration of at most 3650 days or a range low..high (low first)",
    );
    await expect(
      startFleet({ stub, devices: [BEN], behaviour: { tap: { lose: { chance: 2 } } } }),
    ).rejects.toThrow('behaviour.tap.lose.chance must be <= 1');
  });

  test('fixtures refuse a drop with neither on_play nor chance, naming the path', async () => {
    await using stub = await startStub();
    const fixtures = structuredClone(await new StubControlClient(stub.url).fixtures());
    fixtures.accounts[0]!.devices[0]!.behaviour = { drop: { for: '10s' } };
    expect(() => checkFixtures(fixtures)).toThrow(
      'accounts[0].devices[0].behaviour.drop: needs one of on_play (the Nth alert play) or chance (of each play)',
    );
  });
});
