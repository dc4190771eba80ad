/**
 * `badge-sim repro --search` (decision FB11): field exports made by a stub that ran with an
 * alternative the spec leaves open (a tap rule, cancels that end normal, a badge off the
 * network before a late tap); the defaults do not reproduce them, and the search says which
 * alternative does, and saves it as a scenario that passes.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { Fixtures } from '../../fixtures/fixtures.schema.ts';
import { reproduce } from '../../scenarios/field-bugs/repro/reproduce.ts';
import { label, searchAlternatives } from '../../scenarios/field-bugs/repro/search.ts';
import { defineScenario, loadScenarioFile } from '../../scenarios/format/load-scenario.ts';
import type { Step } from '../../scenarios/format/scenario.schema.ts';
import { runScenario } from '../../scenarios/runner/run-scenario.ts';
import { runCli } from '../support/cli.ts';

const LENA = '350000000000001';
const BEN = '350000000000002';
const FIXTURES: Fixtures = {
  accounts: [
    {
      subscriber_id: '100001',
      api_keys: ['ward-api-key-0001'],
      groups: [{ id: '5001', name: 'Ward', members: [LENA, BEN] }],
      devices: [
        { id: LENA, user: 'Lena Ortiz' },
        { id: BEN, user: 'Ben Okafor' },
      ],
    },
  ],
};
const DRILL = {
  name: 'fire-drill',
  notification: 'Fire drill in ward three',
  groups: ['Ward'],
  quorum: 1,
};
const SPILL = { name: 'spill', notification: 'Spill in corridor B', groups: ['Ward'], quorum: 1 };

/** The events a stub leaves when a scenario runs on it: the field's export. */
async function fieldExport(
  timeline: Step[],
  more: { behaviours?: Record<string, unknown>; settings?: Record<string, unknown> } = {},
) {
  const report = await runScenario(
    defineScenario({
      name: 'the field',
      proves: 'What happened in the field.',
      fixtures: FIXTURES,
      ...more,
      timeline,
      duration: '2m',
      expect: {},
    } as never),
  );
  return [{ file: 'events.json', text: JSON.stringify(report.actual.events) }];
}

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'badge-sim-search-'));
}

