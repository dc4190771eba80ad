/**
 * Recording a live session and replaying it (issue 15, point 4): `badge-sim stub --record` in
 * its own process, a client in another (not the runner) sending alerts and moving the clock
 * through the control API, a fleet of badges tapping by their behaviours; then `badge-sim
 * record` makes a scenario of the file, and `badge-sim run` passes it.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { recordCommand } from '../../cli/record.command.ts';
import { DEFAULT_FIXTURES_FILE, loadFixturesFile } from '../../fixtures/load-fixtures.ts';
import { parseDuration } from '../../protocol/duration.ts';
import { startFleet } from '../../simulator/fleet.ts';
import { runCli, startStubProcess } from '../support/cli.ts';
import { refusalInProcess } from '../support/command-in-process.ts';
import { expectWhatAPersonKeeps } from './recorded-live-session.ts';

/** Every secret of the default fixtures: none may reach a recording. */
const SECRETS = [
  'demo-api-key-riverside-0001',
  'demo-api-key-harbour-0002',
  'demo-refresh-token-riverside-pro-0001',
  'demo-refresh-token-riverside-qa-0001',
  'demo-refresh-token-harbour-pro-0002',
  'badge-key-0001',
  'badge-key-0002',
  'badge-key-0003',
];

/**
 * The developer's software: a separate node process that talks HTTP to the stub, one run per
 * step of the session (`phase`): two alerts, one refused alert, a cancel (of the task id it
 * kept in `state`), a read with an unknown key and an events read.
 */
const CLIENT = `
const [url, phase, state] = process.argv.slice(1);
const fs = await import('node:fs');
const api = url + '/subscribers/100001/api/v1';
const headers = { authorization: 'ServiceApiKey demo-api-key-riverside-0001', 'content-type': 'application/json' };
const post = (path, body) => fetch(api + path, { method: 'POST', headers, body: JSON.stringify(body) }).then((r) => r.json());
if (phase === 'spill') {
  await post('/alerts', { notification: 'Spill in ward 3', groups: ['Nurses'], name: 'spill', quorum: 2, on_ack: 'Thanks' });
} else if (phase === 'drill') {
  const drill = await post('/alerts', { notification: 'Fire drill', groups: ['Pharmacy'], name: 'drill', timeout: 60 });
  fs.writeFileSync(state, drill.task_id);
  await post('/alerts', { notification: 'No group' });
} else if (phase === 'cancel') {
  await fetch(api + '/alerts/' + fs.readFileSync(state, 'utf8'), { method: 'DELETE', headers: { authorization: headers.authorization } });
  await fetch(api + '/events', { headers: { authorization: 'ServiceApiKey not-a-key' } });
} else {
  await fetch(api + '/events?limit=50', { headers });
}
`;

/** Runs the client to its end; asynchronously, so the fleet in this process answers meanwhile. */
async function runClient(url: string, phase: string, state = ''): Promise<void> {
  const { stderr } = await promisify(execFile)(
    process.execPath,
    ['--input-type=module', '-e', CLIENT, url, phase, state],
    { timeout: 30_000 },
  );
  expect(stderr).toBe('');
}

const scratch = () => mkdtempSync(join(tmpdir(), 'badge-sim-record-'));

