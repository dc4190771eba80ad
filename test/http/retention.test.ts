/**
 * Over HTTP: a task that ended more than 7 days ago is forgotten, as if it never existed
 * (docs/decisions.md H1). On the virtual clock.
 */
import { expect, test } from 'vitest';
import { startStub } from '../../server-stub/start-stub.ts';
import { controlClient, serviceClient } from '../support/http.ts';

test('a task ended more than 7 days ago answers 404 to GET /_stub/tasks/:id and DELETE, and is not listed', async () => {
  await using stub = await startStub({ seed: 3 });
  const api = serviceClient(stub);
  const control = controlClient(stub);
  const old = (await api.alert({ notification: 'old', groups: ['Nurses'], timeout: 60 })).body
    .task_id as string;
  await control.advance('1m'); // it times out now
  await control.advance('7d');
  const recent = (await api.alert({ notification: 'recent', groups: ['Nurses'], timeout: 60 })).body
    .task_id as string;
  // Exactly 7 days after it ended: still known, and ended.
  expect((await control.task(old)).body).toMatchObject({ state: 'ended' });
  expect((await api.cancel(old)).status).toBe(409);

  await control.advance(1);

  const get = await control.task(old);
  expect(get.status).toBe(404);
  expect(get.body).toMatchObject({ code: 'unknown_task' });
  const del = await api.cancel(old);
  expect(del.status).toBe(404);
  expect(del.body).toMatchObject({ code: 'unknown_task' });
  expect((await control.tasks()).body.map((t) => t.task_id)).toEqual([recent]);
});
