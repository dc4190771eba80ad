/**
 * `badge-sim repro`: reading field exports (GET events pages, analytics --json and its table),
 * inferring a scenario the loader accepts, running it, and saying where histories part.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyticsTable } from '../../cli/analytics.command.ts';
import { allJournalEntries, StubControlClient } from '../../client/control-client.ts';
import { ServiceClient } from '../../client/service-client.ts';
import type { Fixtures } from '../../fixtures/fixtures.schema.ts';
import { readTrace } from '../../input/read-trace.ts';
import type { AnalyticEvent } from '../../protocol/service-api.schema.ts';
import {
  compareHistories,
  type HistoryEvent,
  timeline,
} from '../../scenarios/field-bugs/repro/compare-histories.ts';
import {
  ExportError,
  MAX_EXPORT_BYTES,
  MAX_EXPORT_EVENTS,
  readAlertLines,
  readExports,
  readJournalAlerts,
} from '../../scenarios/field-bugs/repro/read-export.ts';
import { reproduce } from '../../scenarios/field-bugs/repro/reproduce.ts';
import { defineScenario, loadScenarioFile } from '../../scenarios/format/load-scenario.ts';
import { runScenario } from '../../scenarios/runner/run-scenario.ts';
import { startStub } from '../../server-stub/start-stub.ts';
import { runCli, startStubProcess } from '../support/cli.ts';

const catalogue = (name: string) => `scenarios/catalogue/${name}.scenario.yaml`;

/** The events a catalogue scenario leaves, as `GET events` returns them. */
async function fieldEventsOf(name: string): Promise<AnalyticEvent[]> {
  const report = await runScenario(loadScenarioFile(catalogue(name)));
  return report.actual.events;
}

const json = (events: unknown[]) => JSON.stringify(events, null, 2);

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'badge-sim-repro-'));
}

