/**
 * `GET /_stub/kept`: what the stub keeps at most, and what it dropped past a cap before its
 * 7 days were up (decisions H2, H3, H10, V8), for a test or a soak to read.
 */
import { expect, test } from 'vitest';
import { startStub } from '../../server-stub/start-stub.ts';
import { request, serviceClient } from '../support/http.ts';

test('says each cap and what was dropped; a reset counts again from 0', async () => {
  await using stub = await startStub();
  const api = serviceClient(stub);
  // 1,010 broadcasts to the 3 nurses: each transcript keeps 1,000 lines (3 devices: the full cap).
  for (let i = 0; i < 1_010; i += 10) {
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, j) =>
        api.broadcast({ notification: `b${i + j}`, groups: ['Nurses'] }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
  }
  const kept = (await request(`${stub.controlUrl}/kept`)).body;
  expect(kept).toEqual({
    events: { cap_per_account: 50_000, dropped: 0 },
    ended_tasks: { cap: 10_000, recipients_cap: 100_000, kept: expect.any(Number), dropped: 0 },
    transcript_lines: { cap_per_device: 1_000, dropped: 30 },
    invocations: { cap: 10_000, kept: 0, dropped: 0 },
  });
  await request(`${stub.controlUrl}/reset`, { method: 'POST' });
  expect((await request(`${stub.controlUrl}/kept`)).body.transcript_lines.dropped).toBe(0);
});