describe('recording a live session', () => {
  test('a client process sends alerts while a fleet taps; the recording becomes a scenario that passes when run', async () => {
    const dir = scratch();
    const recording = join(dir, 'session.jsonl');
    const out = join(dir, 'session.scenario.yaml');
    {
      await using stub = await startStubProcess(['--clock', 'virtual', '--record', recording]);
      await using fleet = await startFleet({
        stub: stub.url,
        devices: ['350000000000001', '350000000000002', '350000000000003', '350000000000004'],
        behaviours: {
          '350000000000001': { ack: { after: '12s' } },
          '350000000000002': { ack: { after: '40s' } },
          // At the very instant an alert plays: its tap must replay after the alert step.
          '350000000000003': { ack: { after: '0s' } },
          '350000000000004': { ack: 'never', offline: [{ at: '30s', for: '10s' }] },
        },
        behaviour: { ack: 'never' },
      });
      await fleet.waitUntilConnected();
      // The clock moves through the control API (POST /_stub/clock/advance), by the fleet,
      // which stops at each of its badges' own timers on the way (principle 2).
      const state = join(dir, 'client-state');
      await runClient(stub.url, 'spill');
      await fleet.advanceBy(20_000);
      await runClient(stub.url, 'drill', state);
      await fleet.advanceBy(5_000);
      await runClient(stub.url, 'cancel', state);
      await fleet.advanceBy(120_000);
      await runClient(stub.url, 'read');
      // Stopped as a user stops it (Ctrl+C): the recording ends with its `end` record.
      const exited = new Promise((resolve) => stub.child.once('exit', resolve));
      stub.child.kill('SIGINT');
      await exited;
    }
    const text = readFileSync(recording, 'utf8');
    for (const secret of SECRETS) expect(text).not.toContain(secret);
    const kinds = text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).kind);
    expect(kinds[0]).toBe('session');
    expect(kinds).toEqual(expect.arrayContaining(['connect', 'request', 'tap', 'event', 'clock']));

    const made = runCli(['record', recording, '--to', out]);
    expect(made.stderr).toBe('');
    expect(made.status).toBe(0);
    expect(made.stdout).toContain(`wrote ${out}`);
    const scenario = parseYaml(readFileSync(out, 'utf8'));
    // What the session did, as steps: the two badge taps and the client's requests.
    const drops = scenario.timeline.filter((step: any) => step.offline || step.online);
    // Omar's drop, then every badge's disconnect as the stub stopped, alike (RS14).
    expect(drops.slice(0, 2)).toEqual([
      { at: '30s', offline: 'Omar Haddad' },
      { at: '40s', online: 'Omar Haddad' },
    ]);
    expect(drops.slice(2).map((step: any) => step.at)).toEqual(Array(4).fill('145s'));
    expect(
      drops
        .slice(2)
        .map((step: any) => step.offline)
        .sort(),
    ).toEqual(['Ada Mensah', 'Ben Okafor', 'Lena Ortiz', 'Omar Haddad'].sort());
    const steps = scenario.timeline.filter((step: any) => !drops.includes(step));
    const spill = expect.objectContaining({ at: '0s', as: 'spill-1', expect: { status: 200 } });
    const drill = expect.objectContaining({ at: '20s', as: 'drill-1', expect: { status: 200 } });
    // Lena's tap and the client's next request at 20s race across processes: either order.
    const lenaAt20 = { at: '20s', tap: 'Lena Ortiz' };
    const refused = expect.objectContaining({
      at: '20s',
      alert: { notification: 'No group' },
      // A refusal: its status, code and field (RS15).
      expect: { status: 400, body: { code: 'invalid_field', field: 'groups' } },
    });
    expect(steps).toEqual([
      spill,
      // At the very instant the alert played: after the alert step, or it would tap nothing.
      { at: '0s', tap: 'Lena Ortiz' },
      { at: '12s', tap: 'Ada Mensah' },
      drill,
      ...(steps[4]?.tap ? [lenaAt20, refused] : [refused, lenaAt20]),
      { at: '25s', cancel: 'drill-1', expect: { status: 204 } },
      {
        at: '25s',
        events: {},
        auth: 'wrong',
        expect: { status: 401, body: { code: 'invalid_api_key', field: 'authorization' } },
      },
      { at: '145s', events: { limit: 50 }, expect: { status: 200 } },
    ]);
    expect(scenario.expect.heard['Lena Ortiz']).toEqual({
      exactly: [
        { kind: 'alert', text: 'Spill in ward 3', task: 'spill-1' },
        { kind: 'speech', text: 'Thanks', cause: 'on_ack', task: 'spill-1' },
        { kind: 'alert', text: 'Fire drill', task: 'drill-1' },
      ],
    });
    expect(scenario.expect.events.only).toBe(true);
    expect(scenario.expect.events.items).toEqual([
      { type: 'start', task: 'spill-1', at: '0s' },
      { type: 'acknowledged', task: 'spill-1', device: 'Lena Ortiz', at: '0s' },
      { type: 'acknowledged', task: 'spill-1', device: 'Ada Mensah', at: '12s' },
      { type: 'end', task: 'spill-1', status: 'normal', at: '12s' },
      { type: 'start', task: 'drill-1', at: '20s' },
      { type: 'acknowledged', task: 'drill-1', device: 'Lena Ortiz', at: '20s' },
      { type: 'end', task: 'drill-1', status: 'cancelled', at: '25s' },
    ]);
    for (const secret of SECRETS) expect(readFileSync(out, 'utf8')).not.toContain(secret);

    const run = runCli(['run', out]);
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('all scenarios passed');
    expect(run.status).toBe(0);

    // --fixtures: yours, keys and all, instead of the recorded stand-ins; behaviours left out.
    const mine = join(dir, 'mine.scenario.yaml');
    expect(
      runCli(['record', recording, '--to', mine, '--fixtures', DEFAULT_FIXTURES_FILE]).status,
    ).toBe(0);
    const withMine = parseYaml(readFileSync(mine, 'utf8'));
    expect(withMine.fixtures.accounts[0].api_keys).toEqual(['demo-api-key-riverside-0001']);
    expect(withMine.timeline).toEqual(scenario.timeline);
  }, 90_000);
});

