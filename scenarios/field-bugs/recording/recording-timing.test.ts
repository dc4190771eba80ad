/**
 * A recording made on a running clock (decision RS11): a request is stamped when it arrives and
 * handled later, a tap is recorded after the engine acted, a timer fires late, badges connect
 * after the start. The scenario made of it places each step at the instant the stub acted and
 * replays, on the virtual clock, to the same events at the same ms.
 */
import { describe, expect, test } from 'vitest';
import { DEFAULT_FIXTURES_FILE, loadFixturesFile } from '../../../fixtures/load-fixtures.ts';
import type { JournalEntry } from '../../../protocol/journal.schema.ts';
import { journalEntry } from '../../../test/support/recording-lines.ts';
import { checkScenario, defineScenario } from '../../format/load-scenario.ts';
import { runScenario } from '../../runner/run-scenario.ts';
import { scenarioFromRecording } from './from-recording.ts';
import { parseRecording } from './read-recording.ts';

const fixtures = loadFixturesFile(DEFAULT_FIXTURES_FILE);
const API = '/subscribers/100001/api/v1';
const T0 = Date.UTC(2026, 0, 1) * 1000;
/** An instant `us` µs after the session's start, as the stub writes it. */
const at = (us: number) => {
  const micros = T0 + us;
  return `${new Date(Math.floor(micros / 1000)).toISOString().slice(0, 19)}.${String(micros % 1_000_000).padStart(6, '0')}Z`;
};

/** Records as the stub writes them: `seq` in the order given, times in µs from the start. */
function recording(lines: [number, string, Record<string, unknown>][]): string {
  return lines
    .map(([us, kind, fields], i) => JSON.stringify({ seq: i + 1, time: at(us), kind, ...fields }))
    .join('\n');
}
function request(us: number, fields: Partial<JournalEntry>): Record<string, unknown> {
  return { request: journalEntry(at(us), { method: 'POST', path: `${API}/alerts`, ...fields }) };
}
/** An alert posted at `us` (when it arrived) that created task `task`. */
function posted(us: number, body: object, task: string): [number, string, Record<string, unknown>] {
  return [us, 'request', request(us, { body, answer: { task_id: task } })];
}
/** An event the engine stamped at `us`, recorded (the line's time) a little later. */
function event(us: number, type: string, task: string, extra: Record<string, unknown> = {}) {
  return {
    account: '100001',
    event: {
      category: 'tasks',
      content: { type, ...extra },
      task: {
        id: task,
        name: task,
        task_type: { major: 1, minor: 4, name: 'alerts', namespace: 'system' },
      },
      event_id: `${task}-${type}-${String(extra.device ?? '')}`,
      timestamp: at(us),
    },
  };
}

/**
 * A session as `badge-sim stub --record --clock real` writes it, with the write order of the
 * stub: a request's line after what it caused (its `seq` from its arrival), a tap's after its
 * events. Badges connect 3 s in; the spill alert arrives at 4.0001 s and is handled at
 * 4.0183 s; Ada is tapped through the control API, Ben by his badge (the quorum); the drill
 * alert times out 2.3 ms late; the grey alert is cancelled; an alert without groups is refused.
 */
const REAL_CLOCK = recording([
  [0, 'session', { reason: 'start', fixtures, clock: { mode: 'real' }, settings: {} }],
  [3_030_100, 'connect', { device: '350000000000001', replaced: false }],
  [3_041_200, 'connect', { device: '350000000000002', replaced: false }],
  posted(
    4_000_100,
    { notification: 'Spill', groups: ['Nurses'], name: 'spill', quorum: 2 },
    'spill',
  ),
  [4018700, 'event', event(4018300, 'start', 'spill')],
  [5000700, 'event', event(5000300, 'acknowledged', 'spill', { device: 'Ada Mensah' })],
  [
    5_000_800,
    'tap',
    { device: '350000000000001', via: 'control', result: 'acknowledged', task_id: 'spill' },
  ],
  [6300100, 'event', event(6299700, 'acknowledged', 'spill', { device: 'Ben Okafor' })],
  [6300900, 'event', event(6300500, 'end', 'spill', { status: 'normal' })],
  [
    6_300_600,
    'tap',
    { device: '350000000000002', via: 'badge', result: 'acknowledged', task_id: 'spill' },
  ],
  posted(
    7_000_000,
    { notification: 'Drill', groups: ['Nurses'], name: 'drill', timeout: 30 },
    'drill',
  ),
  [7001300, 'event', event(7000900, 'start', 'drill')],
  posted(8_000_000, { notification: 'Grey', groups: ['Nurses'], name: 'grey' }, 'grey'),
  [8001100, 'event', event(8000700, 'start', 'grey')],
  [
    9_000_000,
    'request',
    request(9_000_000, { method: 'DELETE', path: `${API}/alerts/grey`, status: 204 }),
  ],
  [9002500, 'event', event(9002100, 'end', 'grey', { status: 'cancelled' })],
  [
    9_500_000,
    'request',
    request(9_500_000, {
      body: { notification: 'No group' },
      status: 400,
      answer: { code: 'invalid_field' },
    }),
  ],
  [37003600, 'event', event(37003200, 'timed_out', 'drill')],
  [37003600, 'event', event(37003200, 'end', 'drill', { status: 'normal' })],
  [38_000_000, 'close', { device: '350000000000001' }],
  [38_000_000, 'close', { device: '350000000000002' }],
]);

