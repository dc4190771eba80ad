/**
 * The stub in another process (started by the CLI on the virtual clock), badges in this one:
 * the stub's clock is the authority, and a badge's own timers still fire at the right
 * instant of a jump (the `wake` frames).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import type { Fixtures } from '../../fixtures/fixtures.schema.ts';
import { DEFAULT_FIXTURES_FILE, loadFixturesFile } from '../../fixtures/load-fixtures.ts';
import { startStub } from '../../server-stub/start-stub.ts';
import { startFleet } from '../../simulator/fleet.ts';
import { startStubProcess } from '../support/cli.ts';
import { freePort, RIVERSIDE, request } from '../support/http.ts';

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

  test('an acknowledgement after 0 s lands at 0 s: a badge timer due at its own instant fires', async () => {
    await using stub = await startStubProcess(['--clock', 'virtual']);
    await using fleet = await startFleet({
      stub: stub.url,
      group: 'Pharmacy',
      behaviour: { ack: { after: '0s' } },
    });
    await fleet.waitUntilConnected();
    const api = `${stub.url}/subscribers/100001/api/v1`;
    const auth = { authorization: `ServiceApiKey ${RIVERSIDE.key}` };
    await request(`${api}/alerts`, {
      method: 'POST',
      headers: auth,
      body: { notification: 'Stat order', groups: ['Pharmacy'] },
    });
    await fleet.advanceBy(60_000);
    const events = (await request<any[]>(`${api}/events`, { headers: auth })).body;
    expect(events.map((e) => `${e.content.type}@${seconds(e.timestamp)}`)).toEqual([
      'start@0',
      'acknowledged@0',
      'acknowledged@0',
      'end@0',
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

/** The devices the stub at `url` shows online (its control API). */
async function onlineOnStub(url: string): Promise<string[]> {
  const devices = (await request<any[]>(`${url}/_stub/devices`)).body;
  return devices.filter((d) => d.online).map((d) => d.device_id);
}

