// Trigger an HTTP workflow on a virtual badge with the client, and watch the token expire.
// Run it: node --import tsx examples/workflow-on-a-badge.ts
import { startFleet, startStub, TriggerClient } from 'badge-sim';

const ROSA = '350000000000005'; // Rosa Lindqvist, account 100001 of the default fixtures

await using stub = await startStub(); // default fixtures, virtual clock, a free port
await using fleet = await startFleet({ stub, devices: [ROSA] });
await fleet.waitUntilConnected();

let tokenRequests = 0;
const client = new TriggerClient({
  apiHost: stub.url, // {api_host} of pro; qa is stub.url + '/qa'
  authUrl: stub.url, // {auth_url}
  clientId: 'badge-sim-pro-sdk',
  refreshToken: 'demo-refresh-token-riverside-pro-0001',
  subscriberId: '100001',
  fetch: (url, init) => {
    if (String(url).endsWith('/oauth2/token')) tokenRequests += 1;
    return fetch(url, init);
  },
});

const first = await client.invokeWorkflow('wf_http_page_security', ROSA);
await fleet.settled(); // the badge has been told, and has spoken
const [rosa] = fleet.badges;
console.log(
  `${first.invocation_id} ${first.status}; Rosa heard "${rosa!.transcript.at(-1)!.text}"`,
);

await fleet.advanceBy(2 * 60 * 60 * 1000); // two hours on the stub's clock: the token expires
await client.invokeWorkflow('wf_http_page_security', ROSA); // 401, one refresh, one retry
console.log(`after two hours: invoked again with ${tokenRequests} token requests in all`);

const info = await client.deviceInfo(ROSA);
console.log(
  `device info: ${info.device_label} is ${info.device_status}, battery ${info.device_details.device_info.battery_level}%`,
);
