/**
 * Virtual badges over real WebSockets to a real stub: acknowledgement by the talk button,
 * quorum, timeout, cancel, broadcast, reconnect mid-alert, and refusals of bad frames.
 * Embedded (one process, one virtual clock) unless the test says otherwise.
 */
import { describe, expect, test } from 'vitest';
import { startStub } from '../../server-stub/start-stub.ts';
import { startFleet } from '../../simulator/fleet.ts';
import { controlClient, serviceClient } from '../support/http.ts';

const ADA = '350000000000001';
const BEN = '350000000000002';
const LENA = '350000000000003';
const NURSES = [ADA, BEN, LENA];

/** `kind@seconds` for each clip a badge heard, seconds from the start of virtual time. */
function heard(entries: readonly { kind: string; at: string; cut?: true }[]): string[] {
  const start = Date.UTC(2026, 0, 1);
  return entries.map((e) => `${e.kind}@${(Date.parse(e.at) - start) / 1000}${e.cut ? ' cut' : ''}`);
}

describe('acknowledgement by the talk button', () => {
  test('a badge that taps after 12 s acknowledges: event with its user, on_ack heard, repeats stop', async () => {
    await using stub = await startStub();
    await using fleet = await startFleet({ stub, group: 'Nurses' });
    await fleet.waitUntilConnected();
    const api = serviceClient(stub);
    const { body } = await api.alert({
      notification: 'Code blue',
      groups: ['Nurses'],
      on_ack: 'Thank you',
    });
    await fleet.settled();
    expect(NURSES.map((id) => fleet.status(id))).toEqual(['playing', 'playing', 'playing']);

    await fleet.advanceBy(12_000);
    fleet.badge(BEN).tap();
    await fleet.settled();
    await fleet.advanceBy(50_000);

    expect(fleet.status(BEN)).toBe('idle');
    expect(heard(fleet.transcript(BEN))).toEqual(['alert@0', 'speech@12']);
    expect(fleet.transcript(BEN)[1]).toMatchObject({
      text: 'Thank you',
      cause: 'on_ack',
      task_id: body.task_id,
    });
    expect(heard(fleet.transcript(ADA))).toEqual(['alert@0', 'alert@30', 'alert@60']);
    expect(fleet.status(ADA)).toBe('awaiting-ack');
    const events = (await api.events()).body;
    expect(events.map((e: any) => e.content)).toEqual([
      { type: 'start' },
      { type: 'acknowledged', device: 'Ben Okafor' },
    ]);
  });

  test('behaviours from code: everyone acknowledges after 5s..40s, the alert ends at the last one', async () => {
    await using stub = await startStub();
    await using fleet = await startFleet({
      stub,
      group: 'Nurses',
      seed: 7,
      behaviour: { ack: { after: '5s..40s' } },
    });
    await fleet.waitUntilConnected();
    const api = serviceClient(stub);
    const { body } = await api.alert({ notification: 'Spill', groups: ['Nurses'] });
    await fleet.advanceBy(60_000);
    const events = (await api.events()).body;
    expect(events.map((e: any) => e.content.type)).toEqual([
      'start',
      'acknowledged',
      'acknowledged',
      'acknowledged',
      'end',
    ]);
    const ackTimes = events
      .filter((e: any) => e.content.type === 'acknowledged')
      .map((e: any) => Date.parse(e.timestamp) - Date.UTC(2026, 0, 1));
    for (const t of ackTimes) expect(t).toBeGreaterThanOrEqual(5_000);
    for (const t of ackTimes) expect(t).toBeLessThanOrEqual(40_000);
    expect((await controlClient(stub).task(body.task_id)).body).toMatchObject({
      outcome: 'quorum',
      acknowledgements: 3,
    });
  });

  test('a tap with nothing pending sends nothing and changes nothing', async () => {
    await using stub = await startStub();
    await using fleet = await startFleet({ stub, group: 'Nurses' });
    await fleet.waitUntilConnected();
    fleet.badge(ADA).tap();
    await fleet.settled();
    expect(fleet.badge(ADA).errors).toEqual([]);
    expect(stub.core.engine.events('100001')).toEqual([]);
  });
});

