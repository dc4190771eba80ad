/**
 * Issue 31 point 9, the dashboard tells the whole truth, in a real Chromium: every repeat inside
 * a clock jump, the history kept across a reload, a badge taken offline mid-play shown offline
 * everywhere, idle cards that say plainly that nothing plays, and account names shown whole.
 * Time moves only from the page's clock buttons (the stub's virtual clock), never by sleeping.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { accountSite } from '../../fixtures/badge-location.ts';
import { DEFAULT_FIXTURES_FILE, loadFixturesFile } from '../../fixtures/load-fixtures.ts';
import { browserUnavailable, launchBrowser } from '../support/browser.ts';
import { openDashboard, WAIT, waitText } from '../support/dashboard-page.ts';
import { serviceClient } from '../support/http.ts';

const BEN = '350000000000002';
const LENA = '350000000000003';
const OMAR = '350000000000004';
const ADA = '350000000000001';

/** What these tests read of a `<select>` (the tests are type-checked without the DOM library). */
type SelectView = { value: string; selectedOptions: ArrayLike<{ text: string }> };
const chosenText = (select: unknown) => (select as SelectView).selectedOptions[0]?.text ?? '';

/** How wide a select must be to show its chosen option whole: a copy of it at its own size. */
function neededWidth(page: Page, selector: string): Promise<{ shown: number; needed: number }> {
  return page.locator(selector).evaluate((select) => {
    const copy = select.ownerDocument.createElement('select');
    const option = select.ownerDocument.createElement('option');
    option.textContent = (select as unknown as SelectView).selectedOptions[0]?.text ?? '';
    copy.append(option);
    copy.style.cssText = 'position:absolute;width:auto;max-width:none;min-width:0;';
    select.after(copy);
    const needed = copy.getBoundingClientRect().width;
    copy.remove();
    return { shown: select.getBoundingClientRect().width, needed };
  });
}

