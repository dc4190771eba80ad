/**
 * A fleet split over worker threads (`startFleet({ workers })`, decision SC1): real worker
 * threads, real sockets, a stub on a real port in real time. The threads share the fleet's one
 * session and its devices between them, each exactly once; the handle adds their numbers up.
 */
import { describe, expect, test } from 'vitest';
import { StubControlClient } from '../../client/control-client.ts';
import { generateFixtures } from '../../fixtures/generate-fixtures.ts';
import { startStub } from '../../server-stub/start-stub.ts';
import { FleetError, startFleet } from '../../simulator/fleet.ts';
import { request } from '../support/http.ts';

const DEVICES = 90;

async function realTimeStub() {
  const fixtures = generateFixtures({ seed: 11, devicesPerAccount: DEVICES });
  const stub = await startStub({ fixtures, clock: 'real' });
  const account = fixtures.accounts[0]!;
  const post = (body: object) =>
    request<{ task_id: string }>(`${stub.url}/subscribers/${account.subscriber_id}/api/v1/alerts`, {
      method: 'POST',
      headers: { authorization: `ServiceApiKey ${account.api_keys[0]}` },
      body: { groups: account.groups.map((g) => g.name), ...body },
    });
  return { stub, account, post, control: new StubControlClient(stub.url) };
}

/** Real time, bounded: what the threads report arrives every 100 ms. */
async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = performance.now() + 20_000;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('a fleet in worker threads', () => {
  test(`3 threads share ${DEVICES} devices, each connected once; an alert reaches every badge and the taps end it`, async () => {
    const { stub, post, control } = await realTimeStub();
    await using _stub = stub;
    await using fleet = await startFleet({
      stub: stub.url,
      workers: 3,
      behaviour: { ack: { after: '0s' } },
    });
    expect(fleet.workers).toBe(3);
    expect(fleet.total).toBe(DEVICES);
    // Two waits at once each end when their own count is reached.
    await Promise.all([
      fleet.waitUntilConnected(10, 30_000),
      fleet.waitUntilConnected(undefined, 30_000),
    ]);
    expect(fleet.summary()).toMatchObject({ total: DEVICES, online: DEVICES, refused: 0 });
    // The stub sees each device once, online: no thread took another's (D13 would refuse it).
    const devices = await control.devices();
    expect(devices.filter((d) => d.online)).toHaveLength(DEVICES);

    const { body } = await post({ notification: 'Everyone out', quorum: DEVICES });
    const taskId = body.task_id;
    await until(async () => (await fleet.firstPlays(taskId)).length === DEVICES, 'every play');
    const plays = await fleet.firstPlays(taskId);
    expect(plays).toEqual([...plays].sort((a, b) => a - b));
    const end = await control.waitForEvent({ type: 'end', task: taskId, timeout: '20s' });
    expect(end.event.content).toEqual({ type: 'end', status: 'normal' });
    await fleet.refresh();
    const activity = fleet.activity();
    expect(activity.alertPlays).toBe(DEVICES);
    expect(activity.taps).toBe(DEVICES);
    expect(activity.errors).toBe(0);
    expect(Object.values(activity.states).reduce((a, b) => a + b, 0)).toBe(DEVICES);

    await fleet.close();
    // Closed, it says so at once rather than waiting for threads that are gone.
    for (const call of [
      () => fleet.refresh(),
      () => fleet.settled(),
      () => fleet.firstPlays(taskId),
    ])
      await expect(call()).rejects.toThrow('the fleet is closed');
    await until(
      async () => (await control.devices()).every((d) => !d.online),
      'every device offline after close',
    );
  });

  test('a shard of the selection is split among the threads: two sharded worker fleets hold every device once', async () => {
    const { stub, control } = await realTimeStub();
    await using _stub = stub;
    await using first = await startFleet({
      stub: stub.url,
      workers: 2,
      shard: { index: 1, total: 2 },
    });
    await using second = await startFleet({
      stub: stub.url,
      workers: 2,
      shard: { index: 2, total: 2 },
    });
    await first.waitUntilConnected(undefined, 30_000);
    await second.waitUntilConnected(undefined, 30_000);
    expect(first.total + second.total).toBe(DEVICES);
    expect(first.summary().refused + second.summary().refused).toBe(0);
    expect((await control.devices()).filter((d) => d.online)).toHaveLength(DEVICES);
  });

  test('options a thread cannot take are refused, saying why', async () => {
    const { stub } = await realTimeStub();
    await using _stub = stub;
    for (const workers of [0, 65, 1.5, Number.NaN]) {
      await expect(startFleet({ stub: stub.url, workers })).rejects.toThrow(
        /workers must be a whole number from 1 to 64/,
      );
    }
    await expect(startFleet({ stub: stub.url, workers: 2, inspect: () => {} })).rejects.toThrow(
      FleetError,
    );
    await expect(
      startFleet({
        stub: stub.url,
        workers: 2,
        tts: { name: 'mine', durationMs: async () => 1 } as never,
      }),
    ).rejects.toThrow(/tts must be an engine's name/);
    await expect(startFleet({ stub: stub.url, workers: 2, group: 'Nobody' })).rejects.toThrow(
      /no group 'Nobody'/,
    );
  });
});