describe('quorum, timeout, cancel, broadcast', () => {
  test('quorum 1: the first tap ends it, the others hear on_quorum and stop', async () => {
    await using stub = await startStub();
    await using fleet = await startFleet({ stub, group: 'Nurses', behaviour: { ack: 'never' } });
    await fleet.waitUntilConnected();
    await serviceClient(stub).alert({
      notification: 'One runner',
      groups: ['Nurses'],
      quorum: 1,
      on_quorum: 'Covered',
    });
    await fleet.advanceBy(3_000);
    fleet.badge(LENA).tap();
    await fleet.settled();
    await fleet.advanceBy(60_000);
    expect(heard(fleet.transcript(ADA))).toEqual(['alert@0', 'speech@3']);
    expect(fleet.transcript(ADA)[1]).toMatchObject({ cause: 'on_quorum', text: 'Covered' });
    expect(NURSES.map((id) => fleet.status(id))).toEqual(['idle', 'idle', 'idle']);
  });

  test('nobody taps: ten plays, then on_timeout at 300 s, then idle', async () => {
    await using stub = await startStub();
    await using fleet = await startFleet({ stub, group: 'Nurses' });
    await fleet.waitUntilConnected();
    await serviceClient(stub).alert({
      notification: 'Lift stuck',
      groups: ['Nurses'],
      on_timeout: 'Escalated',
    });
    await fleet.advanceBy(300_000);
    await fleet.advanceBy(10_000);
    expect(heard(fleet.transcript(ADA))).toEqual([
      ...Array.from({ length: 10 }, (_, i) => `alert@${i * 30}`),
      'speech@300',
    ]);
    expect(fleet.status(ADA)).toBe('idle');
  });

  test('DELETE cuts the alert on every badge', async () => {
    await using stub = await startStub();
    await using fleet = await startFleet({ stub, group: 'Nurses' });
    await fleet.waitUntilConnected();
    const api = serviceClient(stub);
    const { body } = await api.alert({
      notification: 'A long message that takes a few seconds to say',
      groups: ['Nurses'],
    });
    await fleet.advanceBy(1_000);
    await api.cancel(body.task_id);
    await fleet.settled();
    expect(heard(fleet.transcript(ADA))).toEqual(['alert@0 cut']);
    expect(NURSES.map((id) => fleet.status(id))).toEqual(['idle', 'idle', 'idle']);
    // What the fleet keeps at most (3 badges: the full caps each), and nothing forgotten yet.
    expect(fleet.kept()).toEqual({
      heard: { cap: 3_000, dropped: 0 },
      activity: { cap: 3_000, dropped: 0 },
      errors: { cap: 300, dropped: 0 },
    });
  });

  test('a broadcast plays once, in the broadcasting state, with no acknowledgement', async () => {
    await using stub = await startStub();
    await using fleet = await startFleet({ stub, group: 'Nurses' });
    await fleet.waitUntilConnected();
    await serviceClient(stub).broadcast({ notification: 'Canteen open', groups: ['Nurses'] });
    await fleet.settled();
    expect(fleet.status(ADA)).toBe('broadcasting');
    fleet.badge(ADA).tap();
    await fleet.advanceBy(60_000);
    expect(heard(fleet.transcript(ADA))).toEqual(['broadcast@0']);
    expect(fleet.status(ADA)).toBe('idle');
    expect(stub.core.engine.events('100001')).toEqual([]);
  });

  test('a device that never connects still counts toward the default quorum', async () => {
    await using stub = await startStub();
    await using fleet = await startFleet({
      stub,
      group: 'Nurses',
      count: 2,
      behaviour: { ack: { after: '2s' } },
    });
    await fleet.waitUntilConnected();
    const { body } = await serviceClient(stub).alert({ notification: 'x', groups: ['Nurses'] });
    await fleet.advanceBy(300_000);
    expect((await controlClient(stub).task(body.task_id)).body).toMatchObject({
      outcome: 'timed_out',
      acknowledgements: 2,
      quorum: 3,
    });
  });
});

