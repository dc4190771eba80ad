/**
 * `badge-sim run --coverage` (decisions CV1–CV5): which transitions of the badge machine a
 * run's badges took, which of the alert model's named transitions its stubs' histories show,
 * and which rows of docs/decisions.md its passing scenarios name; in the console, the JSON
 * report and merged shards.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { StubControlClient } from '../../client/control-client.ts';
import { lifecycleTransitions } from '../../model/transitions.ts';
import { DECISION_ROWS } from '../../scenarios/format/decision-rows.generated.ts';
import { parseDecisionRows } from '../../scenarios/format/decision-rows.ts';
import { defineScenario } from '../../scenarios/format/load-scenario.ts';
import { DECISIONS_DOC } from '../../scenarios/format/publish-schema.ts';
import { REPORTERS } from '../../scenarios/reports/index.ts';
import { mergeHtmlReports, mergeJsonReports } from '../../scenarios/reports/merge-reports.ts';
import { RunCoverage } from '../../scenarios/runner/coverage.ts';
import { findScenarioFiles, runSuite } from '../../scenarios/runner/run-suite.ts';
import { startStub } from '../../server-stub/start-stub.ts';
import { badgeTransitions } from '../../simulator/badge-coverage.ts';
import { runCli } from '../support/cli.ts';

const catalogue = (name: string) => `scenarios/catalogue/${name}.scenario.yaml`;
const TWO = [catalogue('cancel-by-delete'), catalogue('tap-arrives-after-the-end')];

describe('coverage of the badge machine', () => {
  test('every transition of the definition is listed once, guards and targets named', () => {
    const all = badgeTransitions();
    expect(new Set(all).size).toBe(all.length);
    expect(all).toContain('badge.online.idle --PLAY--> badge.online.playing');
    expect(all).toContain('badge.online --TAP[canAcknowledge]--> (stays)');
    expect(all).toContain('badge.online.route --always[hasAudio]--> badge.online.speaking');
  });

  test('a run counts what its badges took: a broadcast scenario takes the broadcast transitions, a plain one does not', async () => {
    const plain = new RunCoverage();
    await runSuite([catalogue('single-acknowledgement')], { reporters: [], coverage: plain });
    const queued = new RunCoverage();
    await runSuite([catalogue('speech-and-broadcast-wait-behind-an-alert')], {
      reporters: [],
      coverage: queued,
    });
    const broadcast = 'badge.online.route --always[nextIsBroadcast]--> badge.online.broadcasting';
    expect(plain.report().badge_machine.missing).toContain(broadcast);
    expect(queued.report().badge_machine.missing).not.toContain(broadcast);
    const report = plain.report().badge_machine;
    expect(report.transitions).toBe(badgeTransitions().length);
    expect(report.exercised).toBe(report.transitions - report.missing.length);
    expect(report.exercised).toBeGreaterThan(5);
    expect(report.percent).toBe(Math.floor((100 * report.exercised) / report.transitions));
  });
});

describe('coverage of the alert model and of the decision rows', () => {
  test('two small scenarios: exactly the named transitions and the rows they exercise, the rest named as missing', async () => {
    const coverage = new RunCoverage();
    const summary = await runSuite(TWO, { reporters: [], coverage });
    expect(summary.failed).toBe(0);
    const { alert_model, decisions } = coverage.report();
    const exercised = lifecycleTransitions().filter(
      (id) => !alert_model.missing.some((line) => line.startsWith(`${id}:`)),
    );
    expect(exercised.sort()).toEqual(
      [
        // cancel-by-delete: a play, its repeats, Ada's tap, the DELETE and the second one (409).
        'played',
        'repeated',
        'acknowledged',
        'cancelled',
        'delete-of-ended-refused',
        // tap-arrives-after-the-end: Ben meets quorum 1 of 3; Ada's late frame is ignored.
        'spoke-on-ack',
        'quorum-some',
        'spoke-on-quorum',
        'ack-after-end-ignored',
      ].sort(),
    );
    expect(alert_model).toMatchObject({ transitions: 22, exercised: 9, percent: 40 });
    expect(alert_model.missing).toContain(
      'not-released-at-its-timeout: queued alert released at its own timeout instant does not play (L1a)',
    );
    expect(decisions.rows).toBe(DECISION_ROWS.length);
    expect(decisions.touched).toBe(4);
    const missingIds = decisions.missing.map((row) => row.id);
    for (const id of ['L3', 'L4', 'L6', 'DF4']) expect(missingIds).not.toContain(id);
    expect(decisions.missing).toContainEqual({
      id: 'L5',
      case: 'Second acknowledgement by a device',
    });
  }, 60_000);

  test('a scenario that fails touches no decision row; its stub history still counts', async () => {
    const failing = defineScenario({
      name: 'Cancelled, but expects a timeout',
      proves: 'nothing: it fails on purpose',
      decisions: ['L3'],
      badges: { devices: ['Ada Mensah'] },
      timeline: [
        { at: '0s', alert: { notification: 'Spill', groups: ['Nurses'] }, as: 'spill' },
        { at: '5s', cancel: 'spill' },
      ],
      expect: { tasks: { spill: { outcome: 'timed_out' } } },
    });
    const coverage = new RunCoverage();
    const summary = await runSuite([failing], { reporters: [], coverage });
    expect(summary.failed).toBe(1);
    const report = coverage.report();
    expect(report.decisions.touched).toBe(0);
    expect(report.alert_model.missing.some((m) => m.startsWith('cancelled:'))).toBe(false);
  });

  test('against a stub whose recording fills up, the scenario notes that coverage missed what came after', async () => {
    await using stub = await startStub({ recordingLimit: 5 });
    const coverage = new RunCoverage();
    const summary = await runSuite([TWO[0]!], {
      reporters: [],
      mode: 'external',
      stubUrl: stub.url,
      coverage,
    });
    expect(summary.failed).toBe(0);
    expect(summary.reports[0]!.notes).toContainEqual(
      expect.stringMatching(
        /^coverage: the stub's session recording was full, \d+ records dropped/,
      ),
    );
    // What the recording lost: the second DELETE's 409.
    expect(
      coverage.report().alert_model.missing.some((m) => m.startsWith('delete-of-ended-refused:')),
    ).toBe(true);
  });

  test('against a stub that records already, a run reads only its own part and leaves the recording on', async () => {
    await using stub = await startStub({ record: true });
    const external = { reporters: [], mode: 'external' as const, stubUrl: stub.url };
    await runSuite([TWO[0]!], { ...external, coverage: new RunCoverage() });
    const later = new RunCoverage();
    await runSuite([TWO[1]!], { ...external, coverage: later });
    // The first run's 409 DELETE is in the recording, but before the second run began.
    const missing = later.report().alert_model.missing;
    expect(missing.some((m) => m.startsWith('delete-of-ended-refused:'))).toBe(true);
    expect(missing.some((m) => m.startsWith('ack-after-end-ignored:'))).toBe(false);
    expect((await new StubControlClient(stub.url).recording()).recording).toBe(true);
  });

  test('a decision id that is no row is refused, naming the field and the id', () => {
    expect(() =>
      defineScenario({
        name: 'Unknown row',
        proves: 'nothing',
        decisions: ['L3', 'L99'],
        timeline: [],
        expect: {},
      }),
    ).toThrow(/decisions\[1\]: 'L99' is no row of docs\/decisions\.md/);
    expect(() =>
      defineScenario({
        name: 'Not an id',
        proves: 'nothing',
        decisions: ['__proto__'],
        timeline: [],
        expect: {},
      }),
    ).toThrow(/decisions\/0|decisions\[0\]/);
  });

  test('the rows an installed badge-sim knows are those of docs/decisions.md (npm run schema)', () => {
    expect(DECISION_ROWS).toEqual(parseDecisionRows(readFileSync(DECISIONS_DOC, 'utf8')));
    expect(DECISION_ROWS.find((row) => row.id === 'L1a')?.case).toMatch(/^An alert queued behind/);
  });
});

describe('coverage in the reports', () => {
  test('the JSON report carries all three; without --coverage nothing is collected', async () => {
    const coverage = new RunCoverage();
    const summary = await runSuite([catalogue('tap-rule-newest')], {
      reporters: [REPORTERS.json()],
      coverage,
    });
    const json = JSON.parse(summary.outputs[0]!);
    expect(json.coverage).toEqual(coverage.report());
    expect(Object.keys(json.coverage)).toEqual(['badge_machine', 'alert_model', 'decisions']);
    expect(json.coverage.badge_machine.missing).not.toContain('badge --TAP_RULE--> (stays)');
    expect(json.coverage.decisions.missing.map((r: { id: string }) => r.id)).not.toContain('D11');
    const without = await runSuite([catalogue('tap-rule-newest')], {
      reporters: [REPORTERS.json()],
    });
    expect(JSON.parse(without.outputs[0]!).coverage).toBeUndefined();
  });

  test('merged shards: what any shard exercised counts, as if run whole', async () => {
    const shard = async (file: string) => {
      const run = await runSuite([file], {
        reporters: [REPORTERS.json()],
        coverage: new RunCoverage(),
      });
      return { file, text: run.outputs[0]! };
    };
    const whole = new RunCoverage();
    await runSuite(TWO, { reporters: [], coverage: whole });
    const merged = mergeJsonReports([await shard(TWO[1]!), await shard(TWO[0]!)]);
    expect(merged.coverage).toEqual(whole.report());
    const withoutCoverage = (await runSuite([TWO[0]!], { reporters: [REPORTERS.json()] }))
      .outputs[0]!;
    const notes: string[] = [];
    const mixed = mergeJsonReports(
      [await shard(TWO[1]!), { file: 'plain.json', text: withoutCoverage }],
      (note) => notes.push(note),
    );
    expect(mixed.coverage).toBeUndefined();
    expect(notes).toEqual([
      'the merged report has no coverage: plain.json was run without --coverage',
    ]);
    const html = async (file: string) => {
      const run = await runSuite([file], {
        reporters: [REPORTERS.html()],
        coverage: new RunCoverage(),
      });
      return { file, text: run.outputs[0]! };
    };
    const page = mergeHtmlReports([await html(TWO[0]!), await html(TWO[1]!)]);
    const data = /<script type="application\/json" id="report-data">([^<]*)<\/script>/.exec(page)!;
    expect(JSON.parse(data[1]!).coverage).toEqual(whole.report());
  }, 60_000);

  test('badge-sim run --coverage prints the three shares, then what is missing, grouped', () => {
    const run = runCli(['run', ...TWO, '--coverage']);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(
      /coverage: badge machine \d+\/\d+ transitions \(\d+ %\), alert model 9\/22 \(40 %\), decision rows 4\/\d+ \(\d+ %\)\n {2}badge machine, never taken:\n/,
    );
    expect(run.stdout).toContain('    badge --TAP_RULE--> (stays)');
    expect(run.stdout).toContain(
      '  alert model, never taken:\n    queued: alert posted: waits behind one of its name on the device (L7)\n',
    );
    expect(run.stdout).toMatch(/\n {2}decision rows no scenario names:\n {4}A1 A2 A3 /);
    expect(run.stdout).toMatch(/\n {4}L1 L1a L2 L5 L7 L8 L9 L10 L11\n/);
  });
});

describe('the README', () => {
  test('gives the built-in catalogue’s coverage as a run of it measures it', async () => {
    const coverage = new RunCoverage();
    const summary = await runSuite(findScenarioFiles([]), { reporters: [], coverage });
    expect(summary.failed).toBe(0);
    const { badge_machine: b, alert_model: a, decisions: d } = coverage.report();
    expect(readFileSync('README.md', 'utf8').replace(/\s+/g, ' ')).toContain(
      `**badge machine ${b.exercised}/${b.transitions} (${b.percent} %), alert model ${a.exercised}/${a.transitions} (${a.percent} %), decision rows ${d.touched}/${d.rows} (${d.percent} %)**`,
    );
  }, 120_000);
});
