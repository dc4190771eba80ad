/**
 * `badge-sim run --coverage` (decision CV1): which transitions of the badge machine a run's
 * badges took, from the machine's own definition, in the console and the JSON report.
 */
import { describe, expect, test } from 'vitest';
import { REPORTERS } from '../../scenarios/reporters/index.ts';
import { runSuite } from '../../scenarios/run-suite.ts';
import { BadgeCoverage, badgeTransitions } from '../../simulator/badge-coverage.ts';
import { runCli } from '../support/cli.ts';

const catalogue = (name: string) => `scenarios/catalogue/${name}.scenario.yaml`;

describe('coverage of the badge machine', () => {
  test('every transition of the definition is listed once, guards and targets named', () => {
    const all = badgeTransitions();
    expect(new Set(all).size).toBe(all.length);
    expect(all).toContain('badge.online.idle --PLAY--> badge.online.playing');
    expect(all).toContain('badge.online --TAP[canAcknowledge]--> (stays)');
    expect(all).toContain('badge.online.route --always[hasAudio]--> badge.online.speaking');
  });

  test('a run counts what its badges took: a broadcast scenario takes the broadcast transitions, a plain one does not', async () => {
    const plain = new BadgeCoverage();
    await runSuite([catalogue('single-acknowledgement')], { reporters: [], coverage: plain });
    const queued = new BadgeCoverage();
    await runSuite([catalogue('speech-and-broadcast-wait-behind-an-alert')], {
      reporters: [],
      coverage: queued,
    });
    const broadcast = 'badge.online.route --always[nextIsBroadcast]--> badge.online.broadcasting';
    expect(plain.report().missing).toContain(broadcast);
    expect(queued.report().missing).not.toContain(broadcast);
    const report = plain.report();
    expect(report.transitions).toBe(badgeTransitions().length);
    expect(report.exercised).toBe(report.transitions - report.missing.length);
    expect(report.exercised).toBeGreaterThan(5);
    expect(report.percent).toBe(Math.floor((100 * report.exercised) / report.transitions));
  });

  test('the JSON report carries it; without --coverage nothing is collected', async () => {
    const coverage = new BadgeCoverage();
    const summary = await runSuite([catalogue('tap-rule-newest')], {
      reporters: [REPORTERS.json()],
      coverage,
    });
    const json = JSON.parse(summary.outputs[0]!);
    expect(json.coverage.badge_machine).toEqual(coverage.report());
    expect(json.coverage.badge_machine.missing).not.toContain('badge --TAP_RULE--> (stays)');
    const without = await runSuite([catalogue('tap-rule-newest')], {
      reporters: [REPORTERS.json()],
    });
    expect(JSON.parse(without.outputs[0]!).coverage).toBeUndefined();
  });

  test('badge-sim run --coverage prints the share and every transition never taken', () => {
    const run = runCli(['run', catalogue('single-acknowledgement'), '--coverage']);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(
      /coverage: the badge machine, \d+ of \d+ transitions \(\d+ %\)\n {2}never taken:\n/,
    );
    expect(run.stdout).toContain('    badge --TAP_RULE--> (stays)');
  });
});
