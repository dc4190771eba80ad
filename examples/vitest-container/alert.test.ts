// A test of the run that shares the container: the URL comes from the global setup.
import { StubControlClient } from 'badge-sim';
import { expect, inject, test } from 'vitest';

const url = inject('badgeSimUrl');
// The module locks the control API with a random token; the client sends it.
const control = new StubControlClient(url, { controlToken: inject('badgeSimControlToken') });

test('an alert to the Security group starts, and a tap acknowledges it', async () => {
  await control.reset(); // every test starts from the fixtures
  const answer = await fetch(`${url}/subscribers/100001/api/v1/alerts`, {
    method: 'POST',
    headers: {
      authorization: 'ServiceApiKey demo-api-key-riverside-0001',
      'content-type': 'application/json',
    },
    body: JSON.stringify({ notification: 'Spill in aisle 3', groups: ['Security'], quorum: 1 }),
  });
  expect(answer.status).toBe(200);
  const { task_id } = (await answer.json()) as { task_id: string };
  await control.tap('350000000000005'); // Rosa Lindqvist presses her talk button
  expect(await control.task(task_id)).toMatchObject({ state: 'ended', outcome: 'quorum' });
});
