// Makes events.json, the customer export of the README's worked example "Reproducing a field
// bug": what Riverside Hospital's software and two pharmacists did one morning, on a seeded stub
// on the virtual clock (the same ids and times on every run), exported as GET events answers it.
// Run it: node --import tsx examples/field-bug/make-export.ts > examples/field-bug/events.json
import { ServiceClient, startFleet, startStub } from '../../index.ts';

const LENA = '350000000000003'; // Lena Ortiz and Omar Haddad: group Pharmacy of the default fixtures
const OMAR = '350000000000004';

await using stub = await startStub({ seed: 15, startTime: Date.parse('2026-03-12T09:41:07Z') });
await using fleet = await startFleet({ stub, devices: [LENA, OMAR] });
await fleet.waitUntilConnected();
const software = new ServiceClient({
  baseUrl: stub.url,
  subscriberId: '100001',
  apiKey: 'demo-api-key-riverside-0001',
});

/** Moves the clock to `seconds` after the first alert, then does what happened then. */
let now = 0;
async function at(seconds: number, happened: () => unknown): Promise<void> {
  await fleet.advanceBy((seconds - now) * 1000);
  now = seconds;
  await happened();
  await fleet.settled();
}

// The spill's text takes about 6 s to say, so the meds alert 4 s later waits behind it, and
// Lena's tap at 5 s, meant for the meds, acknowledges the spill she is still hearing.
await at(0, () =>
  software.alert({
    name: 'spill',
    notification: 'Chemical spill in the pharmacy store room. Keep clear and bring the spill kit.',
    groups: ['Pharmacy'],
  }),
);
await at(4, () =>
  software.alert({ name: 'meds', notification: 'Meds for bed four', groups: ['Pharmacy'] }),
);
await at(5, () => fleet.badge(LENA).tap());
await at(12, () => fleet.badge(OMAR).tap());
await at(36, () => fleet.badge(LENA).tap());
await at(45, () => fleet.badge(OMAR).tap());
await at(60, () => {});

console.log(JSON.stringify(await software.events(), null, 2));
