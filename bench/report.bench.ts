/**
 * `npm run bench:report`: the HTML report of the whole built-in catalogue (embedded, virtual
 * clock): its size, and how long Chromium takes to open it from disk and draw it (from
 * navigation to the page's `report-rendered` mark), then to draw an opened scenario's
 * timeline. The same for a suite ten times that size (the catalogue's data repeated), to show
 * how it scales. Markdown on stdout; needs Chromium (test/support/browser.ts).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  createHtmlReporter,
  type PageData,
  renderHtmlReport,
} from '../scenarios/reports/html.reporter.ts';
import { findScenarioFiles, runSuite } from '../scenarios/runner/run-suite.ts';
import { browserUnavailable, launchBrowser } from '../test/support/browser.ts';

const OPENS = 5;
const dir = mkdtempSync(join(tmpdir(), 'badge-sim-bench-report-'));

const files = findScenarioFiles([]);
const summary = await runSuite(files, { reporters: [createHtmlReporter()] });
const html = summary.outputs[0]!;
const data = JSON.parse(
  /<script type="application\/json" id="report-data">(.*?)<\/script>/s.exec(html)![1]!,
) as PageData;
const times = 10;
const bigger: PageData = {
  ...data,
  passed: data.passed * times,
  failed: data.failed * times,
  scenarios: Array.from({ length: times }, (_, i) =>
    data.scenarios.map((s) => ({ ...s, name: `${s.name} #${i + 1}` })),
  ).flat(),
};
const reports = [
  { what: `the catalogue (${data.scenarios.length} scenarios)`, html },
  {
    what: `the catalogue ×${times} (${bigger.scenarios.length} scenarios)`,
    html: renderHtmlReport(bigger),
  },
];

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const why = browserUnavailable();
console.log(
  `badge-sim HTML report, ${new Date().toISOString().slice(0, 10)}, Node ${process.version}\n`,
);
console.log('| report | size | first render (median of 5) | one scenario drawn on opening |');
console.log('|---|---|---|---|');
const browser = why ? undefined : await launchBrowser();
for (const { what, html: text } of reports) {
  const file = join(dir, `${what.length}.html`);
  writeFileSync(file, text);
  const size = `${(Buffer.byteLength(text) / 1024).toFixed(0)} KiB`;
  if (!browser) {
    console.log(`| ${what} | ${size} | (${why}) | |`);
    continue;
  }
  const renders: number[] = [];
  const opens: number[] = [];
  for (let i = 0; i < OPENS; i++) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(pathToFileURL(file).href);
    await page.locator('html[data-rendered="true"]').waitFor();
    renders.push(
      await page.evaluate(() => performance.getEntriesByName('report-rendered')[0]!.startTime),
    );
    // The busiest scenario (most lanes), opened as a person would: click, then its timeline.
    const index = data.scenarios.reduce(
      (best, s, j) => (s.lanes.length > data.scenarios[best]!.lanes.length ? j : best),
      0,
    );
    const name = data.scenarios[index]!.name;
    const row = page.locator('ol.scenarios > li', { hasText: name }).first();
    const before = await page.evaluate(() => performance.now());
    await row.locator('summary').click();
    await row.locator('.timeline').waitFor();
    opens.push((await page.evaluate(() => performance.now())) - before);
    await page.close();
  }
  console.log(
    `| ${what} | ${size} | ${median(renders).toFixed(0)} ms | ${median(opens).toFixed(0)} ms |`,
  );
}
await browser?.close();
console.log(
  `\nfirst render: navigation start to the page's report-rendered mark (Chromium ${browser ? 'headless' : 'absent'}); opening: click to the timeline drawn, including Playwright's round trips.`,
);
