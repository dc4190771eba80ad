/**
 * `badge-sim diff` (issue 32 point 5; docs/decisions.md WS31–WS34): the pure core on real
 * stub snapshots (a core in this process, no port) and on fleet views; the files read and
 * refused as the snapshot checks refuse them; and one run of the command itself.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { DiffUsageError, diffFiles, diffText } from '../../cli/run-diff.ts';
import { diffWorlds } from '../../cli/world-diff.ts';
import { type BadgeFacts, fleetView, stubView, type WorldView } from '../../cli/world-views.ts';
import { DEFAULT_FIXTURES_FILE, loadFixturesFile } from '../../fixtures/load-fixtures.ts';
import { takeSnapshot } from '../../server-stub/snapshot/world-snapshot.ts';
import { StubCore } from '../../server-stub/stub-core.ts';
import type { SavedFleet } from '../../simulator/snapshot/fleet-snapshot.ts';
import { runCli } from '../support/cli.ts';
import { RIVERSIDE } from '../support/http.ts';

const fixtures = loadFixturesFile(DEFAULT_FIXTURES_FILE);
const ADA = '350000000000001';

/** A stub's world at its start, and the same world 10 s after an alert Ada acknowledged. */
async function twoWorlds() {
  const core = new StubCore({ fixtures, seed: 4 });
  const before = takeSnapshot(core);
  const { taskId } = core.engine.createAlert(RIVERSIDE.id, {
    notification: 'Code blue',
    groups: ['Nurses'],
    name: 'code',
  });
  await core.clock.advanceBy(10_000);
  core.engine.acknowledge(ADA, taskId);
  return { before, after: takeSnapshot(core), taskId, core };
}

const texts = (a: WorldView, b: WorldView) => diffWorlds(a, b).map((d) => `${d.part}: ${d.text}`);

describe('the differences of two worlds, in words (WS31)', () => {
  test('a world and itself: no difference', async () => {
    const { after } = await twoWorlds();
    expect(diffWorlds(stubView(after), stubView(structuredClone(after)))).toEqual([]);
  });

  test('the instants, a task only in one, its events counted and quoted, the id generator', async () => {
    const { before, after, taskId } = await twoWorlds();
    const said = texts(stubView(before), stubView(after));
    expect(said[0]).toBe(
      'instant: A is at 2026-01-01T00:00:00.000000Z, B at 2026-01-01T00:00:10.000000Z (B 10 s later)',
    );
    expect(said[1]).toBe(
      `tasks: task ${taskId} only in B: "code" of account 100001, alerting, 1 acknowledgement(s), 2 device(s) pending`,
    );
    expect(said[2]).toMatch(
      new RegExp(
        `^events: events of account 100001: 2 only in B \\(\\w+: tasks start, task ${taskId} \\(code\\), at 2026-01-01T00:00:00.000000Z \\| \\w+: tasks acknowledged by Ada Mensah, task ${taskId} \\(code\\), at 2026-01-01T00:00:10.000000Z\\)$`,
      ),
    );
    expect(said[3]).toBe(
      'generators: task and event ids: its state differs: what it draws next differs',
    );
    expect(said).toHaveLength(4);
    // The other way round, the same said of A.
    expect(texts(stubView(after), stubView(before))[1]).toContain(`task ${taskId} only in A`);
  });

  test('a task both hold, changed: state, outcome, acknowledgements, pending, each device (WS32)', async () => {
    const { after, core, taskId } = await twoWorlds();
    await core.clock.advanceBy(300_000);
    const later = takeSnapshot(core);
    const said = texts(stubView(after), stubView(later)).filter((t) => t.startsWith('tasks'));
    expect(said).toEqual([
      `tasks: task ${taskId}: state alerting in A, ended in B; outcome null in A, timed_out in B; devices pending 2 in A, 0 in B; device 350000000000002 playing in A, stopped in B; device 350000000000003 playing in A, stopped in B`,
    ]);
  });

  test('events only in one world: the first 3 quoted, the rest counted (WS33)', () => {
    const lines = (n: number) => Array.from({ length: n }, (_, i) => `e${i}`);
    const view = (events: string[]): WorldView => ({
      kind: "a stub's world",
      at: 0,
      events: new Map([['100001', events]]),
    });
    expect(texts(view(lines(2)), view(lines(7)))).toEqual([
      'events: events of account 100001: 5 only in B (e2 | e3 | e4 | and 2 more)',
    ]);
  });

  test('devices and badges: online, battery, machine state, clip; one only in a world', () => {
    const badge = (over: Partial<BadgeFacts>): BadgeFacts => ({
      state: 'online.idle',
      clip: null,
      battery: 100,
      ...over,
    });
    const a: WorldView = {
      kind: "a fleet's badges",
      at: 0,
      devices: new Map([[ADA, { online: true, battery: 80 }]]),
      badges: new Map([
        [ADA, badge({})],
        ['350000000000002', badge({})],
      ]),
    };
    const b: WorldView = {
      ...a,
      devices: new Map([[ADA, { online: false, battery: 75 }]]),
      badges: new Map([
        [
          ADA,
          badge({ state: 'online.playing', clip: '"Code blue" (task t1, 200 ms in)', battery: 94 }),
        ],
      ]),
    };
    expect(texts(a, b)).toEqual([
      `devices: device ${ADA}: online in A, offline in B; battery 80 in A, 75 in B`,
      `badges: badge ${ADA}: state online.idle in A, online.playing in B; clip none in A, "Code blue" (task t1, 200 ms in) in B; battery 100 in A, 94 in B`,
      'badges: badge 350000000000002 only in A: online.idle, no clip, battery 100',
    ]);
  });

  test("a fleet's snapshot as a view: each badge's state, clip and battery, its draws", () => {
    const machine = (value: unknown, current: unknown) => ({
      value,
      context: { current, batteryLevel: 90 },
    });
    const saved = {
      format: 'badge-sim-fleet/1',
      at: 5_000,
      seed: 3,
      clips: [],
      badges: [
        {
          deviceId: ADA,
          machine: machine({ online: 'playing' }, { taskId: 't1', text: 'Spill' }),
          clip: { elapsedMs: 250 },
          random: { behaviour: [1], faults: [2], reconnect: [3] },
        },
        { deviceId: '350000000000002', machine: machine('offline', null), clip: null, random: {} },
      ],
    } as unknown as SavedFleet;
    const view = fleetView(saved);
    expect([...view.badges!.values()]).toEqual([
      { state: 'online.playing', clip: '"Spill" (task t1, 250 ms in)', battery: 90 },
      { state: 'offline', clip: null, battery: 90 },
    ]);
    expect([...view.generators!.keys()]).toEqual([
      'the fleet seed',
      `badge ${ADA}'s draws`,
      "badge 350000000000002's draws",
    ]);
  });
});