describe('a fleet outlives its stub', () => {
  test('the stub restarts on the same port: badges come back and hear and acknowledge the next alert', async () => {
    const port = await freePort();
    await using first = await startStub({ port });
    await using fleet = await startFleet({
      stub: first.url,
      group: 'Nurses',
      behaviour: { ack: { after: '12s' } },
    });
    await fleet.waitUntilConnected();
    const nurses = fleet.badges.map((b) => b.deviceId);
    await first.close();
    await expect.poll(() => fleet.summary().reconnecting, { timeout: 5_000 }).toBe(3);
    expect(fleet.summary()).toMatchObject({ online: 0, offline: 0 });
    // Meanwhile the stub's clock cannot move, and the fleet says why.
    await expect(fleet.advanceBy(1_000)).rejects.toThrow(
      /the stub at http:\S+ is unreachable \(\w+\); 3 of 3 badges are reconnecting/,
    );

    await using second = await startStub({ port });
    await expect
      .poll(() => onlineOnStub(second.url), { timeout: 20_000, interval: 100 })
      .toEqual(nurses);
    await expect.poll(() => fleet.summary().online, { timeout: 5_000 }).toBe(3);
    expect(fleet.summary()).toMatchObject({ reconnecting: 0, reconnects: 3, downForMs: 0 });

    const api = `${second.url}/subscribers/100001/api/v1`;
    const auth = { authorization: `ServiceApiKey ${RIVERSIDE.key}` };
    await request(`${api}/alerts`, {
      method: 'POST',
      headers: auth,
      body: { notification: 'After the restart', groups: ['Nurses'] },
    });
    await fleet.advanceBy(60_000);
    const events = (await request<any[]>(`${api}/events`, { headers: auth })).body;
    expect(events.map((e) => `${e.content.type}@${seconds(e.timestamp)}`)).toEqual([
      'start@0',
      'acknowledged@12',
      'acknowledged@12',
      'acknowledged@12',
      'end@12',
    ]);
    expect(fleet.transcript(nurses[0]!).map((e) => `${e.text}@${seconds(e.at)}`)).toEqual([
      'After the restart@0',
    ]);
  });

  test('a hello refused after the restart (the key changed) stops that badge: no reconnect loop', async () => {
    const port = await freePort();
    await using first = await startStub({ port });
    await using fleet = await startFleet({
      stub: first.url,
      group: 'Nurses',
      reconnect: { initialMs: 10, maxMs: 40 },
    });
    await fleet.waitUntilConnected();
    await first.close();
    const fixtures: Fixtures = structuredClone(loadFixturesFile(DEFAULT_FIXTURES_FILE));
    const ben = fixtures.accounts[0]!.devices.find((d) => d.id === '350000000000002')!;
    ben.key = 'a-new-key';
    await using second = await startStub({ port, fixtures });
    let upgrades = 0;
    second.app.server.on('upgrade', () => upgrades++);
    await expect
      .poll(() => fleet.summary(), { timeout: 10_000 })
      .toMatchObject({ online: 2, reconnecting: 0, offline: 1, refused: 1 });
    expect(fleet.badge('350000000000002').gaveUpOn).toBe(4001);
    expect(fleet.badge('350000000000002').errors.at(-1)?.code).toBe('invalid_key');
    const after = upgrades;
    // A loop would try again every 10–40 ms: a quarter of a second of real time would show it.
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(upgrades).toBe(after);
    expect(fleet.status('350000000000002')).toBe('offline');
    expect(await onlineOnStub(second.url)).toEqual(['350000000000001', '350000000000003']);
  });

  test('a connection replaced by another of the same device (4003) does not take it back', async () => {
    await using stub = await startStub();
    // One session for both, as when a fleet process restarts with the session it had.
    const options = { stub: stub.url, devices: ['350000000000001'], session: 'night-shift' };
    await using older = await startFleet({ ...options, reconnect: { initialMs: 10, maxMs: 40 } });
    await older.waitUntilConnected();
    await using newer = await startFleet(options);
    await newer.waitUntilConnected();
    await expect
      .poll(() => older.summary(), { timeout: 5_000 })
      .toMatchObject({ online: 0, reconnecting: 0, refused: 1 });
    expect(older.badge('350000000000001').gaveUpOn).toBe(4003);
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(newer.summary()).toMatchObject({ online: 1, reconnects: 0 });
    expect(older.summary().online).toBe(0);
  });

  test('two fleets never claim one device: another fleet is refused (device_claimed); shards split the devices between them', async () => {
    await using stub = await startStub();
    await using first = await startFleet({ stub: stub.url, group: 'Nurses' });
    await first.waitUntilConnected();
    // The other fleet may be leaving: a few tries on the backoff (about 3 s), then it gives up.
    await using second = await startFleet({
      stub: stub.url,
      group: 'Nurses',
      reconnect: { initialMs: 10, maxMs: 40 },
    });
    await expect
      .poll(() => second.summary(), { timeout: 5_000 })
      .toMatchObject({ online: 0, refused: second.badges.length });
    for (const badge of second.badges) {
      expect(badge.gaveUpOn).toBe(4010);
      expect(badge.errors.map((e) => e.code)).toContain('device_claimed');
    }
    expect(first.summary()).toMatchObject({ online: first.badges.length, reconnects: 0 });
    await second.close();
    // A fleet that starts as another leaves gets the devices: its tries outlast the close.
    const closing = first.close();
    await using next = await startFleet({ stub: stub.url, group: 'Nurses' });
    await closing;
    await next.waitUntilConnected();
    expect(next.summary()).toMatchObject({ online: next.badges.length, refused: 0 });
    await next.close();

    // Shards of one selection: disjoint, together all of it, each online in its own fleet.
    const shards = [];
    for (const index of [1, 2, 3]) {
      const fleet = await startFleet({ stub: stub.url, shard: { index, total: 3 } });
      await fleet.waitUntilConnected();
      shards.push(fleet);
    }
    const ids = shards.flatMap((f) => f.badges.map((b) => b.deviceId));
    expect(new Set(ids).size).toBe(ids.length);
    const all = (await stub.app.gateway.connected()).sort();
    expect([...ids].sort()).toEqual(all);
    expect(all.length).toBeGreaterThanOrEqual(6);
    for (const fleet of shards) {
      expect(fleet.summary()).toMatchObject({ online: fleet.badges.length, refused: 0 });
      await fleet.close();
    }
  });

  test('closing the fleet while badges wait to reconnect leaves no timer: the process ends at once', async () => {
    // A process of its own: only its exit shows that nothing keeps it alive.
    const index = fileURLToPath(new URL('../../index.ts', import.meta.url));
    const script = `
      import { startFleet, startStub } from ${JSON.stringify(index)};
      const stub = await startStub();
      const fleet = await startFleet({
        stub: stub.url,
        group: 'Nurses',
        reconnect: { initialMs: 20_000, maxMs: 20_000 },
      });
      await fleet.waitUntilConnected();
      await stub.close();
      while (fleet.summary().reconnecting < 3) await new Promise((r) => setTimeout(r, 10));
      await fleet.close();
      console.log('closed');
    `;
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
    });
    child.stderr.on('data', (chunk) => {
      err += chunk;
    });
    const exited = once(child, 'exit');
    try {
      await expect.poll(() => out + err, { timeout: 30_000 }).toMatch(/closed|Error/);
      expect(err).toBe('');
      const closedAt = performance.now();
      const [code] = await exited;
      expect(code).toBe(0);
      // A reconnect timer left behind would hold the process for 10–20 s.
      expect(performance.now() - closedAt).toBeLessThan(3_000);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
