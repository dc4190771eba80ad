import { describe, expect, test } from 'vitest';
import { DEFAULT_FIXTURES_FILE, loadFixturesFile } from '../fixtures/load-fixtures.ts';
import type { RecordLine } from '../protocol/recording.schema.ts';
import { SessionRecorder, withoutSecrets } from './recorder.ts';

describe('SessionRecorder', () => {
  test('off until started; a reserved place orders a record before what came between; the sinks get records as they are made', () => {
    let now = Date.UTC(2026, 0, 1);
    const recorder = new SessionRecorder(() => now, 100);
    recorder.add('tap', { device: 'before it started' });
    expect(recorder.list().records).toEqual([]);
    recorder.start();
    const written: string[] = [];
    recorder.pipe((line, text) => {
      expect(JSON.parse(text)).toEqual(line);
      written.push(line.kind);
    });
    const place = recorder.reserve();
    now += 1000;
    recorder.add('event', { event: {} });
    recorder.add('request', { request: {}, seq: 99, kind: 'end' }, place);
    expect(written).toEqual(['event', 'request']);
    const { records } = recorder.list();
    expect(records.map((r: RecordLine) => [r.kind, r.seq, r.time])).toEqual([
      ['request', 1, '2026-01-01T00:00:00.000000Z'],
      ['event', 2, '2026-01-01T00:00:01.000000Z'],
    ]);
  });

  test('the commands sent to badges in one turn are one record a command, with its devices in order, at the place of its first sending (RS17)', async () => {
    let now = Date.UTC(2026, 0, 1);
    const recorder = new SessionRecorder(() => now, 100);
    recorder.sent('A', { type: 'play', taskId: 't', name: 'n', text: 'Spill', repeat: 0 });
    expect(recorder.list().records).toEqual([]);
    recorder.start();
    const play = { type: 'play', taskId: 't', name: 'n', text: 'Spill', repeat: 0 } as const;
    recorder.sent('A', play);
    recorder.sent('A', { type: 'stop', taskId: 't', cause: 'quorum' });
    now += 1;
    recorder.add('event', { event: {} });
    recorder.sent('B', { ...play });
    recorder.sent('B', { type: 'stop', taskId: 't', cause: 'quorum' });
    // Written once the turn is over (or when the recording is read or ends).
    await Promise.resolve();
    recorder.sent('C', play);
    recorder.end();
    expect(recorder.list().records.map(({ seq, time, ...r }) => [seq, r])).toEqual([
      [
        1,
        {
          kind: 'command',
          devices: ['A', 'B'],
          command: 'play',
          task_id: 't',
          name: 'n',
          text: 'Spill',
          repeat: 0,
        },
      ],
      [2, { kind: 'command', devices: ['A', 'B'], command: 'stop', task_id: 't', cause: 'quorum' }],
      [3, { kind: 'event', event: {} }],
      [
        4,
        {
          kind: 'command',
          devices: ['C'],
          command: 'play',
          task_id: 't',
          name: 'n',
          text: 'Spill',
          repeat: 0,
        },
      ],
      [5, { kind: 'end', dropped: 0 }],
    ]);
  });

  test('past the record limit or the character budget, records are dropped and counted; capped and end are kept', () => {
    const byCount = new SessionRecorder(() => 0, 2);
    byCount.start();
    for (let i = 0; i < 5; i++) byCount.add('tap', { device: String(i) });
    byCount.end();
    expect(byCount.list().records.map((r) => r.kind)).toEqual(['tap', 'tap', 'capped', 'end']);
    expect(byCount.list().dropped).toBe(3);
    expect(byCount.list().records.at(-1)).toMatchObject({ dropped: 3 });

    const bySize = new SessionRecorder(() => 0, 1_000, 200);
    bySize.start();
    bySize.add('tap', { device: 'small' });
    bySize.add('tap', { device: 'x'.repeat(300) });
    bySize.add('tap', { device: 'small again' });
    // Once full, a smaller record does not slip in after: no holes.
    expect(bySize.list().records.map((r) => r.kind)).toEqual(['tap', 'capped']);
    expect(bySize.list().dropped).toBe(2);
  });

  test('the fixtures it records have a stand-in for every key and token', () => {
    const fixtures = loadFixturesFile(DEFAULT_FIXTURES_FILE);
    const text = JSON.stringify(withoutSecrets(fixtures));
    for (const account of fixtures.accounts) {
      for (const key of account.api_keys) expect(text).not.toContain(key);
      for (const token of account.refresh_tokens ?? []) expect(text).not.toContain(token.token);
      for (const device of account.devices) if (device.key) expect(text).not.toContain(device.key);
    }
    expect(withoutSecrets(fixtures).accounts[1]!.api_keys).toEqual(['recorded-api-key-100002-1']);
  });
});
