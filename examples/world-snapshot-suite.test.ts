// Prepare a world once, start each test of a suite from it: the stub's world and the badges it
// runs, in one file. Run it: npx vitest run examples/world-snapshot-suite.test.ts
import { mkdtempSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceClient, StubControlClient, startStub } from 'badge-sim';
import { beforeAll, expect, test } from 'vitest';

const world = join(mkdtempSync(join(tmpdir(), 'suite-')), 'world.snapshot.json');

// Once (a global setup would do too): Code blue to the Nurses, two acknowledgements needed,
// Ada's in, the clock 45 s on; the world and the Nurses' badges written to one file.
beforeAll(async () => {
  await using stub = await startStub({ seed: 1, badges: 'Nurses' });
  const api = new ServiceClient({
    baseUrl: stub.url,
    subscriberId: '100001',
    apiKey: 'demo-api-key-riverside-0001',
  });
  await api.alert({ notification: 'Code blue', groups: ['Nurses'], quorum: 2, timeout: 120 });
  const control = new StubControlClient(stub.url);
  await control.tap('350000000000001'); // Ada
  await control.advance('45s');
  await writeFile(world, JSON.stringify(await control.snapshot({ include: ['badges'] })));
});

// Each test: a stub of its own, its badges carried on, 45 s into the alert.
test('a second acknowledgement meets the quorum', async () => {
  await using stub = await startStub({ badges: 'Nurses', snapshot: world });
  const control = new StubControlClient(stub.url);
  await control.tap('350000000000003'); // Lena
  const [task] = await control.tasks();
  expect(task).toMatchObject({ state: 'ended', outcome: 'quorum', acknowledgements: 2 });
});

test('nobody else answers: the timeout ends it', async () => {
  await using stub = await startStub({ badges: 'Nurses', snapshot: world });
  const control = new StubControlClient(stub.url);
  await control.advance('75s');
  const [task] = await control.tasks();
  expect(task).toMatchObject({ state: 'ended', outcome: 'timed_out', acknowledgements: 1 });
});