describe('repro --search', () => {
  it('a badge that acknowledges the newest alert: the defaults part at its tap, the tap rule newest explains it', async () => {
    const exports = await fieldExport(
      [
        { at: '0s', alert: DRILL, as: 'drill' },
        { at: '10s', alert: SPILL, as: 'spill' },
        // fire-drill's repeat is sounding; a badge of rule newest takes the spill.
        { at: '30100ms', tap: 'Lena Ortiz' },
        { at: '70s', tap: 'Ben Okafor' },
      ],
      { behaviours: { '*': { acknowledges: 'newest' } } },
    );
    const plain = await reproduce({ exports, fixtures: FIXTURES });
    expect(plain.comparison.difference?.sentence).toBe(
      "at 0:30.100 the field's tap by Lena Ortiz acknowledged `spill`; in the stub it acknowledged `fire-drill`, which Lena Ortiz was hearing then.",
    );
    const search = await searchAlternatives({ exports, fixtures: FIXTURES });
    expect(search.trials[0]).toMatchObject({ alternatives: [], comparison: { match: false } });
    const found = search.explanations.map((e) => label(e.alternatives));
    // Simplest first: a behaviour of every badge before a mended tap.
    expect(found[0]).toBe(
      'every badge acknowledges the newest alert it has heard (behaviour acknowledges: newest; decision D11)',
    );
    expect(found).toContain(
      'Lena Ortiz pressed at 0:10.100, while hearing `spill`, and the tap reached the service 20 s later, at 0:30.100 (tap delay)',
    );
    // The oldest rule does not explain it: listed as tried, not found.
    expect(found.some((f) => f.includes('oldest') && !f.includes(';'))).toBe(false);
    // What is found is a scenario that passes as it is written.
    const dir = tempDir();
    writeFileSync(join(dir, 'found.scenario.yaml'), search.explanations[0]!.yaml);
    const loaded = loadScenarioFile(join(dir, 'found.scenario.yaml'));
    expect(loaded.scenario.behaviours).toEqual({ '*': { acknowledges: 'newest' } });
    expect(loaded.scenario.proves).toMatch(
      /happens again on the stub when every badge acknowledges the newest alert/,
    );
    expect(search.explanations[0]!.yaml).toContain(
      '# found by repro --search: every badge acknowledges',
    );
    expect((await runScenario(loaded)).failures).toEqual([]);
  });

  it('cancels that end normal: the defaults end it cancelled, cancel_events end-normal explains it', async () => {
    const exports = await fieldExport(
      [
        { at: '0s', alert: { ...SPILL, quorum: 2 }, as: 'spill' },
        { at: '5s', tap: 'Ben Okafor' },
        { at: '20s', cancel: 'spill' },
      ],
      { settings: { cancel_events: 'end-normal' } },
    );
    const plain = await reproduce({ exports, fixtures: FIXTURES });
    expect(plain.comparison.difference?.sentence).toBe(
      "at 0:20 the field's `spill` ended normal; in the stub it ended cancelled.",
    );
    // The inferred scenario says what it guessed there.
    expect(plain.yaml).toContain(
      'guessed: cancelled; it ended normal with no acknowledgement then',
    );
    const search = await searchAlternatives({ exports, fixtures: FIXTURES });
    expect(label(search.explanations[0]!.alternatives)).toBe(
      'a cancel ends normal, not cancelled (settings: cancel_events: end-normal)',
    );
    const scenario = loadScenarioFile(writeTemp(search.explanations[0]!.yaml)).scenario;
    expect(scenario.settings).toEqual({ cancel_events: 'end-normal' });
    expect(scenario.timeline).toContainEqual({ at: '20s', cancel: 'spill' });
  });

  it('a badge off the network before a late tap: the offline window is among the explanations, and passes', async () => {
    const exports = await fieldExport([
      { at: '0s', alert: DRILL, as: 'drill' },
      { at: '5s', alert: SPILL, as: 'spill' },
      { at: '20s', offline: 'Lena Ortiz' },
      { at: '50s', online: 'Lena Ortiz' },
      // Back on the network, she hears fire-drill replayed first, and takes it.
      { at: '50500ms', tap: 'Lena Ortiz' },
      { at: '90s', tap: 'Ben Okafor' },
    ]);
    const plain = await reproduce({ exports, fixtures: FIXTURES });
    expect(plain.comparison.match).toBe(false);
    const search = await searchAlternatives({ exports, fixtures: FIXTURES });
    const window = search.explanations.find((e) =>
      e.alternatives.every((a) => a.kind === 'offline-before-tap'),
    );
    expect(window && label(window.alternatives)).toBe(
      'Lena Ortiz was off the network from 0:20 to 0:50, before the tap at 0:50.500 (offline, online)',
    );
    const scenario = loadScenarioFile(writeTemp(window!.yaml)).scenario;
    expect(scenario.timeline).toContainEqual({ at: '20s', offline: 'Lena Ortiz' });
    expect(scenario.timeline).toContainEqual({ at: '50s', online: 'Lena Ortiz' });
    expect((await runScenario(loadScenarioFile(writeTemp(window!.yaml)))).failures).toEqual([]);
  });

  it('two alerts of the same name interleaved with taps reproduce with no search needed', async () => {
    const exports = await fieldExport([
      { at: '0s', alert: { ...SPILL, quorum: 2 }, as: 'first' },
      { at: '3s', alert: { ...SPILL, quorum: 2 }, as: 'second' },
      { at: '6s', tap: 'Lena Ortiz' },
      { at: '8s', tap: 'Ben Okafor' },
      { at: '40s', tap: 'Lena Ortiz' },
      { at: '41s', tap: 'Ben Okafor' },
    ]);
    const events = JSON.parse(exports[0]!.text) as { content: { type: string } }[];
    expect(events.filter((e) => e.content.type === 'acknowledged')).toHaveLength(4);
    const plain = await reproduce({ exports, fixtures: FIXTURES });
    expect(plain.comparison.difference).toBeUndefined();
    expect(plain.inferred.alerts.map((a) => a.alias)).toEqual(['spill', 'spill #2']);
    const search = await searchAlternatives({ exports, fixtures: FIXTURES });
    expect(search.explanations[0]!.alternatives).toEqual([]);
  });

  it('a log nothing explains: exit 1, the variants that got furthest, and nothing written', () => {
    // An acknowledgement after its alert ended: no tap rule, setting or window gives that.
    const dir = tempDir();
    const start = (id: string, at: string) => event(id, 'start', at);
    const events = [
      start('T1', '2026-01-01T00:00:00.000000Z'),
      event('T1', 'acknowledged', '2026-01-01T00:00:05.000000Z', { device: 'Lena Ortiz' }),
      event('T1', 'end', '2026-01-01T00:00:05.000000Z', { status: 'normal' }),
      event('T1', 'acknowledged', '2026-01-01T00:00:09.000000Z', { device: 'Lena Ortiz' }),
    ];
    writeFileSync(join(dir, 'events.json'), JSON.stringify(events));
    const run = runCli([
      'repro',
      join(dir, 'events.json'),
      '--search',
      '--write',
      join(dir, 'out.yaml'),
    ]);
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('None explains the log. The variants that got furthest:');
    expect(run.stdout).toContain(
      'Without --fixtures each user hears only the alerts they acknowledged',
    );
    expect(run.stdout).toMatch(/Searched \d+ variants of the scenario/);
    expect(() => readFileSync(join(dir, 'out.yaml'))).toThrow();
  });

  it('from the command line: exit 0, the list simplest first, --write saves a scenario badge-sim run passes', () => {
    const dir = tempDir();
    const exports = fieldExportFileSync(dir);
    writeFileSync(join(dir, 'fixtures.yaml'), stringify(FIXTURES));
    const out = join(dir, 'found.scenario.yaml');
    const run = runCli([
      'repro',
      exports,
      '--fixtures',
      join(dir, 'fixtures.yaml'),
      '--search',
      '--write',
      out,
      '--pick',
      '2',
    ]);
    expect(run.stderr).toContain('badge-sim repro: searching');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(
      /\d+ explain the log, simplest first:\n {2}1\. every badge acknowledges the newest alert/,
    );
    expect(run.stdout).toContain(`Saved 2 as ${out}: badge-sim run ${out}`);
    // As the README prints it.
    expect(run.stdout).toContain(
      [
        'Searched 11 variants of the scenario.',
        '3 explain the log, simplest first:',
        '  1. every badge acknowledges the newest alert it has heard (behaviour acknowledges: newest; decision D11)',
        '  2. Lena Ortiz pressed at 0:10.100, while hearing `spill`, and the tap reached the service 20 s later, at 0:30.100 (tap delay)',
        '  3. Lena Ortiz was off the network from 0:00 to 0:25.100, before the tap at 0:30.100 (offline, online)',
      ].join('\n'),
    );
    const passed = runCli(['run', out]);
    expect(passed.stdout).toContain('all scenarios passed');
    expect(passed.status).toBe(0);
  });

  it('stops at its time bound and says so; keeps no history of a trial, only how it compared', async () => {
    const exports = [
      { file: 'events.json', text: readFileSync(fieldExportFileSync(tempDir()), 'utf8') },
    ];
    const none = await searchAlternatives({ exports, fixtures: FIXTURES, maxMs: 0 });
    expect(none).toMatchObject({ stopped: true, trials: [], explanations: [] });
    const some = await searchAlternatives({ exports, fixtures: FIXTURES });
    expect(some.stopped).toBe(false);
    expect(some.trials.length).toBeGreaterThan(1);
    for (const trial of some.trials) {
      expect(trial.comparison).not.toHaveProperty('field');
      expect(trial.comparison).not.toHaveProperty('stub');
    }
  });

  it('a --write or --scenario-out it cannot write is refused before any work (exit 2)', () => {
    const dir = tempDir();
    const exports = fieldExportFileSync(dir);
    const missing = runCli(['repro', exports, '--search', '--write', join(dir, 'no', 'x.yaml')]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain(
      'cannot write there (ENOENT); give a file in a folder that exists',
    );
    expect(missing.stdout).toBe('');
    const folder = runCli(['repro', exports, '--scenario-out', dir]);
    expect(folder.status).toBe(2);
    expect(folder.stderr).toContain('a folder; give a file name in it');
  });

  it('refuses --write without --search, --pick without --write, and a --pick past the list (exit 2)', () => {
    const dir = tempDir();
    const exports = fieldExportFileSync(dir);
    const write = runCli(['repro', exports, '--write', join(dir, 'x.yaml')]);
    expect(write.status).toBe(2);
    expect(write.stderr).toContain('--write saves what --search found: add --search');
    const pick = runCli(['repro', exports, '--pick', '2']);
    expect(pick.status).toBe(2);
    expect(pick.stderr).toContain('--pick chooses what --write saves');
    const past = runCli([
      'repro',
      exports,
      '--search',
      '--write',
      join(dir, 'x.yaml'),
      '--pick',
      '999',
    ]);
    expect(past.status).toBe(2);
    expect(past.stderr).toMatch(
      /--pick 999: the search found \d+ explanation\(s\); pick one of 1 to \d+/,
    );
  });
});

function writeTemp(yaml: string): string {
  const file = join(tempDir(), 'found.scenario.yaml');
  writeFileSync(file, yaml);
  return file;
}

/** A field event as GET events gives it. */
function event(
  task: string,
  type: string,
  timestamp: string,
  content: Record<string, string> = {},
) {
  return {
    category: 'tasks',
    event_id: `${task}-${type}-${timestamp}`
      .replace(/[^0-9a-z]/gi, '')
      .padEnd(32, '0')
      .slice(0, 32),
    timestamp,
    source: { type: 'tasks', id: task },
    content: { type, ...content },
    task: {
      id: task,
      name: 'spill',
      task_type: { major: 1, minor: 4, name: 'alerts', namespace: 'system' },
    },
  };
}

/**
 * The newest-rule field of the first test, written by hand as the stub gave it: Lena's tap at
 * 0:30.100 took the spill while fire-drill's repeat sounded.
 */
function fieldExportFileSync(dir: string): string {
  const drill = 'Tdrill';
  const spill = 'Tspill';
  const events = [
    event(drill, 'start', '2026-01-01T00:00:00.000000Z'),
    event(spill, 'start', '2026-01-01T00:00:10.000000Z'),
    event(spill, 'acknowledged', '2026-01-01T00:00:30.100000Z', { device: 'Lena Ortiz' }),
    event(spill, 'end', '2026-01-01T00:00:30.100000Z', { status: 'normal' }),
    event(drill, 'acknowledged', '2026-01-01T00:01:10.000000Z', { device: 'Ben Okafor' }),
    event(drill, 'end', '2026-01-01T00:01:10.000000Z', { status: 'normal' }),
  ].map((e) => ({ ...e, task: { ...e.task, name: e.task.id === drill ? 'fire-drill' : 'spill' } }));
  const file = join(dir, 'events.json');
  writeFileSync(file, JSON.stringify(events));
  return file;
}
