/**
 * A POST that reaches many badges answers before the fan-out is written (decision D12): in
 * real time the frames go out in chunks after the request is answered; on the virtual clock
 * they go at once and settling waits for every badge, as before.
 */
import { describe, expect, test, vi } from 'vitest';
import { generateFixtures } from '../../fixtures/generate-fixtures.ts';
import { FLUSH_CHUNK } from '../../server-stub/frame-delivery.ts';
import { startStub } from '../../server-stub/start-stub.ts';
import { startFleet } from '../../simulator/fleet.ts';

/** Enough badges for several chunks of writes. */
const BADGES = FLUSH_CHUNK * 4;

describe('fan-out', () => {
  test(`real time: the POST answers before the last of ${BADGES} badges hears the alert, every one hears it, and the stub hears each one report that it is playing`, async () => {
    const fixtures = generateFixtures({ seed: 3, devicesPerAccount: BADGES });
    const account = fixtures.accounts[0]!;
    await using stub = await startStub({ fixtures, clock: 'real' });
    await using fleet = await startFleet({ stub: stub.url, tts: 'estimate' });
    await fleet.waitUntilConnected(BADGES, 60_000);
    // Each badge reports that it is playing (in real time these reports are coalesced, one
    // round for thousands of badges): the stub must hear every one of them.
    const reportedPlaying = new Set<string>();
    const stopWatching = stub.app.gateway.onDeviceChange((id) => {
      if (stub.app.gateway.liveState(id).state === 'playing') reportedPlaying.add(id);
    });
    const heardAt: number[] = [];
    const allHeard = new Promise<void>((resolve) => {
      for (const badge of fleet.badges)
        badge.onAlertPlay(() => {
          if (heardAt.push(performance.now()) === BADGES) resolve();
        });
    });
    const response = await fetch(`${stub.url}/subscribers/${account.subscriber_id}/api/v1/alerts`, {
      method: 'POST',
      headers: {
        authorization: `ServiceApiKey ${account.api_keys[0]}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        notification: 'Everyone out',
        groups: account.groups.map((g) => g.name),
      }),
    });
    const answeredAt = performance.now();
    const heardBeforeAnswer = heardAt.length;
    expect(response.status).toBe(200);
    await allHeard;
    expect(heardAt).toHaveLength(BADGES);
    // Most of the fan-out is written after the answer: the request did not wait for it.
    expect(heardBeforeAnswer).toBeLessThan(BADGES - FLUSH_CHUNK);
    expect(Math.max(...heardAt)).toBeGreaterThan(answeredAt);
    await vi.waitFor(() => expect(reportedPlaying.size).toBe(BADGES), { timeout: 10_000 });
    stopWatching();
  });
});
