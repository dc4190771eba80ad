/** The session recording over a real port: what `GET /_stub/recording` holds, in order, and how it begins again. */
import { describe, expect, test } from 'vitest';
import { StubControlClient } from '../../client/control-client.ts';
import type { RecordLine } from '../../protocol/recording.schema.ts';
import { type StubHandle, startStub } from '../../server-stub/start-stub.ts';
import { startFleet } from '../../simulator/fleet.ts';
import { controlClient, RIVERSIDE, serviceClient } from '../support/http.ts';

/** Requests are recorded when their answer has gone: a transport guard, at most 2 s of real time. */
async function recordedOnce(stub: StubHandle, has: (records: RecordLine[]) => boolean) {
  const control = new StubControlClient(stub.url);
  for (let waited = 0; waited < 2_000; waited += 10) {
    const recording = await control.recording();
    if (has(recording.records)) return recording;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return control.recording();
}

describe('GET /_stub/recording', () => {
  test('a session record with the fixtures first, then requests, badges, taps, the clock and events in order; no secret anywhere', async () => {
    await using stub = await startStub({ seed: 1, record: true });
    await using fleet = await startFleet({ stub, devices: ['350000000000001'] });
    await fleet.waitUntilConnected();
    const created = await serviceClient(stub).alert({
      notification: 'Spill',
      groups: ['Nurses'],
      name: 'spill',
      key: 'a-secret-in-a-body',
    });
    expect(created.status).toBe(400);
    const alert = await serviceClient(stub).alert({ notification: 'Spill', groups: ['Nurses'] });
    await controlClient(stub).advance('5s');
    await controlClient(stub).tap('350000000000001');
    const { records, dropped, limit } = await recordedOnce(
      stub,
      (records) => records.filter((r) => r.kind === 'request').length === 2,
    );
    expect({ dropped, limit }).toEqual({ dropped: 0, limit: 20_000 });
    expect((await new StubControlClient(stub.url).recording()).recording).toBe(true);
    const text = JSON.stringify(records);
    for (const secret of [
      RIVERSIDE.key,
      'badge-key-0001',
      'demo-refresh-token',
      'a-secret-in-a-body',
    ])
      expect(text).not.toContain(secret);
    expect(records[0]).toMatchObject({
      seq: 1,
      kind: 'session',
      reason: 'start',
      clock: { mode: 'virtual' },
    });
    expect((records[0]!.fixtures as any).accounts[0].api_keys).toEqual([
      'recorded-api-key-100001-1',
    ]);
    const seen = records
      .slice(1)
      .map((r) =>
        r.kind === 'request'
          ? `request ${(r.request as any).status}`
          : r.kind === 'event'
            ? `event ${(r.event as any).content.type}`
            : r.kind === 'tap'
              ? `tap ${r.via} ${r.result} ${r.task_id === alert.body.task_id}`
              : r.kind === 'command'
                ? `command ${r.command} ${r.cause ?? r.text} to ${r.devices}`
                : r.kind,
      );
    expect(seen).toEqual([
      'connect',
      'request 400',
      // A request takes its place when it arrives: before the events it caused.
      'request 200',
      'event start',
      // What the stub sent the connected badge (RS17): one record a command and turn.
      'command play Spill to 350000000000001',
      'clock',
      'event acknowledged',
      'command stop acknowledged to 350000000000001',
      'tap control acknowledged true',
    ]);
    expect(records.map((r) => r.seq)).toEqual(records.map((_, i) => i + 1));
    expect(records.at(-1)!.time).toBe('2026-01-01T00:00:05.000000Z');
  });

  test('off until started: POST starts afresh with a session record, a reset begins a new session, DELETE stops and empties it', async () => {
    await using stub = await startStub({ seed: 1 });
    const control = new StubControlClient(stub.url);
    await serviceClient(stub).events();
    expect(await control.recording()).toEqual({
      recording: false,
      records: [],
      dropped: 0,
      limit: 20_000,
    });
    expect(await control.startRecording()).toEqual({ removed: 0 });
    await serviceClient(stub).events();
    await recordedOnce(stub, (records) => records.length === 2);
    await controlClient(stub).reset();
    const { records } = await control.recording();
    expect(records.map((r) => r.reason ?? r.kind)).toEqual(['start', 'request', 'reset']);
    expect(await control.startRecording()).toEqual({ removed: 3 });
    expect(await control.stopRecording()).toEqual({ removed: 1 });
    await serviceClient(stub).events();
    expect(await control.recording()).toMatchObject({ recording: false, records: [] });
  });

  test('a new session begins with the badges connected already, so a replay of it runs them', async () => {
    await using stub = await startStub({ seed: 1 });
    await using fleet = await startFleet({ stub, devices: ['350000000000001'] });
    await fleet.waitUntilConnected();
    const control = new StubControlClient(stub.url);
    await control.startRecording();
    await controlClient(stub).reset();
    const { records } = await control.recording();
    expect(records.map((r) => [r.kind, r.reason ?? r.device])).toEqual([
      ['session', 'start'],
      ['connect', '350000000000001'],
      ['session', 'reset'],
      ['connect', '350000000000001'],
    ]);
    expect(records[3]).toMatchObject({ already: true, replaced: false });
  });
});
