/**
 * Issue 33 points 2 and 5, the trace viewer as a person uses it, in a real Chromium (one launch
 * for the file): a catalogue scenario's trace opened, scrubbed with a click and stepped with
 * the arrow keys; at each instant the badges and alerts the page shows are those the trace
 * holds there (traceAt / foldTrace, TR9). A failed scenario's trace opens on its first
 * difference; a kind this viewer does not know, and a `next_repeat_at`, are shown as they are.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { renderTracePage } from '../../cli/show-trace/trace-page.ts';
import { type TracePageData, tracePageData } from '../../cli/show-trace/trace-page-data.ts';
import { foldTrace, type TraceInstant, traceAt } from '../../input/trace-instant.ts';
import { parseTimestamp } from '../../protocol/timestamp.ts';
import { loadScenarioFile, loadScenarioText } from '../../scenarios/format/load-scenario.ts';
import { runScenario } from '../../scenarios/runner/run-scenario.ts';
import { browserUnavailable, launchBrowser } from '../support/browser.ts';
import { lateAcknowledgementScenario } from '../support/late-scenario.ts';

const DROPS = 'scenarios/catalogue/device-drops-mid-alert.scenario.yaml';
const OMAR = '350000000000004';

/** A scenario's trace, run now on the virtual clock: its page's data. */
async function traced(dir: string, scenario: ReturnType<typeof loadScenarioFile>) {
  const kept: string[] = [];
  await runScenario(scenario, { trace: { keep: 'on', dir, onKept: (file) => kept.push(file) } });
  return tracePageData(kept[0]!);
}

/** What the page shows of each badge and alert, as the test reads it from the panels. */
async function shown(page: Page) {
  const rows = (id: string, key: string) =>
    page
      .locator(`#${id} tr`)
      .evaluateAll(
        (trs, attribute) =>
          Object.fromEntries(
            trs.map((tr) => [
              tr.getAttribute(attribute),
              Object.fromEntries(
                [...tr.querySelectorAll('td')].map((td) => [
                  td.getAttribute('data-field'),
                  td.textContent,
                ]),
              ),
            ]),
          ),
        `data-${key}`,
      );
  return {
    seq: Number(await page.locator('#cursor-at').getAttribute('data-seq')),
    badges: await rows('badges', 'device'),
    alerts: await rows('alerts', 'task'),
  };
}

/** The same, as the page would write it, from the fold. */
function expected(data: TracePageData, instant: TraceInstant) {
  const name = (device: string) => data.names[device] ?? device;
  const names = (devices: string[]) => devices.map(name).join(', ') || '—';
  const clip = (c: { kind: string; text: string } | null) => (c ? `${c.kind}: ${c.text}` : '—');
  const badges = Object.entries(instant.badges).map(([device, b]) => [
    device,
    expect.objectContaining({
      name: name(device),
      online: b.online ? 'online' : 'offline',
      state: b.state ?? '—',
      clip: clip(b.current),
      queue: b.queue.map(clip).join('; ') || '—',
    }),
  ]);
  const alerts = Object.entries(instant.alerts).map(([task, a]) => [
    task,
    expect.objectContaining({
      state: a.state,
      acknowledgements: `${a.acknowledgements} of ${a.quorum}`,
      acknowledged: names(a.acknowledged),
      pending: names(a.pending),
    }),
  ]);
  return {
    seq: instant.seq,
    badges: Object.fromEntries(badges),
    alerts: Object.fromEntries(alerts),
  };
}

const micros = (time: string) => parseTimestamp(time)!;

/** Clicks the lanes at `seconds` after the first record (the view fits the trace: 2% margins). */
async function clickAt(page: Page, data: TracePageData, seconds: number) {
  const times = data.records.map((r) => micros(r.time));
  const span = times.at(-1)! - times[0]!;
  const box = (await page.locator('#lanes .track').first().boundingBox())!;
  const share = (seconds * 1e6 + span * 0.02) / (span * 1.04);
  await page.mouse.click(box.x + share * box.width, box.y + box.height / 2);
}

