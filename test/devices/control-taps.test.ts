/**
 * Taps made for a badge through the control API (`POST /_stub/devices/{id}/tap`): the badge
 * never sent a button frame, yet the stub acknowledged for it. The badge tells it apart from
 * its own taps by the `acknowledged` stop no tap of its own asked for (real WebSockets, one
 * process, one virtual clock).
 */
import { describe, expect, test } from 'vitest';
import { StubControlClient } from '../../client/control-client.ts';
import { startStub } from '../../server-stub/start-stub.ts';
import { startFleet } from '../../simulator/fleet.ts';
import { serviceClient } from '../support/http.ts';

const ADA = '350000000000001';
const BEN = '350000000000002';

describe('taps through the control API, as the badge sees them', () => {
  test("a control tap is told to the badge's listeners and counted apart; the badge's own tap is not", async () => {
    await using stub = await startStub();
    await using fleet = await startFleet({ stub, devices: [ADA, BEN] });
    await fleet.waitUntilConnected();
    const told: string[] = [];
    for (const id of [ADA, BEN])
      fleet.badge(id).on('controlTap', ({ taskId }) => told.push(`${id} ${taskId}`));
    const { body } = await serviceClient(stub).alert({
      notification: 'Spill',
      groups: ['Nurses'],
      quorum: 2,
    });
    await fleet.advanceBy(2_000);
    fleet.badge(BEN).tap();
    await fleet.advanceBy(1_000);
    const control = new StubControlClient(stub.url);
    expect(await control.tap(ADA)).toMatchObject({ result: 'acknowledged' });
    await fleet.advanceBy(1_000);

    expect(told).toEqual([`${ADA} ${body.task_id}`]);
    expect(fleet.badge(ADA).taps).toMatchObject({ made: 0, sent: 0, control: 1 });
    expect(fleet.badge(BEN).taps).toMatchObject({ made: 1, sent: 1, control: 0 });
    expect(await control.task(body.task_id)).toMatchObject({ acknowledgements: 2 });
  });

  test('a tap lost on the way never asked for the stop: the control tap after it is counted as one', async () => {
    await using stub = await startStub();
    await using fleet = await startFleet({
      stub,
      devices: [BEN],
      behaviours: { [BEN]: { tap: { lose: { taps: [1] } } } },
    });
    await fleet.waitUntilConnected();
    await serviceClient(stub).alert({ notification: 'Spill', groups: ['Nurses'] });
    await fleet.advanceBy(2_000);
    fleet.badge(BEN).tap();
    await fleet.advanceBy(1_000);
    await new StubControlClient(stub.url).tap(BEN);
    await fleet.advanceBy(1_000);

    expect(fleet.badge(BEN).taps).toMatchObject({ made: 1, sent: 0, lost: 1, control: 1 });
  });
});
