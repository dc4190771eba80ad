/**
 * One way to talk to a stub: a fleet and a test get the same answers through either kind of
 * `StubConnection`, the one in this process (shared clock) and the one over HTTP (a clock that
 * follows the stub's).
 */
import { describe, expect, test, vi } from 'vitest';
import { StubControlClient } from '../../client/control-client.ts';
import { badgeTest } from '../../scenarios/vitest.ts';
import { type StubHandle, startStub } from '../../server-stub/start-stub.ts';
import { startFleet } from '../../simulator/fleet.ts';
import { HttpStubConnection } from '../../stub-connection/http-stub-connection.ts';
import { InProcessStubConnection } from '../../stub-connection/in-process-stub-connection.ts';
import type { StubConnection } from '../../stub-connection/stub-connection.ts';
import { RIVERSIDE, request } from '../support/http.ts';

const START = Date.UTC(2026, 0, 1);
const NURSE = '350000000000002';
const WITHOUT_BADGE = '350000000000005';

const kinds: [string, (stub: StubHandle) => StubConnection][] = [
  [
    'in process',
    (stub) => new InProcessStubConnection(stub, { control: () => new StubControlClient(stub.url) }),
  ],
  ['over HTTP', (stub) => new HttpStubConnection(stub.url, new StubControlClient(stub.url))],
];

/** Whether the stub sees the device connected, as its device list says. */
async function isOnline(connection: StubConnection, deviceId: string): Promise<boolean> {
  return (await connection.devices()).some((d) => d.device_id === deviceId && d.online);
}

