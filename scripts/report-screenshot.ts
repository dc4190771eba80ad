/**
 * `npm run screenshot:report`: docs/report.png, the README's picture of the HTML report. A
 * catalogue scenario and a copy of it that fails on purpose (Omar's acknowledgement expected a
 * second late) run embedded on the virtual clock, so the picture is the same every time but
 * for the wall-clock times; Chromium opens the report from disk with the failing scenario open.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createHtmlReporter } from '../scenarios/reports/html.reporter.ts';
import { CATALOGUE_DIR, runSuite } from '../scenarios/runner/run-suite.ts';
import { launchBrowser } from '../test/support/browser.ts';

const OUT = fileURLToPath(new URL('../docs/report.png', import.meta.url));
const FAILING = `name: Omar acknowledges late (fails on purpose)
proves: A badge that drops mid-alert hears it again on its return, and its acknowledgement completes the quorum.
badges: { group: Pharmacy }
timeline:
  - at: 0s
    alert: { notification: Delivery at dock, groups: [Pharmacy] }
    as: delivery
  - { at: 5s, tap: Lena Ortiz }
  - { at: 40s, offline: Omar Haddad }
  - { at: 100s, online: Omar Haddad }
  - { at: 140s, tap: Omar Haddad }
duration: 200s
expect:
  events:
    items:
      - { type: start, task: delivery, at: 0s }
      - { type: acknowledged, device: Lena Ortiz, at: 5s }
      - { type: acknowledged, device: Omar Haddad, at: 135s }
      - { type: end, status: normal, task: delivery }
`;

// A fixed folder and paths from the working directory: the picture names no random folder.
const dir = join(tmpdir(), 'badge-sim-report');
mkdirSync(dir, { recursive: true });
const failing = join(dir, 'omar-late.scenario.yaml');
writeFileSync(failing, FAILING);
const scenarios = [
  failing,
  ...[
    'device-drops-mid-alert.scenario.yaml',
    'timeout-at-a-repeat-instant.scenario.yaml',
    'broadcast-during-an-alert.scenario.yaml',
  ].map((name) => relative(process.cwd(), join(CATALOGUE_DIR, name))),
];
const summary = await runSuite(scenarios, { reporters: [createHtmlReporter()] });
const file = join(dir, 'report.html');
writeFileSync(file, summary.outputs[0]!);

const browser = await launchBrowser();
const page = await browser.newPage({ viewport: { width: 1100, height: 760 } });
await page.goto(pathToFileURL(file).href);
await page.locator('.marker[data-kind="difference"]').waitFor();
await page.screenshot({ path: OUT });
await browser.close();
console.log(`badge-sim: wrote ${OUT}`);
