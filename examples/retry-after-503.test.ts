// Test your client's retry behaviour: the stub answers 503 twice, the journal shows every try.
// Run it: npx vitest run examples/retry-after-503.test.ts
import { StubControlClient, startStub } from 'badge-sim';
import 'badge-sim/vitest';
import { expect, test } from 'vitest';

// Your software: sends an alert; on 429 or 503 it waits Retry-After seconds and tries again,
// three tries in all. `sleep` is injectable, so a test does not wait in real time.
async function sendAlert(
  apiUrl: string,
  apiKey: string,
  body: object,
  sleep = (seconds: number) => new Promise((resolve) => setTimeout(resolve, seconds * 1000)),
): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    const response = await fetch(`${apiUrl}/alerts`, {
      method: 'POST',
      headers: { Authorization: `ServiceApiKey ${apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (response.ok) return ((await response.json()) as { task_id: string }).task_id;
    if (attempt === 3 || ![429, 503].includes(response.status))
      throw new Error(`alert refused with ${response.status} after ${attempt} tries`);
    await sleep(Number(response.headers.get('retry-after') ?? '1'));
  }
}

test('retries twice after 503, waiting as told, and creates one alert', async () => {
  await using stub = await startStub(); // default fixtures: account 100001, group Nurses
  const control = new StubControlClient(stub.url);
  // The next two POST alerts of any account get 503 with Retry-After: 5; nothing is stored.
  await control.addFault({
    match: { method: 'POST', path: '/subscribers/*/api/v1/alerts' },
    action: { status: 503, retry_after: 5 },
    when: { times: 2 },
  });

  const waits: number[] = [];
  const taskId = await sendAlert(
    `${stub.url}/subscribers/100001/api/v1`,
    'demo-api-key-riverside-0001',
    { notification: 'Code blue ward 3', groups: ['Nurses'] },
    async (seconds) => void waits.push(seconds),
  );

  expect(waits).toEqual([5, 5]); // it honoured Retry-After both times
  // Three tries reached the stub: two answered by the fault, the last one let through.
  await expect(stub).toHaveReceived({ method: 'POST', path: '**/alerts', fault: true, count: 2 });
  await expect(stub).toHaveReceived({ method: 'POST', path: '**/alerts', status: 200, count: 1 });
  // ...and only the last created an alert.
  expect((await control.tasks()).map((task) => task.task_id)).toEqual([taskId]);
});
