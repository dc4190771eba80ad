import { describe, expect, test } from 'vitest';
import { parse as parseYaml } from 'yaml';
import type { Fixtures } from '../../../fixtures/fixtures.schema.ts';
import { DEFAULT_FIXTURES_FILE, loadFixturesFile } from '../../../fixtures/load-fixtures.ts';
import type { JournalEntry } from '../../../protocol/journal.schema.ts';
import { journalEntry } from '../../../test/support/recording-lines.ts';
import { checkScenario } from '../../format/load-scenario.ts';
import { parseRecording, scenarioFromRecording } from './from-recording.ts';

const fixtures = loadFixturesFile(DEFAULT_FIXTURES_FILE);
const API = '/subscribers/100001/api/v1';
const at = (s: number) =>
  new Date(Date.UTC(2026, 0, 1) + s * 1000).toISOString().replace('Z', '000Z');

let seq = 0;
function record(kind: string, time: number, fields: Record<string, unknown> = {}) {
  return { seq: ++seq, time: at(time), kind, ...fields };
}
function request(time: number, fields: Partial<JournalEntry>) {
  const entry = journalEntry(at(time), { id: seq + 1, ...fields });
  return record('request', time, { request: entry });
}

/** The recording as `--record` writes it, read back and made a scenario. */
function convert(records: object[], options: { allFixtures?: boolean } = {}) {
  const text = records.map((r) => JSON.stringify(r)).join('\n');
  const made = scenarioFromRecording(parseRecording(text, 'r.jsonl'), {
    file: 'r.jsonl',
    ...options,
  });
  checkScenario(structuredClone(made.scenario));
  return { ...made, parsed: parseYaml(made.yaml) };
}