function convert(text: string) {
  const made = scenarioFromRecording(parseRecording(text, 'real.jsonl'), { file: 'real.jsonl' });
  checkScenario(structuredClone(made.scenario));
  return made;
}

describe('a recording made on a running clock', () => {
  test('each step is at the instant the stub acted on it, in time order, late badges off the network from the start', () => {
    const { scenario, yaml } = convert(REAL_CLOCK);
    const steps = scenario.timeline.map((step) => {
      const { at, expect: _answer, ...rest } = step as Record<string, unknown>;
      return `${at} ${Object.keys(rest)[0]}`;
    });
    expect(steps).toEqual([
      '0s offline',
      '0s offline',
      '3030ms online',
      '3041ms online',
      // Handled 18 ms after it arrived: when its start event was stamped.
      '4018ms alert',
      // Recorded after the engine acted: when the acknowledgement was stamped.
      '5s tap',
      '6300ms tap',
      '7001ms alert',
      '8001ms alert',
      '9002ms cancel',
      '9500ms alert',
      // Every disconnect is a step, those at the recording's end too (RS14).
      '38s offline',
      '38s offline',
    ]);
    expect(scenario.expect.events).toEqual({
      only: true,
      items: [
        { type: 'start', task: 'spill-1', at: '4018ms' },
        { type: 'acknowledged', task: 'spill-1', device: 'Ada Mensah', at: '5s' },
        // One tap's acknowledgement and the quorum it reached: one instant on a replay.
        { type: 'acknowledged', task: 'spill-1', device: 'Ben Okafor', at: '6300ms' },
        { type: 'end', task: 'spill-1', status: 'normal', at: '6300ms' },
        { type: 'start', task: 'drill-1', at: '7001ms' },
        { type: 'start', task: 'grey-1', at: '8001ms' },
        { type: 'end', task: 'grey-1', status: 'cancelled', at: '9002ms' },
        // The timer fired 2.3 ms late: expected when it was due.
        { type: 'timed_out', task: 'drill-1', at: '37001ms' },
        { type: 'end', task: 'drill-1', status: 'normal', at: '37001ms' },
      ],
    });
    expect(yaml).toContain('its timeout, due then');
    expect(yaml).toContain('each step is at the instant the stub acted on it');
  });

  test('replayed on the virtual clock it passes, twice, with the same events at the same ms', async () => {
    const { scenario } = convert(REAL_CLOCK);
    const runs = [];
    for (let i = 0; i < 2; i++) {
      const report = await runScenario(defineScenario(structuredClone(scenario)));
      expect(report.failures).toEqual([]);
      runs.push(report.actual.events.map((e) => [e.content.type, e.content.device, e.timestamp]));
    }
    expect(runs[1]).toEqual(runs[0]);
  });

  test('steps at one instant keep the order the stub acted in, and the scenario says so', () => {
    const { scenario, yaml } = convert(
      recording([
        [0, 'session', { reason: 'start', fixtures, clock: { mode: 'virtual' }, settings: {} }],
        [0, 'connect', { device: '350000000000001', replaced: false, already: true }],
        [
          0,
          'request',
          request(0, {
            body: { notification: 'Spill', groups: ['Nurses'], name: 'spill' },
            answer: { task_id: 'spill' },
          }),
        ],
        [400, 'event', event(0, 'start', 'spill')],
        [400, 'event', event(0, 'acknowledged', 'spill', { device: 'Ada Mensah' })],
        [
          0,
          'tap',
          { device: '350000000000001', via: 'badge', result: 'acknowledged', task_id: 'spill' },
        ],
      ]),
    );
    expect(scenario.timeline.map((s) => Object.keys(s)[1])).toEqual(['alert', 'tap']);
    expect(yaml).toContain('steps at the same time run in the order listed');
  });

  test('a tap is at its acknowledgement though the commands the engine sent for it are recorded between (RS17)', () => {
    const { scenario } = convert(
      recording([
        [0, 'session', { reason: 'start', fixtures, clock: { mode: 'real' }, settings: {} }],
        [0, 'connect', { device: '350000000000001', replaced: false, already: true }],
        posted(1_000_000, { notification: 'Spill', groups: ['Nurses'], name: 'spill' }, 'spill'),
        [1_000_900, 'event', event(1_000_400, 'start', 'spill')],
        [2_497_300, 'event', event(2_497_100, 'acknowledged', 'spill', { device: 'Ada Mensah' })],
        // What the engine sent as it acted: after the event, before the tap's own line.
        [
          2_497_200,
          'command',
          {
            devices: ['350000000000001'],
            command: 'stop',
            task_id: 'spill',
            cause: 'acknowledged',
          },
        ],
        [
          2_499_000,
          'tap',
          { device: '350000000000001', via: 'control', result: 'acknowledged', task_id: 'spill' },
        ],
      ]),
    );
    expect(scenario.timeline.map(({ at, ...step }) => `${at} ${Object.keys(step)[0]}`)).toEqual([
      '1s alert',
      '2497ms tap',
    ]);
  });
});
