/**
 * The HTML report's data as the page draws it, from real runs on the virtual clock: each
 * badge's lane (clips, repeats, taps, offline windows), the alert markers, where the first
 * difference of a failure lies, and a file whose embedded data no scenario text can break out
 * of. The page itself is tested in Chromium (test/ui/html-report.test.ts).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, test } from 'vitest';
import { lateAcknowledgementScenario } from '../../test/support/late-scenario.ts';
import { CATALOGUE_DIR, runSuite } from '../runner/run-suite.ts';
import {
  createHtmlReporter,
  type PageData,
  type PageScenario,
  placeFailure,
  scriptSafeJson,
} from './html.reporter.ts';

const dir = mkdtempSync(join(tmpdir(), 'badge-sim-html-'));
const DROPS = join(CATALOGUE_DIR, 'device-drops-mid-alert.scenario.yaml');
const TIMEOUT = join(CATALOGUE_DIR, 'timeout-at-a-repeat-instant.scenario.yaml');

/** Omar acknowledges at 140 s; this one expects 141 s, and a scenario name that is markup. */
const HOSTILE_NAME = '</script><script>window.pwned=1</script><!--';
const LATE = lateAcknowledgementScenario(
  HOSTILE_NAME,
  'The first difference is found on the timeline.',
);

/** Runs scenario files through the HTML reporter; the file, and the data embedded in it. */
async function htmlReportOf(files: string[]): Promise<{ html: string; data: PageData }> {
  const summary = await runSuite(files, { reporters: [createHtmlReporter()] });
  const html = summary.outputs[0]!;
  const json = /<script type="application\/json" id="report-data">(.*?)<\/script>/s.exec(html)![1]!;
  return { html, data: JSON.parse(json) as PageData };
}

const byName = (data: PageData, name: string): PageScenario =>
  data.scenarios.find((s) => s.name === name)!;

describe('the HTML report of a run', () => {
  let html: string;
  let data: PageData;
  beforeAll(async () => {
    const late = join(dir, 'late.scenario.yaml');
    writeFileSync(late, LATE);
    ({ html, data } = await htmlReportOf([DROPS, TIMEOUT, late]));
  });

  test('the summary counts passed and failed scenarios', () => {
    expect(data).toMatchObject({ passed: 2, failed: 1 });
    expect(html).toContain('<title>badge-sim: 1 failed</title>');
  });

  test("a badge's lane holds its plays and repeats, taps and offline window", () => {
    const drops = byName(data, 'Device drops mid-alert and comes back');
    const omar = drops.lanes.find((l) => l.user === 'Omar Haddad')!;
    expect(omar.clips.map((c) => [c.at, c.kind, c.repeat])).toEqual([
      [0, 'alert', 0],
      [30_000, 'alert', 1],
      [100_000, 'alert', 4],
      [130_000, 'alert', 5],
    ]);
    expect(omar.clips.every((c) => c.durationMs > 0 && c.task === 'delivery')).toBe(true);
    expect(omar.taps).toEqual([140_000]);
    expect(omar.offline).toEqual([{ from: 40_000, to: 100_000 }]);
    expect(drops.lanes.find((l) => l.user === 'Lena Ortiz')).toMatchObject({
      taps: [5_000],
      offline: [],
    });
    expect(drops.endMs).toBe(240_000);
  });

  test('alert markers: start, each acknowledgement, and the quorum or the timeout and end', () => {
    const drops = byName(data, 'Device drops mid-alert and comes back');
    expect(drops.markers.map((m) => [m.at, m.kind, m.task])).toEqual([
      [0, 'start', 'delivery'],
      [5_000, 'acknowledged', 'delivery'],
      [140_000, 'acknowledged', 'delivery'],
      [140_000, 'quorum', 'delivery'],
    ]);
    const timeout = data.scenarios.find((s) =>
      s.source.endsWith('timeout-at-a-repeat-instant.scenario.yaml'),
    )!;
    const kinds = timeout.markers.map((m) => m.kind);
    expect(kinds).toContain('timeout');
    expect(kinds.at(-1)).toBe('end');
    expect(kinds).not.toContain('quorum');
  });

  test("a failure's first difference is placed on the timeline, on the lane it names", () => {
    const late = byName(data, HOSTILE_NAME);
    expect(late.passed).toBe(false);
    const omar = late.lanes.find((l) => l.user === 'Omar Haddad')!;
    expect(late.failures[0]).toMatchObject({
      firstDifference: 2,
      differenceAt: { expected: 141_000, actual: 140_000 },
      lane: omar.device,
    });
  });

  test('no scenario text can end the embedded data or open markup: it reads back whole', () => {
    expect(html.match(/<\/script>/g)).toHaveLength(2);
    expect(html).not.toContain('<!--');
    expect(html).not.toContain('<script>window.pwned');
    expect(byName(data, HOSTILE_NAME).name).toBe(HOSTILE_NAME);
  });

  test('the file asks for nothing outside itself, and forbids it', () => {
    expect(html).not.toMatch(/\b(?:src|href)\s*=/i);
    expect(html).toContain(`content="default-src 'none';`);
  });

  test('with the same seed, everything but the wall-clock times is the same run after run', async () => {
    const again = await htmlReportOf([DROPS, TIMEOUT, join(dir, 'late.scenario.yaml')]);
    const withoutWall = (d: PageData) => ({
      ...d,
      wallMs: 0,
      scenarios: d.scenarios.map((s) => ({ ...s, wallMs: 0 })),
    });
    expect(withoutWall(again.data)).toEqual(withoutWall(data));
  });
});

