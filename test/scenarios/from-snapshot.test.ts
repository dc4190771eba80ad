/**
 * A scenario's `snapshot:` step and a later one's `from:` (issue 32, WS20–WS23): a world
 * prepared once and written, then carried on by another scenario, gives the same events —
 * byte for byte, ids included — as the one scenario that does both in one timeline.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { loadScenarioFile, loadScenarioText } from '../../scenarios/format/load-scenario.ts';
import { runScenario } from '../../scenarios/runner/run-scenario.ts';
import { startStub } from '../../server-stub/start-stub.ts';

// Three badges acknowledge 10 s, 30–80 s (drawn from the seed) and 70 s after the alert first
// plays; the world is cut at 45 s, with the drawn and scheduled taps still to come.
const SETUP = `
badges: { group: Nurses }
`;
const BEHAVIOURS = `
behaviours:
  Ada Mensah: { ack: { after: 10s } }
  Lena Ortiz: { ack: { after: 30s..80s } }
  Ben Okafor: { ack: { after: 70s } }
`;
const ALERT = `
  - at: 0s
    alert: { notification: Room 9 buzzer, groups: [Nurses], on_ack: Thanks }
    expect: { status: 200 }
`;
const PREPARE = `name: Prepare\nproves: the world at 45 s, written\n${SETUP}${BEHAVIOURS}
timeline:${ALERT}
  - at: 45s
    snapshot: world.snapshot.json
expect: {}
`;
const CONTINUE = `name: Continue\nproves: the world carried on from 45 s\nfrom: world.snapshot.json\n${SETUP}
timeline: []
duration: 105s
expect: {}
`;
const WHOLE = `name: Whole\nproves: both in one timeline\n${SETUP}${BEHAVIOURS}
timeline:${ALERT}
duration: 150s
expect: {}
`;

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'badge-sim-from-snapshot-'));
  for (const [name, text] of [
    ['prepare', PREPARE],
    ['continue', CONTINUE],
    ['whole', WHOLE],
  ])
    writeFileSync(join(dir, `${name}.scenario.yaml`), text!);
  return dir;
}

describe('a snapshot step, and a scenario from it', () => {
  test('WS20 WS22 WS23: prepare, then continue from the file: the events of the whole, byte for byte; the same from a stub by URL; a refused file leaves that stub as it was', async () => {
    const dir = folder();
    const prepared = await runScenario(loadScenarioFile(join(dir, 'prepare.scenario.yaml')));
    expect(prepared.failures).toEqual([]);
    const file = JSON.parse(readFileSync(join(dir, 'world.snapshot.json'), 'utf8'));
    expect(file.format).toBe('badge-sim-snapshot/2');
    expect(file.badges.format).toBe('badge-sim-fleet/1');
    expect(file.badges.badges.map((b: { deviceId: string }) => b.deviceId)).toHaveLength(3);

    const continued = await runScenario(loadScenarioFile(join(dir, 'continue.scenario.yaml')));
    expect(continued.failures).toEqual([]);
    expect(continued.startedAt).toBe(file.taken_at);
    const whole = await runScenario(loadScenarioFile(join(dir, 'whole.scenario.yaml')));
    expect(JSON.stringify([...prepared.actual.events, ...continued.actual.events])).toBe(
      JSON.stringify(whole.actual.events),
    );
    // After the cut: Lena's drawn tap, Ben's scheduled one, and the end they make.
    expect(
      continued.actual.events.map((e) => [e.content.type, e.content.device, e.timestamp]),
    ).toEqual([
      ['acknowledged', 'Lena Ortiz', '2026-01-01T00:00:54.448000Z'],
      ['acknowledged', 'Ben Okafor', '2026-01-01T00:01:10.000000Z'],
      ['end', undefined, '2026-01-01T00:01:10.000000Z'],
    ]);
    expect(whole.actual.events).toHaveLength(5);

    // A badge of the file outside the selection: refused at the from: line.
    const onlyAda = join(dir, 'only-ada.scenario.yaml');
    writeFileSync(onlyAda, CONTINUE.replace('{ group: Nurses }', '{ devices: [Ada Mensah] }'));
    await expect(runScenario(loadScenarioFile(onlyAda))).rejects.toThrow(
      /only-ada\.scenario\.yaml:3:1: from: its badges: snapshot\.badges\[\d\]\.deviceId '\d+' is not a device of this fleet/,
    );

    // Against a stub by URL (run --stub): restored into it through its control API.
    await using stub = await startStub();
    const external = { mode: 'external' as const, stubUrl: stub.url };
    const there = await runScenario(
      loadScenarioFile(join(dir, 'continue.scenario.yaml')),
      external,
    );
    expect(there.failures).toEqual([]);
    expect(JSON.stringify(there.actual.events)).toBe(JSON.stringify(continued.actual.events));

    // An edited file the stub refuses: the field named, the stub's world unchanged.
    file.clock.now = 'soon';
    writeFileSync(join(dir, 'world.snapshot.json'), JSON.stringify(file));
    // (Its devices' live facts aside: the last run's badges may still be closing.)
    const world = async () => {
      const text = await (await fetch(`${stub.controlUrl}/snapshot`)).text();
      const { devices: _, ...rest } = JSON.parse(text);
      return rest;
    };
    const before = await world();
    await expect(
      runScenario(loadScenarioFile(join(dir, 'continue.scenario.yaml')), external),
    ).rejects.toThrow(
      `continue.scenario.yaml:3:1: from: ${join(dir, 'world.snapshot.json')}: the stub refused it (400): clock.now must be number: take the snapshot again (GET /_stub/snapshot) rather than edit it`,
    );
    expect(await world()).toEqual(before);
  });

  test('WS21: a from: file that is missing, not JSON, or of another format: named at its line', () => {
    const dir = folder();
    const file = join(dir, 'continue.scenario.yaml');
    expect(() => loadScenarioFile(file)).toThrow(
      `badge-sim: ${file}:3:1: from: world.snapshot.json (${join(dir, 'world.snapshot.json')}): there is no such file; give a file a \`snapshot:\` step or GET /_stub/snapshot wrote`,
    );
    writeFileSync(join(dir, 'world.snapshot.json'), '{"format":"badge-sim-snap');
    expect(() => loadScenarioFile(file)).toThrow(
      /^badge-sim: .*continue\.scenario\.yaml:3:1: from: world\.snapshot\.json is not JSON \(.*\): cut short or edited\? write it again$/,
    );
    writeFileSync(join(dir, 'world.snapshot.json'), '{"format":"badge-sim-snapshot/1"}');
    expect(() => loadScenarioFile(file)).toThrow(
      `${file}:3:1: from: world.snapshot.json is not a world snapshot of this badge-sim: its format is "badge-sim-snapshot/1", not 'badge-sim-snapshot/2'; write it again with this version`,
    );
    writeFileSync(join(dir, 'world.snapshot.json'), '[1]');
    expect(() => loadScenarioFile(file)).toThrow('is not a world snapshot (a JSON object)');
  });

  test('WS21: from: beside fixtures is refused: the snapshot holds its fixtures', () => {
    const dir = folder();
    writeFileSync(join(dir, 'world.snapshot.json'), '{}');
    const text = `name: X\nproves: y\nfrom: world.snapshot.json\nfixtures: default\ntimeline: []\nexpect: {}\n`;
    expect(() => loadScenarioText(text, join(dir, 'x.scenario.yaml'))).toThrow(
      'x.scenario.yaml:4:1: fixtures: a scenario with from: runs on the fixtures its snapshot holds: leave fixtures out',
    );
  });
});