describe('recording a live session on a running clock (issue 29)', () => {
  test.each([
    ['real', ['--clock', 'real']],
    ['scaled', ['--clock', 'scaled', '--scale', '10']],
  ])(
    '%s clock: badges connecting late, taps by badge and control API, a broadcast, a cancel and a refusal: the scenario made of it passes twice, identically',
    async (_clock, clock) => {
      const dir = scratch();
      const recording = join(dir, 'live.jsonl');
      const out = join(dir, 'live.scenario.yaml');
      const api = (url: string) => `${url}/subscribers/100001/api/v1`;
      const headers = {
        authorization: 'ServiceApiKey demo-api-key-riverside-0001',
        'content-type': 'application/json',
      };
      const post = async (url: string, body: object) =>
        (
          await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) })
        ).json() as Promise<any>;
      const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
      {
        await using stub = await startStubProcess([...clock, '--record', recording]);
        // Badges start after the stub, each group on its own, as `devices --group` would.
        await pause(200);
        await using nurses = await startFleet({
          stub: stub.url,
          devices: ['350000000000001', '350000000000002', '350000000000003'],
          behaviour: { ack: 'never' },
        });
        await nurses.waitUntilConnected();
        await pause(200);
        await using security = await startFleet({
          stub: stub.url,
          devices: ['350000000000005', 'VIRTDESK01'],
          // Rosa's badge taps by itself, 300 ms into the alert it plays.
          behaviours: { '350000000000005': { ack: { after: '300ms' } } },
          behaviour: { ack: 'never' },
        });
        await security.waitUntilConnected();
        const spill = await post(`${api(stub.url)}/alerts`, {
          notification: 'Spill in ward 3',
          groups: ['Nurses'],
          name: 'spill',
          quorum: 2,
          timeout: 30,
          on_ack: 'Thanks',
        });
        expect(spill.task_id).toEqual(expect.any(String));
        // Two taps through the control API end it by quorum.
        for (const device of ['350000000000001', '350000000000002']) {
          await pause(250);
          const tap = await fetch(`${stub.url}/_stub/devices/${device}/tap`, { method: 'POST' });
          expect(await tap.json()).toEqual({ result: 'acknowledged', task_id: spill.task_id });
        }
        await pause(150);
        const grey = await post(`${api(stub.url)}/alerts`, {
          notification: 'Code grey',
          groups: ['Security'],
          name: 'grey',
          timeout: 30,
        });
        // Rosa's badge taps it by itself (awaited through the control API, which is not replayed);
        // then a broadcast plays on the front desk beside it.
        const rosa = await fetch(
          `${stub.url}/_stub/events/await?type=acknowledged&device=Rosa%20Lindqvist&timeout=10s`,
        );
        expect(rosa.status).toBe(200);
        await post(`${api(stub.url)}/broadcasts`, {
          notification: 'Visitors at the front desk',
          groups: ['Security'],
        });
        await pause(150);
        const cancel = await fetch(`${api(stub.url)}/alerts/${grey.task_id}`, {
          method: 'DELETE',
          headers: { authorization: headers.authorization },
        });
        expect(cancel.status).toBe(204);
        await pause(100);
        expect((await post(`${api(stub.url)}/alerts`, { notification: 'No group' })).code).toBe(
          'invalid_field',
        );
        await pause(100);
        // A clean stop: the recording ends with its `end` record.
        const exited = new Promise((resolve) => stub.child.once('exit', resolve));
        stub.child.kill('SIGINT');
        await exited;
      }
      const kinds = readFileSync(recording, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).kind);
      expect(kinds.at(-1)).toBe('end');

      const made = runCli(['record', recording, '--to', out, '--check']);
      expect(made.stderr).toBe('');
      expect(made.stdout).toContain('and it passed when run');
      expect(made.status).toBe(0);
      const scenario = parseYaml(readFileSync(out, 'utf8'));
      const steps = scenario.timeline.map((step: any) => Object.keys(step)[1]);
      // Late badges are off the network from the start, before anything else.
      expect(steps.slice(0, 5)).toEqual(Array(5).fill('offline'));
      expect(steps.filter((s: string) => s !== 'offline' && s !== 'online')).toEqual([
        'alert',
        'tap',
        'tap',
        'alert',
        'tap',
        'broadcast',
        'cancel',
        'alert',
      ]);
      expectWhatAPersonKeeps(scenario, readFileSync(out, 'utf8'));
      const times = scenario.timeline.map((step: any) => parseDuration(step.at)!);
      expect(times).toEqual([...times].sort((a, b) => a - b));
      expect(
        scenario.expect.events.items.map((e: any) => `${e.type} ${e.device ?? e.status ?? ''}`),
      ).toEqual([
        'start ',
        'acknowledged Ada Mensah',
        'acknowledged Ben Okafor',
        'end normal',
        'start ',
        'acknowledged Rosa Lindqvist',
        'end cancelled',
      ]);

      // Replayed twice: both pass, and their reports (events, what each badge heard) are identical.
      const reports = [1, 2].map((n) => {
        const report = join(dir, `run-${n}.json`);
        const run = runCli(['run', out, '--reporter', 'json', '-o', report]);
        // Nothing but the line saying where the report went (Y6).
        expect(run.stderr).toBe(
          `badge-sim run: json report written to ${report}: all scenarios passed\n`,
        );
        expect(run.status).toBe(0);
        return readFileSync(report, 'utf8');
      });
      expect(JSON.parse(reports[0]!).passed).toBe(1);
      expect(reports[1]).toBe(reports[0]);
    },
    120_000,
  );
});

