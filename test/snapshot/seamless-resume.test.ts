/**
 * A badge restored from the world snapshot its stub was restored from carries on with what it
 * is playing (docs/decisions.md WS35): its hello names the snapshot's instant (`resumes`), and
 * the stub does not play the open alert again. Any other hello is a reconnect (WS8, MB2): a
 * `resumes` of another instant, or once the stub's clock has moved. Raw sockets on a real port.
 */
import { setTimeout as pause } from 'node:timers/promises';
import { describe, expect, test, vi } from 'vitest';
import { type StubHandle, startStub } from '../../server-stub/start-stub.ts';
import { request, serviceClient } from '../support/http.ts';
import { rawBadge } from '../support/raw-badge.ts';

const DEVICE = '350000000000002';

/** A world in which DEVICE is playing an alert (not acknowledged), 45 s in. */
async function worldWithAnAlertPlaying(): Promise<{ world: any; taskId: string }> {
  await using stub = await startStub({ seed: 4 });
  const posted = await serviceClient(stub).alert({
    notification: 'Code blue',
    groups: ['Nurses'],
    timeout: 120,
  });
  await request(`${stub.controlUrl}/clock/advance`, { method: 'POST', body: { by: 45_000 } });
  const world = (await request(`${stub.controlUrl}/snapshot`)).body;
  return { world, taskId: posted.body.task_id };
}

/** Says hello as DEVICE (naming `resumes` if given): the plays it got once its hello is handled. */
async function helloFrom(stub: StubHandle, resumes?: number) {
  const { ws, frames } = await rawBadge(
    stub.devicesUrl,
    DEVICE,
    'badge-key-0002',
    resumes === undefined ? {} : { resumes },
  );
  await vi.waitFor(() => expect(frames.map((f) => f.type)).toContain('handled'));
  // What the stub does on a hello it does before answering it; a moment more for a late frame.
  await pause(50);
  ws.close();
  return frames.filter((f) => f.type === 'play');
}

async function restoredFrom(world: unknown): Promise<StubHandle> {
  const stub = await startStub();
  const put = await request(`${stub.controlUrl}/snapshot`, { method: 'PUT', body: world });
  expect(put.status).toBe(200);
  return stub;
}

describe('a badge restored with its stub carries on (WS35)', () => {
  test('its hello names the snapshot’s instant: the alert it is playing is not played again', async () => {
    const { world } = await worldWithAnAlertPlaying();
    await using stub = await restoredFrom(world);
    expect(await helloFrom(stub, world.clock.now)).toEqual([]);
  });

  test('a hello without it, or naming another instant, is a reconnect: the alert plays again', async () => {
    const { world, taskId } = await worldWithAnAlertPlaying();
    for (const resumes of [undefined, world.clock.now - 1, world.clock.now + 1]) {
      await using stub = await restoredFrom(world);
      const plays = await helloFrom(stub, resumes);
      expect(
        plays.map((p) => p.task_id),
        `resumes ${resumes}`,
      ).toEqual([taskId]);
    }
  });

  test('once the restored stub’s clock has moved (1 ms), the alert plays again', async () => {
    const { world, taskId } = await worldWithAnAlertPlaying();
    await using stub = await restoredFrom(world);
    await request(`${stub.controlUrl}/clock/advance`, { method: 'POST', body: { by: 1 } });
    const plays = await helloFrom(stub, world.clock.now);
    expect(plays.map((p) => p.task_id)).toEqual([taskId]);
  });

  test('a stub that was not restored (reset since) replays to any hello', async () => {
    const { world } = await worldWithAnAlertPlaying();
    await using stub = await restoredFrom(world);
    // New fixtures (the same ones) forget the restore, and the tasks: post the alert again.
    const fixtures = (await request(`${stub.controlUrl}/fixtures`)).body;
    await request(`${stub.controlUrl}/fixtures`, { method: 'PUT', body: fixtures });
    await request(`${stub.controlUrl}/clock/advance`, {
      method: 'POST',
      body: { to: new Date(world.clock.now).toISOString() },
    });
    const again = await serviceClient(stub).alert({
      notification: 'Code blue',
      groups: ['Nurses'],
    });
    const plays = await helloFrom(stub, world.clock.now);
    expect(plays.map((p) => p.task_id)).toEqual([again.body.task_id]);
  });
});