describe.skipIf(browserUnavailable())('the trace viewer in Chromium', () => {
  let browser: Browser;
  let drops: TracePageData;
  let late: TracePageData;
  let dir: string;

  async function open(data: TracePageData, name: string): Promise<Page> {
    const file = join(dir, `${name}.html`);
    writeFileSync(file, renderTracePage(data));
    const page = await browser.newPage({ viewport: { width: 1300, height: 800 } });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    // Nothing outside the file: a request anywhere else fails the test.
    await page.route(/^(?!file:)/, (route) => {
      errors.push(route.request().url());
      return route.abort();
    });
    await page.goto(pathToFileURL(file).href);
    await page.locator('#cursor-at').waitFor();
    expect(errors).toEqual([]);
    return page;
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'badge-sim-trace-viewer-'));
    const failing = lateAcknowledgementScenario('Omar late', 'Fails on purpose.');
    [drops, late, browser] = await Promise.all([
      traced(dir, loadScenarioFile(DROPS)),
      traced(dir, loadScenarioText(failing, join(dir, 'late.scenario.yaml'))),
      launchBrowser(),
    ]);
  }, 60_000);
  afterAll(() => browser?.close());

  test('TV1 TV2: scrubbed with a click and stepped with the arrows, the page shows each badge and alert as the trace holds them at that instant', async () => {
    const page = await open(drops, 'drops');
    const { records } = drops;
    // One lane a badge that ran and one for the alert, on one axis.
    await expect(
      page.locator(`[data-lane="badge:${OMAR}"] .mark`).count(),
    ).resolves.toBeGreaterThan(5);
    await expect(page.locator('[data-lane^="alert:"]').count()).resolves.toBe(1);
    for (const seconds of [10, 100.5]) {
      await clickAt(page, drops, seconds);
      const at = await shown(page);
      const index = records.findIndex((r) => r.seq === at.seq);
      // The cursor is on the last record at or before the instant clicked: traceAt's instant.
      expect(micros(records[index + 1]!.time)).toBeGreaterThan(micros(records[index]!.time));
      expect(at).toEqual(expected(drops, traceAt(records, records[index]!.time)));
    }
    // At 100.5 s Omar is back and hears the alert again; it still waits for him.
    const back = await shown(page);
    expect(back.badges[OMAR]).toMatchObject({ online: 'online', clip: 'alert: Delivery at dock' });
    for (const [key, moves] of [
      ['ArrowRight', 3],
      ['ArrowLeft', 7],
    ] as const) {
      const before = (await shown(page)).seq;
      for (let i = 0; i < moves; i++) await page.keyboard.press(key);
      const at = await shown(page);
      const index =
        records.findIndex((r) => r.seq === before) + (key === 'ArrowRight' ? moves : -moves);
      expect(at).toEqual(expected(drops, foldTrace(records, index + 1)));
    }
    await page.keyboard.press('End');
    expect(await shown(page)).toEqual(expected(drops, foldTrace(records, records.length)));
    // Zoomed in, the view shows less of the trace; 0 fits it whole again.
    const marks = () => page.locator('#lanes .mark').count();
    const whole = await marks();
    for (let i = 0; i < 3; i++) await page.keyboard.press('+');
    expect(await marks()).toBeLessThan(whole);
    await page.keyboard.press('0');
    expect(await marks()).toBe(whole);
    await page.close();
  });

  test('TV2: with a badge chosen, the arrows step only through what concerns it, and only its lane shows', async () => {
    const page = await open(drops, 'drops-filter');
    await page.selectOption('#filter-badge', OMAR);
    await expect(page.locator('[data-lane^="badge:"]').count()).resolves.toBe(1);
    for (let i = 0; i < 6; i++) {
      await page.keyboard.press('ArrowRight');
      const { seq } = await shown(page);
      const at = drops.records.find((r) => r.seq === seq)!;
      expect([at.device, ...((at.devices as string[]) ?? [])]).toContain(OMAR);
    }
    await page.close();
  });

  test('TV3: a failed scenario’s trace shows the expected and actual events, the first difference marked, the cursor on it', async () => {
    const page = await open(late, 'late');
    await expect(page.locator('.failure li.difference').allTextContents()).resolves.toEqual([
      expect.stringMatching(/^at 141s/),
      expect.stringMatching(/^\+140s/),
    ]);
    const at = await shown(page);
    const record = late.records.find((r) => r.seq === at.seq)!;
    const start = late.records.find((r) => r.kind === 'step')!;
    expect(micros(record.time) - micros(start.time)).toBe(140_000_000);
    expect(at).toEqual(expected(late, traceAt(late.records, record.time)));
    expect(Object.values(at.alerts)[0]).toMatchObject({ acknowledged: 'Lena Ortiz, Omar Haddad' });
    await page.close();
  });

  test('TV4: a kind the viewer does not know is a mark on the “other” lane, shown in full; an alert’s next_repeat_at is shown', async () => {
    const records = drops.records.map((r) => ({ ...r }));
    const first = records.find((r) => r.kind === 'alert')!;
    first.next_repeat_at = '2026-01-01T00:00:30.000000Z';
    const last = records.at(-1)!;
    records.push({ seq: last.seq + 1, time: last.time, kind: 'world' as 'end', every: '10s' });
    const page = await open({ ...drops, records }, 'unknown-kind');
    // Stepped to from the start: marks of one instant lie on each other.
    await page.keyboard.press('Home');
    for (let i = 0; i < records.indexOf(first); i++) await page.keyboard.press('ArrowRight');
    const at = await shown(page);
    expect(Object.values(at.alerts)[0]).toMatchObject({ 'next-repeat': 'in 30s' });
    await page.locator('[data-lane="other"] .mark[data-kind="world"]').click();
    await expect(page.locator('#record').textContent()).resolves.toContain('"every": "10s"');
    await page.close();
  });
});
