/**
 * Issue 31 point 9, the HTML report's timeline tells the whole truth, in a real Chromium: the
 * labels of the alerts' lane never overlap (at a wide and a narrow width), the first
 * difference's lines cut through no label, and the axis ends shortly after the last thing
 * drawn, not at the run's end when everything happened early. Geometry is read from the page.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { browserUnavailable, launchBrowser } from '../support/browser.ts';
import { BIN } from '../support/cli.ts';
import { lateAcknowledgementScenario } from '../support/late-scenario.ts';

/** Three acknowledgements and the quorum 13 s apart, in a run of 400 s. */
const CROWDED = `name: Crowded alert lane
proves: Labels close together each get room.
badges: { group: Nurses }
timeline:
  - at: 0s
    alert: { notification: Code blue, groups: [Nurses], quorum: 3 }
  - { at: 13s, tap: Ada Mensah }
  - { at: 26s, tap: Ben Okafor }
  - { at: 39s, tap: Lena Ortiz }
duration: 400s
expect:
  events:
    items:
      - { type: start, at: 0s }
`;

type Box = { x: number; y: number; width: number; height: number };
const intersect = (a: Box, b: Box) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

async function boxes(locator: Locator): Promise<(Box & { text: string })[]> {
  return locator.evaluateAll((nodes) =>
    nodes.map((n) => {
      const { x, y, width, height } = n.getBoundingClientRect();
      return { x, y, width, height, text: n.textContent ?? '' };
    }),
  );
}

/** Every pair of boxes that intersect, named by their texts. */
function overlaps(list: (Box & { text: string })[]): string[] {
  const found: string[] = [];
  for (let i = 0; i < list.length; i++)
    for (let j = i + 1; j < list.length; j++)
      if (intersect(list[i]!, list[j]!)) found.push(`${list[i]!.text} × ${list[j]!.text}`);
  return found;
}

/** The scenario's details, opened, its timeline laid out. */
async function opened(page: Page, name: string): Promise<Locator> {
  const details = page.locator('ol.scenarios > li details', {
    has: page.locator('summary .name', { hasText: name }),
  });
  if ((await details.getAttribute('open')) === null) await details.locator('summary').click();
  await details.locator('.timeline[data-placed="true"]').waitFor({ timeout: 10_000 });
  return details;
}

describe.skipIf(browserUnavailable())('the HTML report’s timeline in Chromium', () => {
  let browser: Browser;
  let page: Page;
  const dir = mkdtempSync(join(tmpdir(), 'badge-sim-html-timeline-'));

  beforeAll(async () => {
    const crowded = join(dir, 'crowded.scenario.yaml');
    writeFileSync(crowded, CROWDED);
    const late = join(dir, 'late.scenario.yaml');
    writeFileSync(late, lateAcknowledgementScenario('Late ack', 'A difference on the timeline.'));
    const report = join(dir, 'report.html');
    const run = spawnSync(
      process.execPath,
      [BIN, 'run', crowded, late, '--reporter', 'html', '-o', report],
      { encoding: 'utf8', timeout: 60_000 },
    );
    expect(run.status, run.stderr).toBe(1);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1000, height: 800 } });
    await page.goto(pathToFileURL(report).href);
    await page.locator('html[data-rendered="true"]').waitFor();
    // A run of two scenarios in a CLI process, on a shared machine.
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
  });

  test('UI16: labels in the alerts’ lane never overlap, at a wide and at a narrow width', async () => {
    const crowded = await opened(page, 'Crowded alert lane');
    const labels = crowded.locator('.marker');
    expect(await labels.allTextContents()).toEqual([
      'start',
      'Ada Mensah acknowledged',
      'Ben Okafor acknowledged',
      'Lena Ortiz acknowledged',
      'quorum: end',
    ]);
    expect(overlaps(await boxes(labels))).toEqual([]);
    await page.setViewportSize({ width: 700, height: 800 });
    await expect.poll(async () => overlaps(await boxes(labels))).toEqual([]);
    const late = await opened(page, 'Late ack');
    expect(overlaps(await boxes(late.locator('.marker')))).toEqual([]);
    await page.setViewportSize({ width: 1000, height: 800 });
  });

  test('UI16: the first difference’s lines cut through no label', async () => {
    const late = await opened(page, 'Late ack');
    const lines = await boxes(late.locator('.guide.diff'));
    expect(lines).toHaveLength(2);
    const labels = await boxes(late.locator('.marker, .tick'));
    for (const line of lines)
      expect(labels.filter((label) => intersect(line, label)).map((l) => l.text)).toEqual([]);
  });

  test('UI16: the axis ends shortly after the last mark, not at the run’s end; the page says the run went on', async () => {
    const crowded = await opened(page, 'Crowded alert lane');
    const ticks = await crowded.locator('.tick').allTextContents();
    const last = Number.parseFloat(ticks.at(-1)!);
    // The quorum is at 39 s: the axis ends on the next round tick after it.
    expect(last).toBeGreaterThanOrEqual(39);
    expect(last).toBeLessThanOrEqual(50);
    expect(await crowded.locator('.quiet-end').textContent()).toMatch(
      /^nothing after [\d.]+s; the run went on to 400s$/,
    );
    // The late acknowledgement at 140 s of a 200 s run: the axis runs to 150 s.
    const late = await opened(page, 'Late ack');
    expect((await late.locator('.tick').allTextContents()).at(-1)).toBe('150s');
  });
});
