/**
 * `npm run screenshot:trace`: docs/trace-viewer.png, the README's picture of the trace viewer
 * (`badge-sim show-trace`). The scenario of the HTML report's picture that fails on purpose
 * (Omar's acknowledgement expected a second late) runs embedded on the virtual clock with its
 * trace kept, so the picture is the same every time; Chromium opens the page the command
 * writes, on the first difference, zoomed in once and stepped back two records.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { renderTracePage } from '../cli/show-trace/trace-page.ts';
import { tracePageData } from '../cli/show-trace/trace-page-data.ts';
import { loadScenarioText } from '../scenarios/format/load-scenario.ts';
import { runScenario } from '../scenarios/runner/run-scenario.ts';
import { launchBrowser } from '../test/support/browser.ts';
import { lateAcknowledgementScenario } from '../test/support/late-scenario.ts';

const OUT = fileURLToPath(new URL('../docs/trace-viewer.png', import.meta.url));

// A fixed folder: the page names the trace's path.
const dir = join(tmpdir(), 'badge-sim-trace-viewer');
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const scenario = lateAcknowledgementScenario(
  'Omar acknowledges late (fails on purpose)',
  'A late acknowledgement shows where the run parts from what was expected.',
);
const kept: string[] = [];
await runScenario(loadScenarioText(scenario, join(dir, 'omar-late.scenario.yaml')), {
  trace: { keep: 'on', dir, onKept: (file) => kept.push(file) },
});
const file = join(dir, 'trace-viewer.html');
writeFileSync(file, renderTracePage(await tracePageData(kept[0]!)));

const browser = await launchBrowser();
const page = await browser.newPage({ viewport: { width: 1400, height: 820 } });
await page.goto(pathToFileURL(file).href);
await page.locator('.failure li.difference').first().waitFor();
await page.keyboard.press('ArrowLeft');
await page.keyboard.press('ArrowLeft');
await page.screenshot({ path: OUT });
await browser.close();
console.log(`badge-sim: wrote ${OUT}`);