describe.skipIf(browserUnavailable())('the dashboard tells the whole truth', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  test('UI12: after +5 min every repeat inside the jump is on the lanes and in the log, as the transcript holds them, and still after a reload', async () => {
    await using ui = await openDashboard(browser, { badges: 'all', seed: 1 });
    const { page, stub } = ui;
    await waitText(page, `[data-device="${LENA}"] .online`, /^online$/);
    await serviceClient(stub).alert({
      notification: 'Spill in aisle 4',
      groups: ['Pharmacy'],
      timeout: 600,
    });
    await waitText(page, `[data-device="${LENA}"] .heard`, 'Plays: “Spill in aisle 4”');
    await page.getByRole('button', { name: '+5 min' }).click();
    await waitText(page, '#clock-now', '2026-01-01 00:05:00');
    const plays = stub.core.engine.transcript(LENA).filter((line) => line.type === 'play');
    expect(plays.length).toBeGreaterThanOrEqual(10);
    const lanePlays = () => page.locator('[data-lane="Lena Ortiz"] .mark.heard-play').count();
    const logPlays = () =>
      page.locator('#timeline li.heard-play', { hasText: 'Lena Ortiz' }).allTextContents();
    await expect.poll(lanePlays, WAIT).toBe(plays.length);
    expect(await logPlays()).toHaveLength(plays.length);
    // Each one at its own instant, as the transcript says.
    const times = await page
      .locator('#timeline li.heard-play', { hasText: 'Lena Ortiz' })
      .locator('time')
      .evaluateAll((nodes) => nodes.map((n) => n.getAttribute('datetime')).reverse());
    expect(times).toEqual(plays.map((line) => line.at));

    await page.reload();
    await waitText(page, '#connection', 'Live');
    await expect.poll(lanePlays, WAIT).toBe(plays.length);
    expect(await logPlays()).toHaveLength(plays.length);
    expect(await page.locator('#timeline li.event-start').count()).toBe(1);
  });

  test('UI13: a badge taken offline mid-play reads offline on its card and on its alert, not playing', async () => {
    await using ui = await openDashboard(browser, { badges: 'all', seed: 1 });
    const { page, stub, card } = ui;
    await waitText(page, `[data-device="${BEN}"] .online`, /^online$/);
    await serviceClient(stub).alert({ notification: 'Code blue', groups: ['Nurses'] });
    await page.locator(`[data-device="${BEN}"][data-state="playing"]`).waitFor(WAIT);
    await waitText(page, '#tasks .recipients li', 'Ben Okafor: playing');

    await card(BEN)
      .getByRole('button', { name: /^Take offline/ })
      .click();
    await waitText(page, `[data-device="${BEN}"] .online`, /^offline$/);
    await waitText(page, `[data-device="${BEN}"] .state`, /^State: offline$/);
    await expect.poll(() => card(BEN).locator('.note').textContent(), WAIT).toBe('');
    expect(await card(BEN).getAttribute('data-state')).toBe('offline');
    expect(await card(BEN).locator('.heard').textContent()).toBe('Last sent: “Code blue”');
    await waitText(page, '#tasks .recipients li', 'Ben Okafor: offline, not acknowledged');
    expect(
      await page.locator('#tasks .recipients li', { hasText: 'Ben Okafor: playing' }).count(),
    ).toBe(0);
    // The others still play.
    expect(
      await page.locator('#tasks .recipients li', { hasText: 'Ada Mensah' }).textContent(),
    ).toBe('Ada Mensah: playing');

    await card(BEN)
      .getByRole('button', { name: /^Bring back/ })
      .click();
    await waitText(page, `[data-device="${BEN}"] .online`, /^online$/);
    await expect.poll(() => card(BEN).locator('.note').textContent(), WAIT).toBe('');
  });

  test('UI17: a badge that went offline and came back: its offline span and its return at their instants, on the lanes and in the log, the same after a reload', async () => {
    await using ui = await openDashboard(browser, { badges: 'all', seed: 1 });
    const { page, card } = ui;
    await waitText(page, `[data-device="${BEN}"] .online`, /^online$/);
    /** +30 s on the page's clock, then Ben's switch, waited for until his card tells it. */
    const thirtySecondsThen = async (now: string, button: RegExp, shown: RegExp) => {
      await page.getByRole('button', { name: '+30 s' }).click();
      await waitText(page, '#clock-now', now);
      await card(BEN).getByRole('button', { name: button }).click();
      await waitText(page, `[data-device="${BEN}"] .online`, shown);
    };
    await thirtySecondsThen('2026-01-01 00:00:30', /^Take offline/, /^offline$/);
    await thirtySecondsThen('2026-01-01 00:01:00', /^Bring back/, /^online$/);

    /** Ben's log lines, oldest first: [class, instant, text]. */
    const benLog = () =>
      page
        .locator('#timeline li', { hasText: 'Ben Okafor' })
        .evaluateAll((items) =>
          items
            .map((li) => [
              li.className,
              li.querySelector('time')?.getAttribute('datetime'),
              li.querySelector('.what')?.textContent,
            ])
            .reverse(),
        );
    const expected = [
      ['online', '2026-01-01T00:00:00.000000Z', 'came online'],
      ['offline', '2026-01-01T00:00:30.000000Z', 'went offline'],
      ['online', '2026-01-01T00:01:00.000000Z', 'came online'],
    ];
    /** Where the lane puts a mark or the offline band, in % of the track: 0:00 to 1:00. */
    const lane = page.locator('[data-lane="Ben Okafor"]');
    const left = (selector: string) =>
      lane
        .locator(selector)
        .evaluateAll((marks) => marks.map((m) => Number.parseFloat(m.style.left)));
    const band = () =>
      lane.locator('.offline-span').evaluateAll((bands) =>
        bands.map((b) => {
          const track = b.parentElement!.getBoundingClientRect();
          const box = b.getBoundingClientRect();
          return [
            Math.round(((box.left - track.left) / track.width) * 100),
            Math.round(((box.right - track.left) / track.width) * 100),
          ];
        }),
      );
    const seen = async () => ({
      log: await benLog(),
      offline: await left('.mark.offline'),
      online: await left('.mark.online'),
      band: await band(),
    });
    const truth = {
      log: expected,
      offline: [50],
      online: [0, 100],
      band: [[50, 100]],
    };
    await expect.poll(seen, WAIT).toEqual(truth);

    await page.reload();
    await waitText(page, '#connection', 'Live');
    await waitText(page, `[data-device="${BEN}"] .online`, /^online$/);
    await expect.poll(seen, WAIT).toEqual(truth);
    expect(await card(BEN).locator('.state').textContent()).toBe('State: idle');
    expect(await card(BEN).getAttribute('data-online')).toBe('true');
  });

  test('D16, UX1: each card shows where its badge is beside its battery, labelled: the fixture’s place, else the account’s site', async () => {
    const fixtures = loadFixturesFile(DEFAULT_FIXTURES_FILE);
    const device = (id: string) => fixtures.accounts[0]!.devices.find((d) => d.id === id)!;
    Object.assign(device(ADA), {
      battery_level: 80,
      location: { lat: 51.5, long: -0.12, accuracy: 12, address: 'Ward 3' },
    });
    Object.assign(device(OMAR), {
      battery_level: 35,
      location: { lat: 48.856613, long: -2.352222 },
    });
    Object.assign(device(BEN), { battery_level: 60 });
    await using ui = await openDashboard(browser, { badges: 'all', seed: 1, fixtures });
    const { page, card } = ui;
    for (const id of [ADA, BEN, OMAR])
      await waitText(page, `[data-device="${id}"] .online`, /^online$/);
    const meta = (id: string) => card(id).locator('.meta').textContent();
    // An address is shown as written; a position without one in degrees north or south, east
    // or west (UX1), never as two bare numbers, with how near it is when the badge says.
    expect(await meta(ADA)).toBe('battery 80% · Ward 3');
    expect(await meta(OMAR)).toBe('battery 35% · 48.8566° N, 2.3522° W');
    expect(accountSite('100001')).toEqual({ lat: -59.9074, long: 142.43809, accuracy: 50 });
    expect(await meta(BEN)).toBe('battery 60% · 59.9074° S, 142.4381° E (±50 m)');
  });

  test('UI14: an idle card says plainly that nothing plays, not in bold; what plays is in bold', async () => {
    await using ui = await openDashboard(browser, { badges: 'all', seed: 1 });
    const { page, stub, card } = ui;
    await waitText(page, `[data-device="${OMAR}"] .online`, /^online$/);
    const weight = (id: string) =>
      card(id)
        .locator('.heard')
        .evaluate((p) => Number(p.ownerDocument.defaultView?.getComputedStyle(p).fontWeight));
    expect(await card(OMAR).locator('.heard').textContent()).toBe('Nothing playing');
    expect(await weight(OMAR)).toBeLessThan(600);
    await serviceClient(stub).alert({ notification: 'Code blue', groups: ['Nurses'] });
    await waitText(page, `[data-device="${BEN}"] .heard`, 'Plays: “Code blue”');
    expect(await weight(BEN)).toBeGreaterThanOrEqual(600);
    expect(await weight(OMAR)).toBeLessThan(600);
  });

  test('UI15: the account selects show the whole account name', async () => {
    await using ui = await openDashboard(browser, { seed: 1 });
    const { page } = ui;
    await waitText(page, '#badge-count', '8 shown');
    await page.locator('#filter-account').selectOption('100001');
    await waitText(page, '#badge-count', '6 shown');
    await expect
      .poll(
        () => page.locator('#send-account').evaluate((s) => (s as unknown as SelectView).value),
        WAIT,
      )
      .toBe('100001');
    for (const select of ['#filter-account', '#send-account']) {
      expect(await page.locator(select).evaluate(chosenText)).toBe('Riverside Hospital');
      const { shown, needed } = await neededWidth(page, select);
      expect(shown, select).toBeGreaterThanOrEqual(needed);
    }
  });
});
