/**
 * The HTML report in a real Chromium, opened from disk as a person opens a CI artefact: the
 * summary, the failing scenario with its difference marked on the timeline and in the side by
 * side, filters, a hostile name that stays text, and not one request beyond the file itself.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { renderHtmlReport } from '../../scenarios/reports/html.reporter.ts';
import { CATALOGUE_DIR } from '../../scenarios/runner/run-suite.ts';
import { traceFileName } from '../../scenarios/runner/run-trace.ts';
import { browserUnavailable, launchBrowser } from '../support/browser.ts';
import { BIN } from '../support/cli.ts';
import { lateAcknowledgementScenario } from '../support/late-scenario.ts';

const HOSTILE_NAME = '<img src=x onerror="window.pwned=1">Late </script> ack';
/** Omar acknowledges at 140 s; this one expects it at 141 s. */
const LATE = lateAcknowledgementScenario(
  HOSTILE_NAME,
  'The first difference is marked on the timeline.',
);

/** Opens a file and records every request the page makes, failing any but the file's own. */
async function openFromDisk(browser: Browser, file: string) {
  const url = pathToFileURL(file).href;
  const page = await browser.newPage();
  const requests: string[] = [];
  const errors: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  page.on('pageerror', (error) => errors.push(String(error)));
  await page.route('**/*', (route) =>
    route.request().url() === url ? route.continue() : route.abort('internetdisconnected'),
  );
  await page.goto(url);
  await page.locator('html[data-rendered="true"]').waitFor();
  return { page, requests: () => requests.filter((r) => r !== url), errors };
}