describe('reading a field export', () => {
  it('merges overlapping pages by event_id and orders events out of order by time', async () => {
    const events = await fieldEventsOf('different-name-alerts-interleave');
    const pageOne = events.slice(0, 5);
    // Out of order across the page; events of one instant (6, 7) in the order the service gave.
    const pageTwo = [events[6], events[7], events[3], events[4], events[5]];
    const read = readExports([
      { file: 'page1.json', text: json(pageOne) },
      { file: 'page2.json', text: json(pageTwo) },
    ]);
    expect(read.map((e) => e.event.event_id)).toEqual(events.map((e) => e.event_id));
  });

  it('refuses a page truncated mid-file, naming the file and the line', async () => {
    const text = json(await fieldEventsOf('single-acknowledgement'));
    const cut = text.slice(0, Math.floor(text.length / 2));
    const lines = cut.trimEnd().split('\n').length;
    expect(() => readExports([{ file: 'page2.json', text: cut }])).toThrow(
      new RegExp(`^page2\\.json:${lines}: not valid JSON .*Fetch that page again`),
    );
  });

  it('refuses an event without a field, naming its index and the field', async () => {
    const events = (await fieldEventsOf('single-acknowledgement')) as Partial<AnalyticEvent>[];
    delete events[1]!.timestamp;
    expect(() => readExports([{ file: 'events.json', text: json(events) }])).toThrow(
      /^events\.json: event \[1\]: timestamp is required/,
    );
  });

  it('refuses a bad timestamp and a table row with a missing column, naming the line', () => {
    const header =
      'WORKFLOW ID  TYPE   CATEGORY  INSTANCE ID  TIMESTAMP                    USER ID  CONTENT';
    const content =
      '{"task":{"id":"t1","name":"a","task_type":{"major":1,"minor":4,"name":"alerts","namespace":"system"}},"type":"start"}';
    const good = `a            start  tasks     t1           2026-01-01T00:00:00.000000Z           ${content}`;
    const badTime = good.replace('2026-01-01T00:00:00.000000Z', '2026-02-31T00:00:00.000000Z');
    expect(() =>
      readExports([{ file: 'l.txt', text: `${header}\n${good}\n${badTime}\n` }]),
    ).toThrow(/^l\.txt:3: timestamp '2026-02-31T00:00:00.000000Z' is not an ISO 8601 instant/);
    const noCategory = good.replace('tasks', '     ');
    expect(() => readExports([{ file: 'l.txt', text: `${header}\n${noCategory}\n` }])).toThrow(
      /^l\.txt:2: the row has no CATEGORY/,
    );
  });

  it('refuses a file larger than the cap before parsing it', () => {
    const text = `[${' '.repeat(MAX_EXPORT_BYTES)}]`;
    expect(() => readExports([{ file: 'huge.json', text }])).toThrow(
      /^huge\.json: larger than 64 MiB; export a shorter span/,
    );
  });

  it('refuses more than 100,000 events in all files, and takes exactly 100,000', () => {
    const task = {
      id: 't',
      name: 'a',
      task_type: { major: 1, minor: 4, name: 'alerts', namespace: 'system' },
    };
    const events = Array.from({ length: MAX_EXPORT_EVENTS }, (_, i) => ({
      category: 'tasks',
      content: { type: 'acknowledged', device: 'A' },
      task,
      event_id: String(i),
      timestamp: '2026-01-01T00:00:00.000000Z',
    }));
    const all = { file: 'all.json', text: JSON.stringify(events) };
    expect(readExports([all])).toHaveLength(MAX_EXPORT_EVENTS);
    const one = { file: 'one-more.json', text: JSON.stringify([{ ...events[0], event_id: 'x' }]) };
    expect(() => readExports([all, one])).toThrow(
      /^one-more\.json: more than 100000 events in all; export a shorter span/,
    );
  });

  it('refuses events spanning more than 30 days', async () => {
    const events = await fieldEventsOf('single-acknowledgement');
    events.at(-1)!.timestamp = '2026-02-01T00:00:00.000001Z';
    expect(() => readExports([{ file: 'e.json', text: json(events) }])).toThrow(
      /^e\.json: the events span 2026-01-01T00:00:00\.000000Z to 2026-02-01T00:00:00\.000001Z, more than 30 days/,
    );
    events.at(-1)!.timestamp = '2026-01-31T00:00:00.000000Z';
    expect(readExports([{ file: 'e.json', text: json(events) }])).toHaveLength(events.length);
  });

  it('refuses an alert body sent that nests deeper than 32 levels, naming the line', () => {
    const line = (notification: unknown) =>
      JSON.stringify({ at: '2026-01-01T00:00:00Z', body: { notification } });
    const deep = line(JSON.parse(`${'['.repeat(32)}${']'.repeat(32)}`));
    const deepest = line(JSON.parse(`${'['.repeat(31)}${']'.repeat(31)}`));
    expect(() => readAlertLines('sent.jsonl', `${line('x')}\n${deep}\n`)).toThrow(
      /^sent\.jsonl:2: body nests deeper than 32 levels/,
    );
    expect(readAlertLines('sent.jsonl', `${line('x')}\n${deepest}`)).toHaveLength(2);
  });

  it('--alerts: a line that is not JSON, or has no instant, is named by its line; blank lines are skipped', () => {
    const good = JSON.stringify({ at: '2026-01-01T00:00:00Z', body: { notification: 'x' } });
    expect(() => readAlertLines('sent.jsonl', `${good}\n\n{"at": "2026-01-01`)).toThrow(
      /^sent\.jsonl:3: not a JSON line; each line is \{"at"/,
    );
    expect(() => readAlertLines('sent.jsonl', `${good}\n{"body": {}}`)).toThrow(
      /^sent\.jsonl:2: at must be an ISO instant/,
    );
    expect(readAlertLines('sent.jsonl', `\n${good}\n\n`)).toHaveLength(1);
  });

  it('refuses a file that is not an export, saying what one is', () => {
    expect(() => readExports([{ file: 'x.yaml', text: 'accounts: []' }])).toThrow(
      new ExportError(
        'x.yaml: not an events export: expected the JSON array of GET events (or of badge-sim analytics --json), or the table badge-sim analytics prints (its first line begins WORKFLOW ID)',
      ),
    );
  });
});

describe('repro of catalogue scenarios (round trip, no optional input)', () => {
  // Every catalogue scenario that leaves events; the others (refusals, broadcasts, workflows,
  // batteries, device info) leave none to reproduce.
  const named = readdirSync('scenarios/catalogue').map((f) => f.replace('.scenario.yaml', ''));

  it.each(named)(
    '%s: overlapping GET events pages and the analytics table reproduce its events',
    async (name) => {
      const events = await fieldEventsOf(name);
      if (events.length === 0) return;
      // Pages of 3 that overlap by one event, as a developer saves them.
      const pages = [];
      for (let from = 0; from < events.length; from += 2)
        pages.push({
          file: `page${pages.length + 1}.json`,
          text: json(events.slice(from, from + 3)),
        });
      const fromPages = await reproduce({ exports: pages });
      expect(fromPages.comparison.difference).toBeUndefined();
      expect(fromPages.comparison.field).toHaveLength(events.length);
      const fromTable = await reproduce({
        exports: [{ file: 'listing.txt', text: analyticsTable(events) }],
      });
      expect(fromTable.comparison.difference).toBeUndefined();
      expect(fromTable.comparison.match).toBe(true);
    },
  );

  it('writes YAML the loader reads, with proves: naming the source and guesses marked', async () => {
    const events = await fieldEventsOf('cancel-by-delete');
    const { yaml } = await reproduce({ exports: [{ file: 'events.json', text: json(events) }] });
    const dir = tempDir();
    writeFileSync(join(dir, 'inferred.scenario.yaml'), yaml);
    const loaded = loadScenarioFile(join(dir, 'inferred.scenario.yaml'));
    expect(loaded.scenario.proves).toMatch(
      /events\.json \(3 events from 2026-01-01T00:00:00\.000000Z, over 45s\)/,
    );
    expect(loaded.scenario.timeline).toContainEqual({ at: '45s', cancel: 'alerts' });
    expect(yaml).toContain('# guessed: notification and groups');
    expect((await runScenario(loaded)).passed).toBe(true);
  });
});

describe('what the events do not tell', () => {
  it('--journal: the bodies the stub journalled are the alert steps, matched by task id', async () => {
    await using stub = await startStub({ clock: 'virtual', seed: 1 });
    const service = new ServiceClient({
      baseUrl: stub.url,
      subscriberId: '100001',
      apiKey: 'demo-api-key-riverside-0001',
    });
    const control = new StubControlClient(stub.controlUrl.replace(/\/_stub$/, ''));
    await service.alert({
      notification: 'Wet floor by lift B',
      groups: ['Pharmacy'],
      name: 'spill',
      timeout: 40,
    });
    await control.advance('10s');
    await service.alert({
      notification: 'Second spill on ward 3',
      groups: ['Nurses'],
      name: 'spill',
      timeout: 20,
    });
    await control.advance('60s');
    const events = await service.allEvents();
    const journal = { entries: await allJournalEntries(control, { method: 'POST' }) };
    const result = await reproduce({
      exports: [{ file: 'events.json', text: json(events) }],
      sent: readJournalAlerts('journal.json', JSON.stringify(journal)),
    });
    expect(result.comparison.difference).toBeUndefined();
    const alerts = result.inferred.scenario.timeline.flatMap((step) =>
      'alert' in step ? [{ as: step.as, ...(step.alert as object) }] : [],
    );
    expect(alerts).toMatchObject([
      { as: 'spill', notification: 'Wet floor by lift B', groups: ['Pharmacy'], timeout: 40 },
      { as: 'spill #2', notification: 'Second spill on ward 3', groups: ['Nurses'], timeout: 20 },
    ]);
    expect(result.yaml).not.toContain('guessed: notification');
  });

  it('--alerts: groups named by id URN and by name URN become fixture groups the stub resolves', async () => {
    const sent = [
      { notification: 'Code blue', groups: ['urn:service-resource:id:group:5001'], name: 'blue' },
      {
        notification: 'Code red',
        groups: ['urn:service-resource:name:group:Pharmacy'],
        name: 'red',
      },
    ];
    const report = await runScenario(
      defineScenario({
        name: 'two URNs',
        proves: 'field events to repro',
        timeline: [
          { at: '0s', alert: sent[0]!, as: 'blue' },
          { at: '2s', alert: sent[1]!, as: 'red' },
          { at: '5s', tap: 'Ada Mensah' },
          { at: '7s', tap: 'Omar Haddad' },
        ],
        duration: '10s',
        expect: {},
      }),
    );
    const lines = sent
      .map((body, i) => JSON.stringify({ at: `2026-01-01T00:00:0${2 * i}Z`, body }))
      .join('\n');
    const result = await reproduce({
      exports: [{ file: 'events.json', text: json(report.actual.events) }],
      sent: readAlertLines('sent.jsonl', lines),
    });
    expect(result.comparison.difference).toBeUndefined();
    const fixtures = result.inferred.scenario.fixtures as Fixtures;
    expect(fixtures.accounts[0]!.groups).toMatchObject([
      { id: '5001', name: 'Group 5001' },
      { name: 'Pharmacy' },
    ]);
  });

  it('--alerts: group URNs with another brand word make the scenario set urn_word, and it reproduces', async () => {
    const body = {
      notification: 'Code red',
      groups: ['urn:acme-resource:name:group:Pharmacy'],
      name: 'red',
    };
    const report = await runScenario(
      defineScenario({
        name: 'an acme URN',
        proves: 'field events to repro',
        settings: { urn_word: 'acme' },
        timeline: [
          { at: '0s', alert: body, as: 'red' },
          { at: '5s', tap: 'Omar Haddad' },
        ],
        duration: '10s',
        expect: {},
      }),
    );
    expect(report.actual.events.map((e) => e.content.type)).toContain('acknowledged');
    const result = await reproduce({
      exports: [{ file: 'events.json', text: json(report.actual.events) }],
      sent: readAlertLines('sent.jsonl', JSON.stringify({ at: '2026-01-01T00:00:00Z', body })),
    });
    expect(result.inferred.scenario.settings).toEqual({ urn_word: 'acme' });
    expect(result.comparison.difference).toBeUndefined();
  });

  it('an alert that began before the export is posted at its first event, and its start not compared', async () => {
    const events = await fieldEventsOf('single-acknowledgement');
    const withoutStart = events.filter((e) => e.content.type !== 'start');
    const result = await reproduce({ exports: [{ file: 'page2.json', text: json(withoutStart) }] });
    expect(result.comparison.match).toBe(true);
    expect(result.yaml).toContain('guessed: it began before the export');
    expect(result.inferred.scenario.expect.events).toMatchObject({ only: false });
  });
});

describe('where histories part', () => {
  it('a tap moved onto another alert: exit 1 and the sentence says what the badge was hearing', async () => {
    const events = await fieldEventsOf('different-name-alerts-interleave');
    const spill = events.find((e) => e.task.name === 'spill')!.task;
    const meds = events.find((e) => e.task.name === 'meds')!.task;
    const lenaAcks = events.filter(
      (e) => e.content.type === 'acknowledged' && e.content.device === 'Lena Ortiz',
    );
    lenaAcks[0]!.task = spill; // 0:15: the field says Lena acknowledged spill …
    lenaAcks[1]!.task = meds; // … and, at 0:35, meds.
    const dir = tempDir();
    writeFileSync(join(dir, 'events.json'), json(events));
    writeFileSync(
      join(dir, 'sent.jsonl'),
      [
        {
          at: '2026-01-01T00:00:00Z',
          body: { notification: 'Spill in aisle', groups: ['Pharmacy'], name: 'spill' },
        },
        {
          at: '2026-01-01T00:00:10Z',
          body: { notification: 'Meds for bed four', groups: ['Pharmacy'], name: 'meds' },
        },
      ]
        .map((line) => JSON.stringify(line))
        .join('\n'),
    );
    const out = join(dir, 'field.scenario.yaml');
    const run = runCli([
      'repro',
      join(dir, 'events.json'),
      '--alerts',
      join(dir, 'sent.jsonl'),
      '--fixtures',
      'fixtures/default.fixtures.yaml',
      '--scenario-out',
      out,
      '--trace',
      join(dir, 'field.trace.gz'),
    ]);
    expect(run.stderr).not.toMatch(/Error/);
    expect(run.status).toBe(1);
    // TR12: the run's trace, the field's events a lane of their own, the parting at 0:15.
    expect(run.stderr).toContain(
      `badge-sim repro: wrote the trace to ${join(dir, 'field.trace.gz')}: the run, the field's events as a lane of their own, and where they part`,
    );
    const { records } = readTrace(join(dir, 'field.trace.gz'));
    expect(records.map((r) => r.seq)).toEqual(records.map((_, i) => i + 1));
    const field = records.filter((r) => r.kind === 'field');
    expect(field).toHaveLength(events.length);
    const parting = records.find((r) => r.kind === 'parting')!;
    expect(parting).toMatchObject({
      time: '2026-01-01T00:00:15.000000Z',
      field: { type: 'acknowledged', task: 'spill', device: 'Lena Ortiz', at_ms: 15_000 },
      stub: { type: 'acknowledged', task: 'meds', device: 'Lena Ortiz', at_ms: 15_000 },
    });
    expect(parting.sentence).toBe(
      "at 0:15 the field's tap by Lena Ortiz acknowledged `spill`; in the stub it acknowledged `meds`, which Lena Ortiz was hearing then.",
    );
    expect(field.filter((r) => r.matched).length).toBe(parting.index);
    expect(records.some((r) => r.kind === 'transition')).toBe(true);
    expect(run.stdout).toMatch(
      /^>> +0:15 +acknowledged `spill` by Lena Ortiz +0:15 +acknowledged `meds` by Lena Ortiz$/m,
    );
    expect(run.stdout).toContain(
      "At 0:15 the field's tap by Lena Ortiz acknowledged `spill`; in the stub it acknowledged `meds`, which Lena Ortiz was hearing then.",
    );
    expect(readFileSync(out, 'utf8')).toContain('notification: Spill in aisle');
  });

  it('a timeout the service kept 12 ms late parts at 0 ms tolerance and matches --within 1s', async () => {
    const events = await fieldEventsOf('default-timeout-with-on-timeout');
    for (const e of events.filter((e) => e.content.type !== 'start'))
      e.timestamp = e.timestamp.replace('00:05:00.000000Z', '00:05:00.012000Z');
    const exports = [{ file: 'late.json', text: json(events) }];
    const trace = join(tempDir(), 'late.trace.gz');
    const exact = await reproduce({ exports, trace });
    // TR12: the field's timeout at its own instant, the run's at 5:00, the parting at the earlier.
    const { records } = readTrace(trace);
    const late = records.find((r) => r.kind === 'field' && r.type === 'timed_out')!;
    expect(late).toMatchObject({ time: '2026-01-01T00:05:00.012000Z', matched: false });
    const parting = records.find((r) => r.kind === 'parting')!;
    expect(parting.time).toBe('2026-01-01T00:05:00.000000Z');
    expect(records.indexOf(parting)).toBeLessThan(records.indexOf(late));
    expect(exact.comparison.difference?.sentence).toBe(
      "the field's timed_out `alerts` is at 5:00.012; in the stub it is at 5:00.",
    );
    const within = await reproduce({ exports, toleranceMs: 1_000 });
    expect(within.comparison.match).toBe(true);
  });

  it('bad input exits 2 with what to fix', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'cut.json'), '[{"category": "tasks",');
    const run = runCli(['repro', join(dir, 'cut.json')]);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/cut\.json:1: not valid JSON/);
    const wrongOption = runCli(['repro', join(dir, 'cut.json'), '--within', '1x']);
    expect(wrongOption.status).toBe(2);
    expect(wrongOption.stderr).toContain('--within must be a duration');
  });
});

