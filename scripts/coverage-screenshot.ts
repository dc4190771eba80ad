/**
 * `npm run screenshot:coverage`: docs/coverage.png, the README's picture of the coverage
 * section of the HTML report. The built-in catalogue runs embedded with coverage, as
 * `badge-sim run --coverage -r html` runs it; Chromium opens the report from disk with the
 * badge machine's and the alert model's shares open on what they missed (the decision rows' list is long).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createHtmlReporter } from '../scenarios/reports/html.reporter.ts';
import { RunCoverage } from '../scenarios/runner/coverage.ts';
import { findScenarioFiles, runSuite } from '../scenarios/runner/run-suite.ts';
import { launchBrowser } from '../test/support/browser.ts';

const OUT = fileURLToPath(new URL('../docs/coverage.png', import.meta.url));

const dir = join(tmpdir(), 'badge-sim-coverage');
mkdirSync(dir, { recursive: true });
const summary = await runSuite(findScenarioFiles([]), {
  reporters: [createHtmlReporter()],
  coverage: new RunCoverage(),
});
const file = join(dir, 'report.html');
writeFileSync(file, summary.outputs[0]!);

const browser = await launchBrowser();
const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
await page.goto(pathToFileURL(file).href);
await page.locator('html[data-rendered="true"]').waitFor();
for (const share of ['badge machine', 'alert model'])
  await page.locator(`details[data-coverage="${share}"] > summary`).click();
await page.getByRole('region', { name: 'Coverage' }).screenshot({ path: OUT });
await browser.close();
console.log(`badge-sim: wrote ${OUT}`);