describe('a StubConnection', () => {
  test.for(kinds)(
    '%s: a fleet on it acknowledges at 12 s of a jump; now, tap, online, transcript and tasks answer',
    async ([, connect]) => {
      await using stub = await startStub();
      const connection = connect(stub);
      await using fleet = await startFleet({
        stub: connection,
        group: 'Nurses',
        behaviour: { ack: { after: '12s' } },
      });
      await fleet.waitUntilConnected();
      expect(await connection.now()).toBe(START);
      const api = `${stub.url}/subscribers/${RIVERSIDE.id}/api/v1`;
      const auth = { authorization: `ServiceApiKey ${RIVERSIDE.key}` };
      const alert = await request(`${api}/alerts`, {
        method: 'POST',
        headers: auth,
        body: { notification: 'Code blue', groups: ['Nurses'], on_ack: 'Thanks' },
      });

      await fleet.advanceBy(300_000);
      expect(await connection.now()).toBe(START + 300_000);
      const events = (await request<any[]>(`${api}/events`, { headers: auth })).body;
      expect(
        events.map((e) => `${e.content.type}@${(Date.parse(e.timestamp) - START) / 1000}`),
      ).toEqual(['start@0', 'acknowledged@12', 'acknowledged@12', 'acknowledged@12', 'end@12']);
      expect((await connection.transcript(NURSE)).map((e) => e.type)).toEqual([
        'play',
        'stop',
        'speak',
      ]);
      expect(await connection.findTask(alert.body.task_id)).toMatchObject({ state: 'ended' });
      expect(await connection.findTask('no-such-task')).toBeUndefined();
      expect((await connection.tap(WITHOUT_BADGE)).result).toBe('nothing_pending');

      expect(await isOnline(connection, NURSE)).toBe(true);
      fleet.badge(NURSE).goOffline();
      await expect.poll(() => isOnline(connection, NURSE)).toBe(false);
      expect(await connection.settle()).toBe(false);
      await connection.close();
    },
  );

  test.for(kinds)(
    '%s: waitForDevice is told of a close and a hello (no polling), and is false at its timeout',
    async ([, connect]) => {
      await using stub = await startStub();
      const connection = connect(stub);
      await using fleet = await startFleet({ stub: connection, group: 'Nurses' });
      await fleet.waitUntilConnected();
      expect(await connection.waitForDevice(NURSE, { online: true, timeoutMs: 0 })).toBe(true);
      fleet.badge(NURSE).goOffline();
      expect(await connection.waitForDevice(NURSE, { online: false, timeoutMs: 5_000 })).toBe(true);
      expect(await isOnline(connection, NURSE)).toBe(false);
      expect(await connection.waitForDevice(NURSE, { online: true, timeoutMs: 50 })).toBe(false);
      fleet.badge(NURSE).comeBack();
      expect(await connection.waitForDevice(NURSE, { online: true, timeoutMs: 5_000 })).toBe(true);
      expect(stub.app.gateway.deviceWaiters.size).toBe(0);
      await connection.close();
    },
  );

  test.for(kinds)(
    '%s: waitForDevice is told of a battery report (no polling), and a want of nothing is true at once',
    async ([, connect]) => {
      await using stub = await startStub();
      const connection = connect(stub);
      await using fleet = await startFleet({ stub: connection, group: 'Nurses' });
      await fleet.waitUntilConnected();
      const presence = stub.app.gateway.deviceWaiters;
      const level = connection.waitForDevice(NURSE, {
        online: true,
        battery_level: 15,
        battery_status: 'discharging',
        timeoutMs: 5_000,
      });
      const low = connection.waitForDevice(NURSE, { battery_low: true, timeoutMs: 5_000 });
      await vi.waitFor(() => expect(presence.size).toBe(2));
      fleet.badge(NURSE).setBattery(15, 'discharging');
      expect(await Promise.all([level, low])).toEqual([true, true]);
      expect(await connection.waitForDevice(NURSE, { battery_level: 16, timeoutMs: 50 })).toBe(
        false,
      );
      expect(await connection.waitForDevice(NURSE, { timeoutMs: 0 })).toBe(true);
      expect(presence.size).toBe(0);
      await connection.close();
    },
  );

  test.for(kinds)(
    '%s: waitForEvent with advance runs the clock to the end the fleet brings about, and throws 408 when nothing comes',
    async ([, connect]) => {
      await using stub = await startStub();
      const connection = connect(stub);
      await using fleet = await startFleet({
        stub: connection,
        group: 'Nurses',
        behaviour: { ack: { after: '12s' } },
      });
      await fleet.waitUntilConnected();
      const api = `${stub.url}/subscribers/${RIVERSIDE.id}/api/v1`;
      const auth = { authorization: `ServiceApiKey ${RIVERSIDE.key}` };
      const alert = await request(`${api}/alerts`, {
        method: 'POST',
        headers: auth,
        body: { notification: 'Code blue', groups: ['Nurses'] },
      });
      const task = alert.body.task_id;

      const end = await connection.waitForEvent({ type: 'end', task, advance: '1h' });
      expect(end).toMatchObject({
        event: { content: { type: 'end', status: 'normal' }, task: { id: task } },
        subscriber_id: RIVERSIDE.id,
        now_ms: START + 12_000,
      });
      expect(await connection.now()).toBe(START + 12_000);
      await expect(
        connection.waitForEvent({ type: 'timed_out', task, timeout: '100ms' }),
      ).rejects.toMatchObject({ status: 408 });
      await connection.close();
    },
  );

  badgeTest(
    'the vitest fixtures hand out the connection the fleet runs on',
    async ({ stub, connection, fleet }) => {
      expect(connection.url).toBe(stub.url);
      await fleet.advanceBy(60_000);
      expect(await connection.now()).toBe(START + 60_000);
      expect(await isOnline(connection, fleet.badges[0]!.deviceId)).toBe(true);
    },
  );

  badgeTest(
    'a test waits for the end of an alert through the connection fixture instead of polling',
    async ({ stub, connection, fleet }) => {
      const api = `${stub.url}/subscribers/${RIVERSIDE.id}/api/v1`;
      const auth = { authorization: `ServiceApiKey ${RIVERSIDE.key}` };
      const alert = await request(`${api}/alerts`, {
        method: 'POST',
        headers: auth,
        body: { notification: 'Code blue', groups: ['Nurses'], quorum: 1 },
      });
      fleet.badge(NURSE).tap();
      const { event } = await connection.waitForEvent({ type: 'end', task: alert.body.task_id });
      expect(event.content.status).toBe('normal');
    },
  );

  test.for(kinds)(
    '%s: journal pages through the requests the emulated APIs received',
    async ([, connect]) => {
      await using stub = await startStub();
      const connection = connect(stub);
      const auth = { authorization: `ServiceApiKey ${RIVERSIDE.key}` };
      for (let i = 0; i < 3; i++)
        await request(`${stub.url}/subscribers/${RIVERSIDE.id}/api/v1/events`, { headers: auth });
      const first = await connection.journal({ limit: 2, method: 'get' });
      expect(first.entries.map((e) => e.id)).toEqual([1, 2]);
      expect(first.next).toBe(2);
      const rest = await connection.journal({ after: first.next!, account: RIVERSIDE.id });
      expect(rest).toMatchObject({ entries: [{ id: 3, status: 200 }], dropped: 0, next: null });
      await expect(connection.journal({ path: '/a*b' })).rejects.toMatchObject({ status: 400 });
      await connection.close();
    },
  );
});

describe('faults through a StubConnection', () => {
  test.for(kinds)(
    '%s: addFault, faults, removeFault and clearFaults manage the stub’s faults; an unknown id is a 404',
    async ([, connect]) => {
      await using stub = await startStub();
      const connection = connect(stub);
      const fault = await connection.addFault({
        match: { path: '**/events' },
        action: { status: 503 },
        when: { times: 1 },
      });
      expect(fault).toMatchObject({ id: 'flt_1', remaining: 1, applied: 0 });
      const events = `${stub.url}/subscribers/${RIVERSIDE.id}/api/v1/events`;
      const auth = { authorization: `ServiceApiKey ${RIVERSIDE.key}` };
      expect((await request(events, { headers: auth })).status).toBe(503);
      expect(await connection.faults()).toMatchObject([{ id: 'flt_1', remaining: 0, applied: 1 }]);
      expect(await connection.removeFault('flt_1')).toMatchObject({ id: 'flt_1' });
      await expect(connection.removeFault('flt_1')).rejects.toMatchObject({ status: 404 });
      await expect(
        connection.addFault({ match: { path: '' }, action: { status: 503 } }),
      ).rejects.toMatchObject({ status: 400 });
      await connection.addFault({ match: { path: '**' }, action: { reset: true } });
      expect(await connection.clearFaults()).toEqual({ removed: 1 });
      expect(await connection.faults()).toEqual([]);
    },
  );
});
