/**
 * The stub in another process (started by the CLI on the virtual clock), badges in this one:
 * the stub's clock is the authority, and a badge's own timers still fire at the right
 * instant of a jump (the `wake` frames).
 */
import { describe, expect, test } from 'vitest';
import { startFleet } from '../../simulator/fleet.ts';
import { startStubProcess } from '../support/cli.ts';
import { RIVERSIDE, request } from '../support/http.ts';

const START = Date.UTC(2026, 0, 1);
const seconds = (timestamp: string) => (Date.parse(timestamp) - START) / 1000;

describe('badges against a stub in another process', () => {
  test('acknowledgements after 12 s land at 12 s of a five-minute jump', async () => {
    await using stub = await startStubProcess(['--clock', 'virtual']);
    await using fleet = await startFleet({
      stub: stub.url,
      group: 'Nurses',
      behaviour: { ack: { after: '12s' } },
    });
    await fleet.waitUntilConnected();
    const api = `${stub.url}/subscribers/100001/api/v1`;
    const auth = { authorization: `ServiceApiKey ${RIVERSIDE.key}` };
    await request(`${api}/alerts`, {
      method: 'POST',
      headers: auth,
      body: { notification: 'Code blue', groups: ['Nurses'], on_ack: 'Thanks' },
    });
    await fleet.advanceBy(300_000);
    const events = (await request<any[]>(`${api}/events`, { headers: auth })).body;
    expect(events.map((e) => `${e.content.type}@${seconds(e.timestamp)}`)).toEqual([
      'start@0',
      'acknowledged@12',
      'acknowledged@12',
      'acknowledged@12',
      'end@12',
    ]);
    expect(fleet.transcript('350000000000002').map((e) => `${e.kind}@${seconds(e.at)}`)).toEqual([
      'alert@0',
      'speech@12',
    ]);
  });

  test('a badge that drops and comes back mid-alert resumes it, across processes', async () => {
    await using stub = await startStubProcess(['--clock', 'virtual']);
    await using fleet = await startFleet({
      stub: stub.url,
      group: 'Pharmacy',
      behaviour: { offline: [{ at: '40s', for: '25s' }] },
    });
    await fleet.waitUntilConnected();
    const auth = { authorization: `ServiceApiKey ${RIVERSIDE.key}` };
    await request(`${stub.url}/subscribers/100001/api/v1/alerts`, {
      method: 'POST',
      headers: auth,
      body: { notification: 'x', groups: ['Pharmacy'] },
    });
    await fleet.advanceBy(100_000);
    expect(fleet.transcript('350000000000004').map((e) => seconds(e.at))).toEqual([0, 30, 65, 95]);
    expect(fleet.connectedCount()).toBe(2);
  });

  test('the fleet follows a stub in scaled time on its own', async () => {
    await using stub = await startStubProcess(['--clock', 'scaled', '--scale', '600']);
    await using fleet = await startFleet({
      stub: stub.url,
      group: 'Nurses',
      behaviour: { ack: { after: '6s' } },
    });
    await fleet.waitUntilConnected();
    const auth = { authorization: `ServiceApiKey ${RIVERSIDE.key}` };
    const api = `${stub.url}/subscribers/100001/api/v1`;
    await request(`${api}/alerts`, {
      method: 'POST',
      headers: auth,
      body: { notification: 'x', groups: ['Nurses'] },
    });
    // 600× makes 6 s of domain time 10 ms of wall time.
    await expect
      .poll(
        async () =>
          (await request<any[]>(`${api}/events`, { headers: auth })).body.at(-1)?.content.type,
        { timeout: 5_000 },
      )
      .toBe('end');
  });
});