describe.skipIf(browserUnavailable())('the HTML report in Chromium', () => {
  let browser: Browser;
  let page: Page;
  let outside: () => string[];
  let errors: string[];
  const dir = mkdtempSync(join(tmpdir(), 'badge-sim-html-ui-'));

  beforeAll(async () => {
    const late = join(dir, 'late.scenario.yaml');
    writeFileSync(late, LATE);
    const report = join(dir, 'report.html');
    const drops = join(CATALOGUE_DIR, 'device-drops-mid-alert.scenario.yaml');
    const run = spawnSync(
      process.execPath,
      [
        ...[BIN, 'run', drops, late, '--reporter', 'html', '-o', report, '--coverage'],
        ...['--trace', 'retain-on-failure', '--trace-dir', join(dir, 'traces')],
      ],
      { encoding: 'utf8', timeout: 60_000 },
    );
    expect(run.status, run.stderr).toBe(1);
    browser = await launchBrowser();
    ({ page, requests: outside, errors } = await openFromDisk(browser, report));
    // A run with --coverage in a CLI process: longer than vitest's 10 s on a shared machine.
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
  });

  test('the summary says what passed and what failed', async () => {
    const summary = page.getByRole('region', { name: 'Summary' });
    await expect.poll(() => summary.textContent()).toContain('1 passed');
    expect(await summary.textContent()).toContain('1 failed');
  });

  test('with --coverage, a section gives the three shares; each opens on what was missed', async () => {
    const coverage = page.getByRole('region', { name: 'Coverage' });
    const share = (name: string) => coverage.locator(`details[data-coverage="${name}"]`);
    // Only the passing scenario's rows count (D2, D3 of device-drops-mid-alert).
    await expect
      .poll(() => share('decision rows').locator('summary').textContent())
      .toMatch(/^decision rows2\/\d+ \(0 %\)$/);
    expect(await share('alert model').locator('summary').textContent()).toMatch(
      /^alert model\d+\/22 \(\d+ %\)$/,
    );
    expect(await share('badge machine').locator('summary').textContent()).toMatch(
      /^badge machine\d+\/\d+/,
    );
    const missed = share('alert model').getByText('cancelled: cancelled by DELETE (L3)');
    expect(await missed.isVisible()).toBe(false);
    await share('alert model').locator('summary').click();
    await missed.waitFor({ state: 'visible' });
    await share('decision rows').locator('summary').click();
    await share('decision rows').getByText('L5: Second acknowledgement by a device').waitFor();
    expect(await share('decision rows').getByText(/^D2: /).count()).toBe(0);
  });

  test('the failing scenario comes first, open, with its difference marked on the timeline', async () => {
    const first = page.locator('ol.scenarios > li').first();
    expect(await first.getAttribute('class')).toBe('failed');
    const details = first.locator('details');
    expect(await details.getAttribute('open')).not.toBeNull();
    const marker = details.locator('.marker[data-kind="difference"]');
    await marker.waitFor();
    expect(await marker.textContent()).toBe('first difference');
    expect(await marker.getAttribute('title')).toContain('expected at 141s; happened at 140s');
    // The lines across the lanes: where it happened, and where it was expected.
    const left = (which: string) =>
      details
        .locator(`.guide[data-diff="${which}"]`)
        .getAttribute('style')
        .then((style) => Number(/left:\s*([\d.]+)%/.exec(style ?? '')?.[1]));
    expect(await left('actual')).toBeLessThan(await left('expected'));
    // The lane of the badge it is about is marked too.
    const lane = details.locator('.who.diff-lane');
    expect(await lane.textContent()).toContain('Omar Haddad');
  });

  test('TR11: the failing scenario links its kept trace, relative to the report; a passing one has none', async () => {
    const link = page.locator('ol.scenarios > li').first().locator('p.trace a');
    const href = await link.getAttribute('href');
    expect(href).toBe(`traces/${traceFileName(join(dir, 'late.scenario.yaml'), HOSTILE_NAME)}`);
    expect(existsSync(join(dir, href!))).toBe(true);
    expect(await link.textContent()).toBe(href);
    expect(await page.locator('li.passed p.trace').count()).toBe(0);
  });

  test('expected and actual side by side, the first difference marked', async () => {
    const row = page.getByRole('row', { name: 'first difference' });
    await row.waitFor();
    const cells = await row.locator('td').allTextContents();
    expect(cells[1]).toContain('at 141s');
    expect(cells[1]).toContain('acknowledged device=Omar Haddad');
    expect(cells[2]).toContain('+140s');
  });

  test("a passing scenario is drawn when opened: its badges' lanes and alert markers", async () => {
    const passing = page.locator('ol.scenarios > li.passed details');
    expect(await passing.locator('.timeline').count()).toBe(0);
    await passing.locator('summary').click();
    const omar = passing
      .locator('.row')
      .filter({ has: page.locator('.who', { hasText: 'Omar Haddad' }) });
    await omar.waitFor();
    expect(await omar.locator('.clip').count()).toBe(4);
    expect(await omar.locator('.clip.repeat').count()).toBe(3);
    expect(await omar.locator('.tap').getAttribute('title')).toBe('tap at 140s');
    expect(await omar.locator('.offline').getAttribute('title')).toBe('offline 40s–100s');
    const markers = await passing.locator('.marker').all();
    const kinds = await Promise.all(markers.map((m) => m.getAttribute('data-kind')));
    expect(kinds).toEqual(['start', 'acknowledged', 'acknowledged', 'quorum']);
    expect(await passing.locator('.proves').textContent()).toContain('proves:');
    expect(await passing.locator('.rerun code').textContent()).toContain('npx badge-sim run');
  });

  test('filters: failed only, passed only, by name', async () => {
    const visible = () =>
      page
        .locator('ol.scenarios > li:not([hidden]) .name')
        .allTextContents()
        .then((names) => names.map((n) => n.slice(0, 12)));
    await page.getByRole('button', { name: 'passed' }).click();
    expect(await visible()).toEqual(['Device drops']);
    await page.getByRole('button', { name: 'failed' }).click();
    expect(await visible()).toEqual(['<img src=x o']);
    await page.getByRole('button', { name: 'all' }).click();
    await page.getByRole('searchbox').fill('drops');
    expect(await visible()).toEqual(['Device drops']);
    await page.getByRole('searchbox').fill('');
  });

  test('a scenario named with markup shows it as text, and nothing of it runs', async () => {
    expect(await page.locator('ol.scenarios > li.failed .name').textContent()).toBe(HOSTILE_NAME);
    expect(await page.evaluate(() => (globalThis as { pwned?: number }).pwned)).toBeUndefined();
    expect(await page.locator('ol.scenarios img').count()).toBe(0);
    expect(errors).toEqual([]);
  });

  test('it asked for nothing beyond its own file', () => {
    expect(outside()).toEqual([]);
  });

  test('a suite of hundreds opens with every scenario closed and none drawn', async () => {
    const scenarios = Array.from({ length: 300 }, (_, i) => ({
      name: `scenario ${i}`,
      source: `suite/s${i}.scenario.yaml`,
      proves: 'many',
      passed: i % 50 !== 0,
      seed: 0,
      rerun: `npx badge-sim run suite/s${i}.scenario.yaml`,
      notes: [],
      wallMs: 10,
      endMs: 60_000,
      lanes: [],
      markers: [],
      failures: [],
    }));
    const file = join(dir, 'many.html');
    writeFileSync(
      file,
      renderHtmlReport({ passed: 294, failed: 6, wallMs: 3000, scenarios, loadErrors: [] }),
    );
    const many = await openFromDisk(browser, file);
    expect(await many.page.locator('ol.scenarios > li').count()).toBe(300);
    expect(await many.page.locator('details[open]').count()).toBe(0);
    expect(await many.page.locator('.timeline').count()).toBe(0);
    expect(await many.page.locator('ol.scenarios > li').first().getAttribute('class')).toBe(
      'failed',
    );
    await many.page.close();
  });
});