describe('files: read, checked as a restore checks them, compared (WS34)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'badge-sim-diff-'));
  const file = (name: string, content: unknown) => {
    const path = join(dir, name);
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
    return path;
  };

  test('refused, naming the file and what is wrong: missing, not JSON, another format, edited, of two kinds', async () => {
    const { before } = await twoWorlds();
    const good = file('good.json', before);
    const edited = structuredClone(before) as any;
    edited.clock.now = 'soon';
    const fleet = file('fleet.json', {
      format: 'badge-sim-fleet/1',
      at: 0,
      seed: 1,
      clips: [],
      badges: [],
    });
    const cases: [string, RegExp][] = [
      [join(dir, 'none.json'), /none\.json: there is no such file$/],
      [
        file('cut.json', JSON.stringify(before).slice(0, 100)),
        /cut\.json is not JSON \(.*\): a truncated or edited file\? take the snapshot again$/,
      ],
      [
        file('old.json', { ...before, format: 'badge-sim-snapshot/1' }),
        /old\.json: format is "badge-sim-snapshot\/1", not a snapshot this badge-sim reads \(badge-sim-snapshot\/2, a stub's .*; badge-sim-fleet\/1, a fleet's/,
      ],
      [
        file('edited.json', edited),
        /edited\.json: clock\/now must be number: take the snapshot again|edited\.json: clock\.now must be number/,
      ],
      [fleet, /is a stub's world, .*fleet\.json a fleet's badges: compare two of one kind$/],
    ];
    for (const [other, message] of cases) {
      expect(() => diffFiles(good, other)).toThrow(DiffUsageError);
      expect(() => diffFiles(good, other)).toThrow(message);
    }
    // One taken with ?secrets=omit is for reading: it compares, though it would not restore.
    const shared = file('shared.json', { ...before, secrets: 'omitted' });
    expect(diffFiles(good, shared).same).toBe(true);
    expect(diffText(diffFiles(good, good))).toBe(
      `the two worlds are the same: ${good} and ${good}, a stub's world at 2026-01-01T00:00:00.000000Z\n`,
    );
  });

  test('badge-sim diff A B: a line a difference, exit 1; --json for machines', async () => {
    const { before, after } = await twoWorlds();
    const a = file('a.json', before);
    const b = file('b.json', after);
    const run = runCli(['diff', a, b]);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(
      new RegExp(
        `^A ${a} and B ${b} \\(a stub's world\\) differ in 4 way\\(s\\):\\n  instant: A is at 2026-01-01T00:00:00.000000Z, B at 2026-01-01T00:00:10.000000Z \\(B 10 s later\\)\\n  tasks: task \\w+ only in B: "code"`,
      ),
    );
    const json = runCli(['diff', a, b, '--json']);
    expect(json.status).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual(diffFiles(a, b));
  });
});