describe('a recording that goes wrong', () => {
  test('--record to a path that cannot be written is one line naming the flag, exit 2, and nothing listens', () => {
    const result = runCli([
      'stub',
      '--port',
      '0',
      '--record',
      join(scratch(), 'no', 'such', 'x.jsonl'),
    ]);
    expect(result.status).toBe(2);
    expect(result.stdout).not.toContain('ready');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(
      /--record \(BADGE_SIM_RECORD\) .*x\.jsonl: cannot write it \(its folder does not exist\)/,
    );
  });

  test('a write that fails later is one line on stderr; the stub goes on and the recording stays in memory', async () => {
    await using stub = await startStubProcess(['--clock', 'virtual', '--record', '/dev/full']);
    await expect
      .poll(() => stub.errors(), { timeout: 5_000 })
      .toContain('--record /dev/full: cannot write to it (ENOSPC)');
    const auth = { authorization: 'ServiceApiKey demo-api-key-riverside-0001' };
    const events = await fetch(`${stub.url}/subscribers/100001/api/v1/events`, { headers: auth });
    expect(events.status).toBe(200);
    await expect
      .poll(
        async () =>
          ((await (await fetch(`${stub.url}/_stub/recording`)).json()) as any).records.length,
      )
      .toBe(2);
    expect(stub.errors().trim().split('\n')).toHaveLength(1);
  });

  test('--help of record shows an example; stub --help describes --record and --record-limit', () => {
    const record = runCli(['record', '--help']);
    expect(record.status).toBe(0);
    for (const text of [
      '--to',
      '--fixtures',
      '--name',
      '--check',
      '--all-fixtures',
      'keeps what the\n                         session touched',
      'what each badge heard',
      'badge-sim record session.jsonl --to bug.scenario.yaml',
    ])
      expect(record.stdout).toContain(text);
    const stub = runCli(['stub', '--help']);
    expect(stub.stdout).toContain('--record <file>');
    expect(stub.stdout).toContain('--record-limit <n>');
    expect(runCli(['--help']).stdout).toContain('record');
  });

  test('past --record-limit, records are dropped and counted: the file says where, the stub and record say how many (and which settings differ)', async () => {
    const dir = scratch();
    const recording = join(dir, 'capped.jsonl');
    const stub = await startStubProcess([
      '--clock',
      'virtual',
      '--record',
      recording,
      '--record-limit',
      '3',
      '--cancel-events',
      'none',
    ]);
    const auth = { authorization: 'ServiceApiKey demo-api-key-riverside-0001' };
    for (let i = 0; i < 4; i++)
      await fetch(`${stub.url}/subscribers/100001/api/v1/events`, { headers: auth });
    const answer = await (await fetch(`${stub.url}/_stub/recording`)).text();
    const seen = JSON.parse(answer);
    expect(seen.records).toHaveLength(4);
    expect(seen.records.map((r: any) => r.kind)).toEqual([
      'session',
      'request',
      'request',
      'capped',
    ]);
    expect(seen).toMatchObject({ dropped: 2, limit: 3 });
    const exited = new Promise((resolve) => stub.child.once('exit', resolve));
    stub.child.kill('SIGINT');
    await exited;
    expect(stub.output()).toContain('recording: 2 records dropped past --record-limit 3');
    const lines = readFileSync(recording, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((r) => r.kind)).toEqual(['session', 'request', 'request', 'capped', 'end']);
    expect(lines.at(-1)).toMatchObject({ kind: 'end', dropped: 2 });

    const made = runCli(['record', recording, '--to', join(dir, 'capped.scenario.yaml')]);
    expect(made.status).toBe(0);
    expect(made.stderr).toContain('reached its limit of 3 records');
    expect(made.stderr).toContain('2 records were dropped');
    // A setting that changes what the engine does is said, and the scenario sets it.
    expect(made.stderr).toContain(
      'the stub ran with cancelEvents "none": the scenario sets settings.cancel_events so',
    );
    expect(readFileSync(join(dir, 'capped.scenario.yaml'), 'utf8')).toMatch(
      /settings:\n {2}cancel_events: none\n/,
    );
    expect(readFileSync(join(dir, 'capped.scenario.yaml'), 'utf8')).toContain(
      '2 records were dropped',
    );

    // GET /_stub/recording saved to a file is a recording too.
    writeFileSync(join(dir, 'saved.json'), answer);
    const fromGet = runCli(['record', join(dir, 'saved.json')]);
    expect(fromGet.status).toBe(0);
    expect(parseYaml(fromGet.stdout).timeline).toHaveLength(2);
  }, 60_000);

  test('a scenario that would not load, or with --check not pass, is not written: exit 1 with the reason, to a file or to standard output', () => {
    const dir = scratch();
    const session = {
      seq: 1,
      time: '2026-01-01T00:00:00.000000Z',
      kind: 'session',
      fixtures: loadFixturesFile(DEFAULT_FIXTURES_FILE),
    };
    const connect = {
      seq: 2,
      time: '2026-01-01T00:00:00.000000Z',
      kind: 'connect',
      device: '350000000000001',
      already: true,
    };
    // Edited by hand: a battery level no badge reports makes a step the loader refuses.
    const unloadable = join(dir, 'unloadable.jsonl');
    const battery = { seq: 3, time: '2026-01-01T00:00:01.000000Z', kind: 'battery' };
    writeFileSync(
      unloadable,
      [session, connect, { ...battery, device: '350000000000001', level: 150 }]
        .map((r) => JSON.stringify(r))
        .join('\n'),
    );
    // An event nothing in the recording caused: the scenario loads, but a replay cannot pass.
    const unreplayable = join(dir, 'unreplayable.jsonl');
    const ghost = {
      seq: 3,
      time: '2026-01-01T00:00:01.000000Z',
      kind: 'event',
      account: '100001',
      event: {
        category: 'tasks',
        content: { type: 'start' },
        task: {
          id: 'ghost',
          name: 'ghost',
          task_type: { major: 1, minor: 4, name: 'alerts', namespace: 'system' },
        },
        event_id: 'ghost-start',
        timestamp: '2026-01-01T00:00:01.000000Z',
      },
    };
    writeFileSync(unreplayable, [session, connect, ghost].map((r) => JSON.stringify(r)).join('\n'));
    const out = join(dir, 'out.scenario.yaml');
    const cases: [string[], RegExp][] = [
      [[unloadable], /the scenario made does not load: .*timeline\[0\]\.level/],
      [[unloadable, '--to', out], /the scenario made does not load: .*timeline\[0\]\.level/],
      [
        [unreplayable, '--check'],
        /does not pass when run \(--check\):\n.*events.*\n[\s\S]*start name=ghost/,
      ],
      [[unreplayable, '--to', out, '--check'], /does not pass when run \(--check\)/],
    ];
    for (const [args, reason] of cases) {
      const result = runCli(['record', ...args]);
      expect(result.status).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(reason);
      expect(result.stderr).toContain('nothing written');
      expect(() => readFileSync(out)).toThrow();
    }
    // Without --check, what loads is written: the check is asked for.
    expect(runCli(['record', unreplayable, '--to', out]).status).toBe(0);
  }, 60_000);

  test('an empty recording says so, with --fixtures too; one without its end record is made with a note on stderr and in the scenario', async () => {
    const dir = scratch();
    const empty = join(dir, 'empty.jsonl');
    writeFileSync(empty, '');
    // In a real process, then parsed in this one (the same command) with --fixtures.
    const real = runCli(['record', empty]);
    expect(real.stdout).toBe('');
    for (const result of [
      real,
      await refusalInProcess(recordCommand(), [empty, '--fixtures', DEFAULT_FIXTURES_FILE]),
    ]) {
      expect(result.status).toBe(2);
      expect(result.stderr).toContain('empty.jsonl: the recording is empty');
      expect(result.stderr).not.toContain('give --fixtures');
    }
    // As `head -n 2` leaves it: whole lines, no end record.
    const cut = join(dir, 'cut.jsonl');
    const session = { seq: 1, time: '2026-01-01T00:00:00.000000Z', kind: 'session' };
    const connect = { seq: 2, time: '2026-01-01T00:00:01.000000Z', kind: 'connect' };
    writeFileSync(
      cut,
      `${JSON.stringify({ ...session, fixtures: loadFixturesFile(DEFAULT_FIXTURES_FILE) })}\n${JSON.stringify({ ...connect, device: '350000000000001' })}\n`,
    );
    const made = runCli(['record', cut]);
    expect(made.status).toBe(0);
    expect(made.stderr).toMatch(
      /^badge-sim record: note: the recording stops at seq 2 \(2026-01-01T00:00:01\.000000Z\) with no end record.*was the stub killed/,
    );
    expect(made.stdout).toContain('# Note: the recording stops at seq 2');
  }, 30_000);

  test('a bad line of a recording is named by its number and what is wrong, exit 2, nothing written', async () => {
    const dir = scratch();
    const recording = join(dir, 'bad.jsonl');
    const session = {
      seq: 1,
      time: '2026-01-01T00:00:00.000000Z',
      kind: 'session',
      fixtures: loadFixturesFile(DEFAULT_FIXTURES_FILE),
    };
    const cases: [string, RegExp][] = [
      [
        '{"seq": 2, "time": "2026-01-01T00:00:01.000000Z", "kind": "tap", "device"',
        /bad\.jsonl:3: not a JSON record/,
      ],
      [
        '{"seq": 2, "time": "yesterday", "kind": "tap", "device": "1"}',
        /bad\.jsonl:3: time "yesterday" is not an instant/,
      ],
      [
        '{"seq": 2, "time": "2026-01-01T00:00:01.000000Z", "kind": "__proto__"}',
        /bad\.jsonl:3: kind "__proto__" is none of session, request/,
      ],
      [
        '{"seq": 2, "time": "2026-01-01T00:00:01.000000Z", "kind": "request"}',
        /bad\.jsonl:3: a request record needs request/,
      ],
      ['[1, 2]', /bad\.jsonl:3: a record is a JSON object/],
      [
        '{"seq": 2, "time": "2026-01-01T00:00:01.000000Z", "kind": "session", "fixtures": {"accounts": [{"subscriber_id": "1"}]}}',
        /bad\.jsonl:3: fixtures\.accounts\[0\]\.\w+/,
      ],
      [
        '{"seq": 2, "time": "2026-01-01T00:00:01.000000Z", "kind": "request", "request": {"path": 7}}',
        /bad\.jsonl:3: request\.\w+ /,
      ],
    ];
    for (const [i, [line, message]] of cases.entries()) {
      writeFileSync(recording, `${JSON.stringify(session)}\n\n${line}\n`);
      const args = [recording, '--to', join(dir, 'out.yaml')];
      // The first in a real process, the others parsed in this one (the same command).
      const result =
        i === 0 ? runCli(['record', ...args]) : await refusalInProcess(recordCommand(), args);
      expect(result.status).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    }
    expect(() => readFileSync(join(dir, 'out.yaml'))).toThrow();
  });
});