describe('a recording made into a scenario', () => {
  test('credentials are inferred from the answers, faults and token requests are commented, not replayed', () => {
    const { scenario, yaml, parsed } = convert([
      record('session', 0, { fixtures, settings: {} }),
      request(1, { headers: {}, status: 401 }),
      request(2, { status: 401 }),
      request(3, { status: 403, path: '/subscribers/100002/api/v1/events', account: '100002' }),
      request(4, { method: 'POST', path: '/oauth2/token', status: 200 }),
      request(5, { status: 503, fault: { id: 'f1', kind: 'status', let_through: false } }),
      request(6, { method: 'DELETE', path: `${API}/alerts/%E0%A4%A`, status: 404 }),
      request(7, { method: 'PATCH', path: `${API}/alerts`, status: 404 }),
      request(8, {
        method: 'POST',
        path: `${API}/alerts`,
        body: JSON.parse('{"__proto__": 1, "notification": "x"}'),
        status: 400,
      }),
    ]);
    expect(scenario.timeline).toEqual([
      { at: '1s', events: {}, auth: 'none', expect: { status: 401 } },
      { at: '2s', events: {}, auth: 'wrong', expect: { status: 401 } },
      { at: '5s', events: {} },
      { at: '6s', cancel: '%E0%A4%A', expect: { status: 404 } },
      {
        at: '8s',
        alert: JSON.parse('{"__proto__": 1, "notification": "x"}'),
        expect: { status: 400 },
      },
    ]);
    // A body's own `__proto__` is written and read back as a field, as it was sent.
    expect(Object.hasOwn(parsed.timeline.at(-1).alert, '__proto__')).toBe(true);
    expect(yaml).toContain('# inferred: a 401 with a key: an unknown key');
    expect(yaml).toContain('GET /subscribers/100002/api/v1/events left out');
    expect(yaml).toContain("POST /oauth2/token left out: the steps' clients get their own tokens");
    expect(yaml).toContain('a fault (status) shaped this answer');
    expect(yaml).toContain('PATCH /subscribers/100001/api/v1/alerts left out');
  });

  test('the last session is replayed, from its own start, and the others are noted', () => {
    const { scenario, notes } = convert([
      record('session', 0, { fixtures }),
      request(50, {}),
      record('session', 0, { fixtures, reason: 'reset' }),
      record('connect', 0, { device: '350000000000002', already: true }),
      record('connect', 3, { device: '350000000000001' }),
      record('tap', 4, { device: '350000000000001', via: 'badge', result: 'nothing_pending' }),
      record('battery', 5, { device: '350000000000001', level: 15, status: 'discharging' }),
      record('close', 6, { device: '350000000000002' }),
      record('connect', 9, { device: '350000000000002' }),
      record('close', 9, { device: '350000000000001' }),
    ]);
    expect(notes).toEqual([expect.stringContaining('2 sessions')]);
    expect(scenario.badges).toEqual({ devices: ['Ben Okafor', 'Ada Mensah'] });
    expect(scenario.timeline).toEqual([
      { at: '0s', offline: 'Ada Mensah' },
      { at: '3s', online: 'Ada Mensah' },
      { at: '4s', tap: 'Ada Mensah' },
      { at: '5s', battery: 'Ada Mensah', level: 15, status: 'discharging' },
      { at: '6s', offline: 'Ben Okafor' },
      { at: '9s', online: 'Ben Okafor' },
      { at: '9s', offline: 'Ada Mensah' },
    ]);
    expect(scenario.duration).toBe('9s');
    // The fixtures' behaviours are gone: the recorded taps replay them.
    expect(JSON.stringify(scenario.fixtures)).not.toContain('behaviour');
  });

  test('every disconnect is an offline step, the last one of the recording too (RS14)', () => {
    const { scenario } = convert([
      record('session', 0, { fixtures }),
      record('connect', 0, { device: '350000000000001', already: true }),
      record('connect', 0, { device: '350000000000002', already: true }),
      record('connect', 0, { device: '350000000000003', already: true }),
      request(2, {}),
      // The stub stopping closes every badge's connection, a ms apart; then its end record.
      record('close', 4.998, { device: '350000000000002' }),
      record('close', 4.999, { device: '350000000000003' }),
      record('close', 5, { device: '350000000000001' }),
      record('end', 5.001, { dropped: 0 }),
    ]);
    expect(scenario.timeline.filter((step) => 'offline' in step)).toEqual([
      { at: '4998ms', offline: 'Ben Okafor' },
      { at: '4999ms', offline: 'Lena Ortiz' },
      { at: '5s', offline: 'Ada Mensah' },
    ]);
    expect(scenario.duration).toBe('5s');
  });

  test('a refused request expects its status, code and field; other answers their status only (RS15)', () => {
    const refusal = (code: string, field?: string) => ({
      statusCode: 400,
      error: 'Bad Request',
      code,
      message: 'the stub says why',
      ...(field ? { field } : {}),
    });
    const { scenario } = convert([
      record('session', 0, { fixtures }),
      request(1, {
        method: 'POST',
        path: `${API}/alerts`,
        body: { notification: 'No group' },
        status: 400,
        answer: refusal('invalid_field', 'groups'),
      }),
      request(2, { status: 401, answer: refusal('invalid_api_key') }),
      request(3, { status: 200, answer: [] }),
      // An answer cut at its limit is not compared: what is left may not be its code.
      request(4, { status: 400, answer: '{"code": "inv', truncated: ['answer'] }),
    ]);
    expect(scenario.timeline.map((step) => step.expect)).toEqual([
      { status: 400, body: { code: 'invalid_field', field: 'groups' } },
      { status: 401, body: { code: 'invalid_api_key' } },
      { status: 200 },
      { status: 400 },
    ]);
  });

  test('fixtures are trimmed to what the session touched, and --all-fixtures keeps them (RS16)', () => {
    const session = (auth: 'other' | 'own') => [
      record('session', 0, { fixtures }),
      record('connect', 1, { device: '350000000000001' }),
      request(2, {
        method: 'POST',
        path: `${API}/alerts`,
        body: { notification: 'Spill', groups: ['urn:service-resource:name:group:Nurses'] },
        status: 200,
        answer: { task_id: 't1' },
      }),
      request(3, auth === 'other' ? { status: 403 } : { status: 200, answer: [] }),
    ];
    const { scenario, yaml } = convert(session('other'));
    const [riverside, harbour, ...more] = (scenario.fixtures as Fixtures).accounts;
    expect(more).toEqual([]);
    // The group the alert named, with every member it reached; the badge that connected.
    expect(riverside!.groups.map((g) => g.name)).toEqual(['Nurses']);
    expect(riverside!.devices.map((d) => d.user)).toEqual([
      'Ada Mensah',
      'Ben Okafor',
      'Lena Ortiz',
    ]);
    expect(riverside!.workflows).toBeUndefined();
    // A 403 replays with the other account's key: that account stays, its key only.
    expect(harbour).toEqual({
      subscriber_id: '100002',
      name: 'Harbour Logistics',
      api_keys: fixtures.accounts[1]!.api_keys,
      refresh_tokens: fixtures.accounts[1]!.refresh_tokens,
      groups: [],
      devices: [],
    });
    expect(yaml).toContain(
      '# The fixtures are trimmed to what the session touched (left out: 2 groups, 3 devices, 2 workflows);\n# badge-sim record --all-fixtures keeps them all.',
    );
    expect(convert(session('own')).yaml).toContain(
      '(left out: 1 account, 2 groups, 3 devices, 2 workflows)',
    );

    const all = convert(session('other'), { allFixtures: true });
    const everything = (all.scenario.fixtures as Fixtures).accounts;
    expect(everything.map((a) => a.devices.length)).toEqual([6, 2]);
    expect(everything[0]!.workflows).toHaveLength(2);
    expect(all.yaml).not.toContain('trimmed');
  });

  test('what each badge heard is expected, per badge, in order (RS17)', () => {
    const sent = (time: number, devices: string[], fields: Record<string, unknown>) =>
      record('command', time, { devices, task_id: 't1', ...fields });
    const { scenario, parsed, yaml } = convert([
      record('session', 0, { fixtures }),
      record('connect', 0, { device: '350000000000001', already: true }),
      record('connect', 0, { device: '350000000000002', already: true }),
      request(1, {
        method: 'POST',
        path: `${API}/alerts`,
        body: { notification: 'Spill', groups: ['Nurses'], on_ack: 'Thanks' },
        status: 200,
        answer: { task_id: 't1' },
      }),
      sent(1, ['350000000000001', '350000000000002'], {
        command: 'play',
        text: 'Spill',
        repeat: 0,
      }),
      sent(5, ['350000000000001'], { command: 'stop', cause: 'acknowledged' }),
      sent(5, ['350000000000001'], { command: 'speak', text: 'Thanks', cause: 'on_ack' }),
      sent(8, ['350000000000002'], { command: 'broadcast', task_id: 'b1', text: 'Visitors' }),
    ]);
    expect(scenario.expect.heard).toEqual({
      'Ada Mensah': {
        exactly: [
          { kind: 'alert', text: 'Spill', task: 'alert-1' },
          { kind: 'speech', text: 'Thanks', cause: 'on_ack', task: 'alert-1' },
        ],
      },
      'Ben Okafor': {
        exactly: [
          { kind: 'alert', text: 'Spill', task: 'alert-1' },
          { kind: 'broadcast', text: 'Visitors' },
        ],
      },
    });
    // Written one clip a line, as a person would read them.
    expect(yaml).toContain(
      '      - { kind: speech, text: Thanks, cause: on_ack, task: alert-1 }\n',
    );
    expect(parsed.expect.heard['Ada Mensah'].exactly[1]).toEqual({
      kind: 'speech',
      text: 'Thanks',
      cause: 'on_ack',
      task: 'alert-1',
    });
  });
});
