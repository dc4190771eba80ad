/**
 * `badge-sim run --shard i/n` and `badge-sim merge-reports` (decisions SH1, SH2): the slices
 * partition the suite exactly, the same on every machine, and the shards' reports merged equal
 * the report of the whole suite run at once.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { shardOf } from '../../input/shard.ts';
import { REPORTERS } from '../../scenarios/reports/index.ts';
import { createJunitReporter } from '../../scenarios/reports/junit.reporter.ts';
import {
  mergeHtmlReports,
  mergeJsonReports,
  mergeJunitReports,
} from '../../scenarios/reports/merge-reports.ts';
import { runSuite } from '../../scenarios/runner/run-suite.ts';
import { runCli } from '../support/cli.ts';

const SUITE = readdirSync('scenarios/catalogue')
  .filter((f) => /^(quorum|single|cancel|timeout)/.test(f))
  .map((f) => `scenarios/catalogue/${f}`);

describe('shards', () => {
  test('slices partition any list in order, sizes differing by at most one', () => {
    fc.assert(
      fc.property(
        fc.array(fc.nat(), { maxLength: 60 }),
        fc.integer({ min: 1, max: 12 }),
        (items, n) => {
          const slices = Array.from({ length: n }, (_, i) =>
            shardOf(items, { index: i + 1, total: n }),
          );
          expect(slices.flat()).toEqual(items);
          const sizes = slices.map((s) => s.length);
          expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
        },
      ),
    );
  });

  test('run --shard i/n: every scenario file in exactly one shard, and the merged JSON is the unsharded JSON (also as JUnit)', () => {
    expect(SUITE.length).toBeGreaterThanOrEqual(6);
    const dir = mkdtempSync(join(tmpdir(), 'badge-sim-shard-'));
    const ran: string[][] = [];
    for (const i of [1, 2, 3]) {
      const shard = runCli([
        'run',
        ...SUITE,
        '--shard',
        `${i}/3`,
        '--reporter',
        'json',
        '-o',
        join(dir, `s${i}.json`),
      ]);
      expect(shard.status).toBe(0);
      expect(shard.stderr).toMatch(
        new RegExp(`shard ${i}/3: \\d+ of ${SUITE.length} scenario files`),
      );
      ran.push(
        (
          JSON.parse(readFileSync(join(dir, `s${i}.json`), 'utf8')).scenarios as {
            source: string;
          }[]
        ).map((s) => s.source),
      );
    }
    expect(ran.flat().sort()).toEqual([...SUITE].sort());
    expect(new Set(ran.flat()).size).toBe(SUITE.length);
    expect(
      runCli(['run', ...SUITE, '--reporter', 'json', '-o', join(dir, 'all.json')]).status,
    ).toBe(0);
    // The shards named in another order still merge in the suite's order.
    const shards = [3, 1, 2].map((i) => join(dir, `s${i}.json`));
    const merged = runCli(['merge-reports', ...shards, '-o', join(dir, 'merged.json')]);
    expect(merged.status).toBe(0);
    expect(readFileSync(join(dir, 'merged.json'), 'utf8')).toBe(
      readFileSync(join(dir, 'all.json'), 'utf8'),
    );
    // JSON shards can be written as JUnit too: the suite's JUnit, wall times aside.
    const asJunit = runCli(['merge-reports', ...shards, '-r', 'junit']);
    const whole = createJunitReporter().onEnd!(
      mergeJsonReports([{ file: 'all.json', text: readFileSync(join(dir, 'all.json'), 'utf8') }]),
    )!;
    expect(withoutTimes(asJunit.stdout)).toBe(withoutTimes(whole));
  });

  test('JUnit and HTML reports of the shards merge into the unsharded JUnit and HTML (wall times aside)', async () => {
    const shards = [1, 2, 3].map((i) => shardOf(SUITE, { index: i, total: 3 }));
    for (const kind of ['junit', 'html'] as const) {
      const whole = (await runSuite(SUITE, { reporters: [REPORTERS[kind]()] })).outputs[0]!;
      const parts = [];
      for (const files of shards.reverse())
        parts.push({
          file: `shard.${kind}`,
          text: (await runSuite(files, { reporters: [REPORTERS[kind]()] })).outputs[0]!,
        });
      if (kind === 'junit')
        expect(withoutTimes(mergeJunitReports(parts))).toBe(withoutTimes(whole));
      else expect(pageWithoutTimes(mergeHtmlReports(parts))).toEqual(pageWithoutTimes(whole));
    }
  });

  test('a shard with no scenario file runs nothing and writes an empty report; bad --shard and bad reports exit with what to fix', () => {
    const dir = mkdtempSync(join(tmpdir(), 'badge-sim-shard-'));
    const two = SUITE.slice(0, 2);
    const empty = runCli([
      'run',
      ...two,
      '--shard',
      '1/5',
      '--reporter',
      'json',
      '-o',
      join(dir, 'e.json'),
    ]);
    expect(empty.status).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'e.json'), 'utf8'))).toMatchObject({
      passed: 0,
      failed: 0,
      scenarios: [],
    });
    const bad = runCli(['run', '--shard', '4/3']);
    expect(bad.status).toBe(2);
    expect(runCli(['devices', '--shard', '0/3']).status).toBe(2);
    expect(bad.stderr).toContain('--shard must be i/n with 1 ≤ i ≤ n ≤ 1000, such as 2/4');

    writeFileSync(
      join(dir, 'x.xml'),
      '<?xml version="1.0"?><testsuites><testsuite name="a"></testsuite></testsuites>',
    );
    writeFileSync(join(dir, 'notes.txt'), 'hello');
    const mixed = runCli(['merge-reports', join(dir, 'e.json'), join(dir, 'x.xml')]);
    expect(mixed.status).toBe(2);
    expect(mixed.stderr).toContain(
      'the reports are of different kinds (json, junit): merge one kind at a time',
    );
    const notReport = runCli(['merge-reports', join(dir, 'notes.txt')]);
    expect(notReport.status).toBe(2);
    expect(notReport.stderr).toContain('notes.txt: not a badge-sim report');
    const junitToHtml = runCli(['merge-reports', join(dir, 'x.xml'), '-r', 'html']);
    expect(junitToHtml.status).toBe(2);
    expect(junitToHtml.stderr).toContain(
      "junit reports merge into junit only: merge the shards' JSON reports",
    );
    // A report given twice, a crafted one, a wrong option: exit 2 saying what, never a merge.
    const twice = runCli(['merge-reports', join(dir, 'e.json'), join(dir, 'e.json')]);
    expect(twice.status).toBe(0); // an empty shard has no scenario to repeat
    writeFileSync(
      join(dir, 'one.json'),
      JSON.stringify({
        passed: 0,
        failed: 1,
        scenarios: [],
        loadErrors: [{ source: 'a.scenario.yaml', message: 'x' }],
      }),
    );
    const repeated = runCli(['merge-reports', join(dir, 'one.json'), join(dir, 'one.json')]);
    expect(repeated.status).toBe(2);
    expect(repeated.stderr).toContain('a.scenario.yaml is in this report twice: give each shard');
    writeFileSync(
      join(dir, 'evil.html'),
      `<!doctype html><script type="application/json" id="report-data">${JSON.stringify({ passed: 0, failed: '1</title><script>alert(1)</script>', wallMs: 0, scenarios: [], loadErrors: [] }).replaceAll('<', '\\u003c')}</script>`,
    );
    const evil = runCli(['merge-reports', join(dir, 'evil.html'), '-o', join(dir, 'out.html')]);
    expect(evil.status).toBe(2);
    expect(evil.stderr).toContain('evil.html: the report.failed must be a whole number, 0 or more');
    writeFileSync(
      join(dir, 'null.json'),
      '{"passed":0,"failed":0,"scenarios":[null],"loadErrors":[]}',
    );
    const nulls = runCli(['merge-reports', join(dir, 'null.json')]);
    expect(nulls.status).toBe(2);
    expect(nulls.stderr).toContain('null.json: scenarios[0] must be an object');
    expect(runCli(['merge-reports', '-r', 'xml', join(dir, 'e.json')]).status).toBe(2);
    const missing = runCli(['merge-reports', join(dir, 'nope.json')]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('cannot read');
  });
});

function withoutTimes(xml: string): string {
  return xml.replace(/ time="[^"]*"/g, '');
}

/** The HTML report's data without its wall times, the only figures that differ run to run. */
function pageWithoutTimes(html: string): unknown {
  const json = /<script type="application\/json" id="report-data">([^<]*)<\/script>/.exec(
    html,
  )![1]!;
  return JSON.parse(json, (key, value) => (key === 'wallMs' ? 0 : value));
}
