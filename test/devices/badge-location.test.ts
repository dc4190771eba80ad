/**
 * A badge online has a location (issue 31 point 10, decision D16): a virtual badge reports one
 * in its hello (its fixture's, else its account's site) and again as it moves, so device info
 * (`device_details.location`) always carries a position and the time it was reported. The
 * official JS SDK (`@relaypro/sdk` 2.4.0, unmodified) reads it over the stub's TLS and gets a
 * valid date: it appends `Z` to that time and parses it.
 */
import https from 'node:https';
import { createRequire } from 'node:module';
import { describe, expect, test } from 'vitest';
import { TriggerClient } from '../../client/trigger-client.ts';
import { accountSite, SITE_ACCURACY_M } from '../../fixtures/badge-location.ts';
import { DEFAULT_FIXTURES_FILE, loadFixturesFile } from '../../fixtures/load-fixtures.ts';
import { type StubHandle, startStub } from '../../server-stub/start-stub.ts';
import { startFleet } from '../../simulator/fleet.ts';
import { HARBOUR, RIVERSIDE } from '../support/http.ts';

const BEN = '350000000000002';
const ADA = '350000000000001';
const KAI = '350000000000101';
const START = '2026-01-01T00:00:00.000000';

function deviceInfo(stub: StubHandle, deviceId: string, account: { id: string } = RIVERSIDE) {
  const refreshToken =
    account.id === RIVERSIDE.id
      ? 'demo-refresh-token-riverside-pro-0001'
      : 'demo-refresh-token-harbour-pro-0002';
  const client = new TriggerClient({
    apiHost: stub.url,
    authUrl: stub.url,
    clientId: 'badge-sim-pro-sdk',
    refreshToken,
    subscriberId: account.id,
  });
  return client.deviceInfo(deviceId);
}

describe('a virtual badge reports where it is (D16)', () => {
  test('without a fixture location it reports its account’s site on connecting: device info has the position and the time', async () => {
    await using stub = await startStub();
    await using fleet = await startFleet({ stub, devices: [BEN, KAI] });
    await fleet.waitUntilConnected();
    const ben = (await deviceInfo(stub, BEN)).device_details.location;
    const site = accountSite(RIVERSIDE.id);
    expect(ben).toMatchObject({ ...site, accuracy: SITE_ACCURACY_M, timestamp: START });
    expect(Math.abs(site.lat)).toBeLessThanOrEqual(90);
    // Another account, another site; the same account, the same one in every process.
    const kai = (await deviceInfo(stub, KAI, HARBOUR)).device_details.location;
    expect(kai).toMatchObject({ ...accountSite(HARBOUR.id), timestamp: START });
    expect([kai.lat, kai.long]).not.toEqual([ben.lat, ben.long]);
    expect(accountSite(RIVERSIDE.id)).toEqual(site);
  });

  test('a fixture location is what the badge reports; moving reports the new place and time', async () => {
    const fixtures = loadFixturesFile(DEFAULT_FIXTURES_FILE);
    const ward = { lat: 51.5, long: -0.12, accuracy: 12, address: 'Ward 3' };
    fixtures.accounts[0]!.devices.find((d) => d.id === ADA)!.location = ward;
    await using stub = await startStub({ fixtures });
    await using fleet = await startFleet({ stub, devices: [ADA] });
    await fleet.waitUntilConnected();
    expect((await deviceInfo(stub, ADA)).device_details.location).toMatchObject({
      ...ward,
      timestamp: START,
    });

    await fleet.advanceBy(90_000);
    fleet.badge(ADA).moveTo({ lat: 51.51, long: -0.13, address: 'Pharmacy' });
    await expect.poll(() => stub.app.gateway.liveState(ADA).location?.address).toBe('Pharmacy');
    expect((await deviceInfo(stub, ADA)).device_details.location).toMatchObject({
      lat: 51.51,
      long: -0.13,
      accuracy: null,
      address: 'Pharmacy',
      timestamp: '2026-01-01T00:01:30.000000',
    });
  });
});

describe('the official JS SDK reads the location of an online badge', () => {
  test('@relaypro/sdk fetchDevice over the stub’s TLS: location.date is a valid date, the time the badge reported', async () => {
    // The SDK's own hosts (it cannot be told others): on the stub's certificate, and reached
    // on the stub's port, as a hosts file and a port forward would.
    const AUTH_HOST = 'auth.relaygo.com';
    const API_HOST = 'all-main-pro-ibot.nocell.io';
    await using stub = await startStub({
      tls: { names: [AUTH_HOST, API_HOST] },
      settings: { brandWord: 'relaypro', environments: { pro: { sdkClientId: 'TgDsXRuD' } } },
    });
    await using fleet = await startFleet({ stub, devices: [BEN] });
    await fleet.waitUntilConnected();

    const agent = new https.Agent({ ca: stub.tls!.caPem! });
    const connect = agent.createConnection.bind(agent);
    agent.createConnection = (options, callback) =>
      connect({ ...options, host: '127.0.0.1', port: stub.port }, callback);
    const globalAgent = https.globalAgent;
    https.globalAgent = agent;
    try {
      const RelayApi = createRequire(import.meta.url)('@relaypro/sdk/dist/api.js').default;
      const api = new RelayApi(RIVERSIDE.id, 'demo-refresh-token-riverside-pro-0001');
      const device = await api.fetchDevice(BEN);
      expect(device.status).toBe('online');
      expect(device.location.date).not.toBe('Invalid Date');
      expect(device.location.date).toBe('Thu, 01 Jan 2026 00:00:00 GMT');
      expect(device.location).toMatchObject({
        lat: accountSite(RIVERSIDE.id).lat,
        long: accountSite(RIVERSIDE.id).long,
      });
    } finally {
      https.globalAgent = globalAgent;
      agent.destroy();
    }
  });
});