describe('connections', () => {
  test('a badge that connects while an alert is on hears it at once', async () => {
    await using stub = await startStub();
    await serviceClient(stub).alert({ notification: 'Evacuate', groups: ['Nurses'] });
    await stub.core.clock.advanceBy(45_000);
    await using fleet = await startFleet({ stub, group: 'Nurses' });
    await fleet.waitUntilConnected();
    await fleet.advanceBy(30_000);
    expect(heard(fleet.transcript(ADA))).toEqual(['alert@45', 'alert@75']);
  });

  test('dropping mid-alert and coming back resumes it; what was acknowledged stays acknowledged', async () => {
    await using stub = await startStub();
    await using fleet = await startFleet({
      stub,
      group: 'Nurses',
      behaviour: { offline: [{ at: '40s', for: '60s' }] },
    });
    await fleet.waitUntilConnected();
    const api = serviceClient(stub);
    await api.alert({ notification: 'Code red', groups: ['Nurses'] });
    await fleet.advanceBy(10_000);
    fleet.badge(ADA).tap();
    await fleet.settled();
    await fleet.advanceBy(120_000);
    // Ben was offline 40–100 s: he missed 60 and 90, hears it again on his return, and it
    // repeats every 30 s from then.
    expect(heard(fleet.transcript(BEN))).toEqual(['alert@0', 'alert@30', 'alert@100', 'alert@130']);
    expect(fleet.status(BEN)).toBe('playing');
    // Ada acknowledged before the drop: nothing more for her after it.
    expect(heard(fleet.transcript(ADA))).toEqual(['alert@0']);
    const devices = (await controlClient(stub).task((await api.events()).body[0].task.id)).body
      .devices;
    expect(devices.find((d: any) => d.device_id === ADA).status).toBe('acknowledged');
  });

  test('the stub knows who is online and what each badge reports', async () => {
    await using stub = await startStub();
    await using fleet = await startFleet({ stub, group: 'Nurses', count: 1 });
    await fleet.waitUntilConnected();
    await serviceClient(stub).alert({ notification: 'x', groups: ['Nurses'] });
    await fleet.settled();
    // State reports are telemetry, not waited for: they arrive a moment later.
    await expect.poll(() => stub.app.gateway.liveState(ADA).state).toBe('playing');
    const devices = (await controlClient(stub).devices()).body;
    expect(devices.find((d: any) => d.device_id === ADA)).toMatchObject({
      online: true,
      state: 'playing',
    });
    expect(devices.find((d: any) => d.device_id === BEN)).toMatchObject({
      online: false,
      state: null,
    });
    fleet.badge(ADA).goOffline();
    await expect.poll(() => stub.app.gateway.liveState(ADA).online).toBe(false);
  });

  test('battery and location changes reach the stub while online', async () => {
    await using stub = await startStub();
    await using fleet = await startFleet({ stub, group: 'Nurses', count: 1 });
    await fleet.waitUntilConnected();
    fleet.badge(ADA).setBattery(37, 'discharging');
    fleet.badge(ADA).moveTo({ lat: 51.5, long: -0.12, accuracy: 5, address: 'Ward 3' });
    await expect.poll(() => stub.app.gateway.liveState(ADA).location?.address).toBe('Ward 3');
    expect(stub.app.gateway.liveState(ADA)).toMatchObject({
      online: true,
      state: 'idle',
      batteryLevel: 37,
      batteryStatus: 'discharging',
      location: {
        lat: 51.5,
        long: -0.12,
        accuracy: 5,
        address: 'Ward 3',
        timestamp: Date.UTC(2026, 0, 1),
      },
    });
  });
});