describe('what the stub refuses (FB13)', () => {
  const event = (task: string, type: string, timestamp: string, content: object = {}) => ({
    category: 'tasks',
    event_id: `${task}${type}${timestamp}`
      .replace(/[^0-9a-z]/gi, '')
      .padEnd(32, '0')
      .slice(0, 32),
    timestamp,
    content: { type, ...content },
    task: {
      id: task,
      name: 'spill',
      task_type: { major: 1, minor: 4, name: 'alerts', namespace: 'system' },
    },
  });

  it('an alert open longer than any timeout gets the longest one, which the stub takes', async () => {
    const events = [
      event('T1', 'start', '2026-01-01T00:00:00.000000Z'),
      event('T1', 'acknowledged', '2026-01-09T00:00:00.000000Z', { device: 'Lena Ortiz' }),
    ];
    const result = await reproduce({ exports: [{ file: 'long.json', text: json(events) }] });
    expect(result.inferred.scenario.timeline[0]).toMatchObject({ alert: { timeout: 604_800 } });
    expect(result.yaml).toContain('the longest the service takes');
    expect(result.refused).toEqual([]);
  });

  it('a body sent that the stub refuses is said first, with its answer, not as a history that parts', () => {
    const dir = tempDir();
    const events = [
      event('T1', 'start', '2026-01-01T00:00:00.000000Z'),
      event('T1', 'acknowledged', '2026-01-01T00:00:05.000000Z', { device: 'Lena Ortiz' }),
      event('T1', 'end', '2026-01-01T00:00:05.000000Z', { status: 'normal' }),
    ];
    writeFileSync(join(dir, 'events.json'), json(events));
    const sent = {
      at: '2026-01-01T00:00:00Z',
      body: { name: 'spill', notification: 'Spill', groups: ['Ward'], priority: 'high' },
    };
    writeFileSync(join(dir, 'sent.jsonl'), JSON.stringify(sent));
    const run = runCli(['repro', join(dir, 'events.json'), '--alerts', join(dir, 'sent.jsonl')]);
    expect(run.status).toBe(1);
    expect(run.stdout).toContain(
      "The stub refused what the scenario sent where the field's service took it",
    );
    expect(run.stdout).toMatch(
      /timeline\[0\] alert answer \(spill\): status 400, expected 200; body .*"field":"priority"/,
    );
  });
});