test('a file that cannot be loaded is in the report as a failure, with why', async () => {
  const bad = join(dir, 'bad.scenario.yaml');
  writeFileSync(bad, 'name: [broken');
  const { data } = await htmlReportOf([bad]);
  expect(data).toMatchObject({ passed: 0, failed: 1, scenarios: [] });
  expect(data.loadErrors).toEqual([{ source: bad, message: expect.stringContaining(bad) }]);
});

describe('placing a difference', () => {
  const lanes = [
    { device: '350000000000004', user: 'Omar Haddad', clips: [], taps: [], offline: [] },
  ];

  test('a heard failure names its badge by id; a missing actual line leaves the expected instant', () => {
    const failure = {
      what: 'heard by Omar Haddad (350000000000004) (exactly)',
      message: 'clip 3 is missing',
      expected: ['at 0s     alert', 'at 1m30s  alert'],
      actual: ['+0s       alert'],
      firstDifference: 1,
    };
    expect(placeFailure(failure, lanes)).toMatchObject({
      differenceAt: { expected: 90_000 },
      lane: '350000000000004',
    });
    expect(placeFailure(failure, lanes).differenceAt).not.toHaveProperty('actual');
  });

  test('a failure with no instant (a state, an answer) is left off the timeline', () => {
    const failure = {
      what: 'state of Omar Haddad (350000000000004)',
      message: 'is idle, expected playing',
      expected: ['playing'],
      actual: ['idle'],
    };
    expect(placeFailure(failure, lanes)).not.toHaveProperty('differenceAt');
  });
});

test('JSON made script-safe reads back the same', () => {
  const value = { a: '</script><!-- & > \u2028\u2029', b: [1, null, 'x'] };
  const text = scriptSafeJson(value);
  expect(text).not.toMatch(/[<>&\u2028\u2029]/);
  expect(JSON.parse(text)).toEqual(value);
});

test('scenarioTests writes the HTML report its option names, or BADGE_SIM_HTML_REPORT', () => {
  const project = mkdtempSync(join(tmpdir(), 'badge-sim-html-vitest-'));
  const late = join(project, 'late.scenario.yaml');
  writeFileSync(late, LATE);
  const vitestModule = fileURLToPath(new URL('../vitest.ts', import.meta.url));
  writeFileSync(
    join(project, 'scenarios.test.ts'),
    `import { scenarioTests } from ${JSON.stringify(vitestModule)};
scenarioTests([${JSON.stringify(DROPS)}, ${JSON.stringify(late)}], { htmlReport: 'out/option.html' });
scenarioTests(${JSON.stringify(TIMEOUT)});
`,
  );
  const vitest = fileURLToPath(new URL('../../node_modules/vitest/vitest.mjs', import.meta.url));
  const run = spawnSync(process.execPath, [vitest, 'run', '--root', project], {
    cwd: project,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, BADGE_SIM_HTML_REPORT: 'from-env.html', CI: '' },
  });
  // The late scenario fails its test; both reports are written all the same.
  expect(run.status, run.stdout + run.stderr).toBe(1);
  const dataOf = (file: string) =>
    JSON.parse(
      /<script type="application\/json" id="report-data">(.*?)<\/script>/s.exec(
        readFileSync(join(project, file), 'utf8'),
      )![1]!,
    ) as PageData;
  const option = dataOf('out/option.html');
  expect(option).toMatchObject({ passed: 1, failed: 1 });
  expect(option.scenarios.map((s) => s.name).sort()).toEqual(
    ['Device drops mid-alert and comes back', HOSTILE_NAME].sort(),
  );
  const fromEnv = dataOf('from-env.html');
  expect(fromEnv).toMatchObject({ passed: 1, failed: 0 });
  expect(fromEnv.scenarios[0]!.markers.map((m) => m.kind)).toContain('timeout');
});
