/**
 * Incomplete input is said (decision RS13): an empty recording, one that is no recording, a
 * last line cut short, and a file without the `end` record a stub writes when it stops.
 */
import { describe, expect, test } from 'vitest';
import { DEFAULT_FIXTURES_FILE, loadFixturesFile } from '../../../fixtures/load-fixtures.ts';
import { scenarioFromRecording } from './from-recording.ts';
import { readRecording } from './read-recording.ts';

const fixtures = loadFixturesFile(DEFAULT_FIXTURES_FILE);
const lines = [
  { seq: 1, time: '2026-01-01T00:00:00.000000Z', kind: 'session', fixtures },
  { seq: 2, time: '2026-01-01T00:00:01.000000Z', kind: 'connect', device: '350000000000001' },
  { seq: 3, time: '2026-01-01T00:00:02.000000Z', kind: 'close', device: '350000000000001' },
  { seq: 4, time: '2026-01-01T00:00:03.000000Z', kind: 'end', dropped: 0 },
].map((record) => JSON.stringify(record));
const whole = `${lines.join('\n')}\n`;

describe('reading a recording', () => {
  test('a whole recording, or a GET /_stub/recording snapshot taken while recording, has nothing missing', () => {
    expect(readRecording(whole, 'r.jsonl').notes).toEqual([]);
    const snapshot = JSON.stringify({
      recording: true,
      records: lines.slice(0, 3).map((l) => JSON.parse(l)),
    });
    expect(readRecording(snapshot, 'r.json')).toMatchObject({ notes: [] });
  });

  test('without its end record: a note with the last seq, and the scenario made of it says so in its header', () => {
    const cut = `${lines.slice(0, 3).join('\n')}\n`;
    const { records, notes } = readRecording(cut, 'r.jsonl');
    expect(records).toHaveLength(3);
    expect(notes).toEqual([
      expect.stringMatching(
        /^the recording stops at seq 3 \(2026-01-01T00:00:02\.000000Z\) with no end record, .*was the stub killed, or the file cut\?/,
      ),
    ]);
    const made = scenarioFromRecording(records, { file: 'r.jsonl', notes });
    expect(made.notes[0]).toBe(notes[0]);
    expect(made.yaml).toContain('# Note: the recording stops at seq 3');
  });

  test.each([
    [
      'an empty file',
      '',
      /^badge-sim: r\.jsonl: the recording is empty: no records \(badge-sim stub --record FILE writes its first/,
    ],
    ['blank lines only', '\n \n', /the recording is empty: no records/],
    [
      'an empty GET /_stub/recording',
      '{"recording": false, "records": []}',
      /the recording is empty \(records: \[\]\): .*POST \/_stub\/recording/,
    ],
    [
      'a scenario given by mistake',
      '# Made by badge-sim record\nname: x\n',
      /^badge-sim: r\.jsonl: not a recording: a recording is JSON lines as badge-sim stub --record writes them.*\(line 1: /,
    ],
    [
      'some other JSON',
      '{"hello": 1}\n',
      /^badge-sim: r\.jsonl:1: not a recording: .*\(its first line is no object with seq, time and kind\)/,
    ],
    [
      'a last line cut short',
      whole.slice(0, -20),
      /^badge-sim: r\.jsonl:4: not a JSON record .*: the file ends in the middle of this line \(cut short\?\): remove it to make a scenario of the lines before$/,
    ],
  ])('%s is refused with what it is and where to go', (_case, text, message) => {
    expect(() => readRecording(text, 'r.jsonl')).toThrow(message);
  });

  test('a bad line inside the file is not called cut short', () => {
    const text = [lines[0], '{"seq": 2, "time"', ...lines.slice(1)].join('\n');
    expect(() => readRecording(text, 'r.jsonl')).toThrow(
      /r\.jsonl:2: not a JSON record \([^)]*\); each line of a recording is one JSON object$/,
    );
  });
});