describe('a long timeline', () => {
  const events = (n: number, odd?: number): HistoryEvent[] =>
    Array.from({ length: n }, (_, i) => ({
      at: i * 1000,
      type: 'acknowledged',
      task: i === odd ? 'other' : 'spill',
      device: `User ${i}`,
    }));

  it('past 60 rows prints the start, the rows around the difference and the end, counting what it leaves out', () => {
    const text = timeline(compareHistories(events(200), events(200, 100)));
    const lines = text.trimEnd().split('\n');
    expect(lines).toHaveLength(1 + 10 + 1 + 21 + 1 + 10);
    expect(lines[11]).toBe('    … 80 rows that match left out (--all-rows prints them) …');
    expect(lines[33]).toBe(
      '    … 79 rows after the difference left out (--all-rows prints them) …',
    );
    expect(lines.filter((l) => l.startsWith('>>'))).toEqual([
      expect.stringMatching(
        /^>> {2}1:40 +acknowledged `spill` by User 100 +1:40 +acknowledged `other` by User 100$/,
      ),
    ]);
    // At 60 rows exactly, every row; --all-rows: every row of any length.
    expect(
      timeline(compareHistories(events(60), events(60)))
        .trimEnd()
        .split('\n'),
    ).toHaveLength(61);
    expect(
      timeline(compareHistories(events(200), events(200, 100)), { all: true })
        .trimEnd()
        .split('\n'),
    ).toHaveLength(201);
  });
});

describe('the analytics table printed by the real command', () => {
  it('repro reads it and reproduces the stub process’s events (exit 0)', async () => {
    await using stub = await startStubProcess(['--clock', 'virtual']);
    const report = await runScenario(loadScenarioFile(catalogue('same-name-alerts-are-serial')), {
      mode: 'external',
      stubUrl: stub.url,
    });
    expect(report.passed).toBe(true);
    const listing = runCli(
      ['analytics', '--base-url', stub.url, '-s', '100001', '--limit', '100'],
      { BADGE_SIM_API_KEY: 'demo-api-key-riverside-0001' },
    );
    expect(listing.status).toBe(0);
    const dir = tempDir();
    writeFileSync(join(dir, 'listing.txt'), listing.stdout);
    const run = runCli(['repro', join(dir, 'listing.txt'), '--json']);
    expect(run.status).toBe(0);
    const answer = JSON.parse(run.stdout) as { match: boolean; events: number };
    expect(answer).toMatchObject({ match: true, events: report.actual.events.length });
  });
});
