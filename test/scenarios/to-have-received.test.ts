/** `await expect(stub).toHaveReceived({...})`: the request journal checked from a test. */
import { describe, expect, test } from 'vitest';
import { StubControlClient } from '../../client/control-client.ts';
import { startStub } from '../../server-stub/start-stub.ts';
import { InProcessStubConnection } from '../../stub-connection/in-process-stub-connection.ts';
import '../../scenarios/vitest.ts';
import { RIVERSIDE, serviceClient } from '../support/http.ts';

describe('toHaveReceived', () => {
  test('passes for a stub handle, a connection and a control client alike, and with .not', async () => {
    await using stub = await startStub();
    await serviceClient(stub).alert({ notification: 'Spill', groups: ['Nurses'] });
    const client = new StubControlClient(stub.url);
    const connection = new InProcessStubConnection(stub, { control: () => client });
    const matcher = {
      method: 'POST',
      path: '/subscribers/{id}/api/v1/alerts',
      body: { groups: ['Nurses'] },
      status: 200,
      count: 1,
    };
    await expect(stub).toHaveReceived(matcher);
    await expect(connection).toHaveReceived(matcher);
    await expect(client).toHaveReceived(matcher);
    await expect(stub).not.toHaveReceived({ path: '**/broadcasts' });
  });

  test('a failure names the matcher, the count and the closest requests with their differences', async () => {
    await using stub = await startStub();
    await serviceClient(stub).alert({ notification: 'Spill', groups: ['Nurses'] });
    await expect(
      expect(stub).toHaveReceived({ path: '**/alerts', body: { notification: 'Fire' } }),
    ).rejects.toThrow(
      `the stub did not receive any method **/alerts body ⊇ {"notification":"Fire"} × at least 1: 0 of 1 requests matched, expected at least 1; closest:\n  #1 POST /subscribers/${RIVERSIDE.id}/api/v1/alerts → 200 {"notification":"Spill","groups":["Nurses"]} — body.notification is "Spill", expected "Fire"`,
    );
    await expect(expect(stub).not.toHaveReceived({ method: 'post' })).rejects.toThrow(
      `expected the stub not to have received POST any path × at least 1, but it did:\n  #1 POST`,
    );
    await expect(expect(stub).toHaveReceived({ method: 'POST', count: 0 })).rejects.toThrow(
      `the stub did not receive POST any path × exactly 0: 1 of 1 requests matched, expected exactly 0; matching:\n  #1 POST`,
    );
  });

  test('a matcher or a subject it cannot use is a TypeError naming what is wrong', async () => {
    await using stub = await startStub();
    await expect(expect(stub).toHaveReceived({ verb: 'GET' } as never)).rejects.toThrow(
      'badge-sim: toHaveReceived: verb is not a field of a request matcher',
    );
    await expect(expect(stub).toHaveReceived({ count: -1 })).rejects.toThrow(
      'badge-sim: toHaveReceived: count',
    );
    await expect(expect(stub).toHaveReceived({ path: '/a*b' })).rejects.toThrow(
      "badge-sim: request matcher: path '/a*b' has 'a*b'",
    );
    await expect(expect('http://x').toHaveReceived({})).rejects.toThrow(
      'toHaveReceived reads the journal of a StubHandle, a StubConnection or a StubControlClient',
    );
  });
});
