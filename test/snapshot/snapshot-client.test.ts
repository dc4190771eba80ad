/**
 * `StubControlClient.snapshot()` and `.restore()` over real HTTP (issue 32, point 2): a test
 * written against the control client takes a world from one stub and gives it back to
 * another, which then serves the same tasks, events and transcripts and goes on alike; what
 * it asks for (`secrets`, `include`) reaches the stub, and a refusal is a ServiceError naming
 * the field, the stub unchanged (WS1, WS6, WS7, WS17).
 */
import { describe, expect, test } from 'vitest';
import { StubControlClient } from '../../client/control-client.ts';
import { ServiceError } from '../../client/service-client.ts';
import { OMITTED_SECRET, SNAPSHOT_FORMAT } from '../../protocol/snapshot.schema.ts';
import { type StubHandle, startStub } from '../../server-stub/start-stub.ts';
import { serviceClient } from '../support/http.ts';

const DEVICE = '350000000000001';

/** A stub with an alert half acknowledged, 45 s on. */
async function busyStub(): Promise<{ stub: StubHandle; control: StubControlClient }> {
  const stub = await startStub({ seed: 7 });
  const control = new StubControlClient(stub.url);
  await serviceClient(stub).alert({ notification: 'Code blue', groups: ['Nurses'], quorum: 2 });
  await control.tap(DEVICE);
  await control.advance(45_000);
  return { stub, control };
}

/** What a user of the control client sees of a stub. */
async function seen(stub: StubHandle, control: StubControlClient) {
  return {
    tasks: await control.tasks(),
    events: (await serviceClient(stub).events()).body,
    transcript: await control.transcript(DEVICE),
    clock: (await control.clock()).now,
  };
}

describe('StubControlClient.snapshot() and .restore()', () => {
  test('take a world from one stub, give it to another: the same tasks, events, transcripts and clock, and both go on alike', async () => {
    const { stub, control } = await busyStub();
    await using _original = stub;
    await using other = await startStub();
    const otherControl = new StubControlClient(other.url);
    const world = await control.snapshot();
    expect(world.format).toBe(SNAPSHOT_FORMAT);
    const health = await otherControl.restore(world);
    expect(health.status).toBe('ok');
    expect(await seen(other, otherControl)).toEqual(await seen(stub, control));
    // Going on: a repeat comes, the next alert takes the next id, in both.
    for (const [s, c] of [
      [stub, control],
      [other, otherControl],
    ] as const) {
      await c.advance(60_000);
      await serviceClient(s).alert({ notification: 'Second', groups: ['Nurses'] });
    }
    expect(await seen(other, otherControl)).toEqual(await seen(stub, control));
    expect(JSON.stringify(await otherControl.snapshot())).toBe(
      JSON.stringify(await control.snapshot()),
    );
  });

  test('asks for what it is told: secrets omitted, the journal and the recording included', async () => {
    const { stub, control } = await busyStub();
    await using _stub = stub;
    const plain = await control.snapshot();
    expect(plain.journal).toBeUndefined();
    expect(plain.secrets).toBe('included');
    const shared = await control.snapshot({ secrets: 'omit', include: ['journal', 'recording'] });
    expect(shared.secrets).toBe('omitted');
    expect(JSON.stringify(shared.fixtures)).toContain(OMITTED_SECRET);
    // The POST of the alert, as the journal kept it.
    expect((shared.journal as { entries: unknown[] }).entries.length).toBeGreaterThan(0);
    expect(shared.recording).toBeDefined();
  });

  test('a snapshot that does not restore: a ServiceError with the 400 naming the field, the stub unchanged', async () => {
    const { stub, control } = await busyStub();
    await using _stub = stub;
    const before = JSON.stringify(await control.snapshot());
    const shared = await control.snapshot({ secrets: 'omit' });
    const refused = await control.restore(shared).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ServiceError);
    expect((refused as ServiceError).status).toBe(400);
    expect((refused as ServiceError).body).toMatchObject({
      code: 'invalid_snapshot',
      field: 'secrets',
    });
    expect(JSON.stringify(await control.snapshot())).toBe(before);
  });
});
