/**
 * Issue 16, the dashboard in a real Chromium: a stub on a real port with badges of its own and
 * the virtual clock, the page at /_stub/ui/. Everything waits with Playwright's auto-waiting
 * locators (bounded), never a fixed sleep; time moves only from the page's clock buttons.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Fixtures } from '../../fixtures/fixtures.schema.ts';
import { generateFixtures } from '../../fixtures/generate-fixtures.ts';
import type { StartStubOptions } from '../../server-stub/start-stub.ts';
import { browserUnavailable, launchBrowser } from '../support/browser.ts';
import { openDashboard, WAIT, waitText } from '../support/dashboard-page.ts';
import { serviceClient } from '../support/http.ts';

const ADA = '350000000000001';
const BEN = '350000000000002';
const LENA = '350000000000003';
const OMAR = '350000000000004';

describe.skipIf(browserUnavailable())('the dashboard at /_stub/ui/', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  const open = (options: StartStubOptions, hash = '') => openDashboard(browser, options, hash);

  test("shows the fixtures' badges online; an alert sent over HTTP plays on the group's cards; Talk on one brings its acknowledged event", async () => {
    await using ui = await open({ badges: 'all', seed: 1 });
    const { page, stub, card } = ui;
    await waitText(page, `[data-device="${ADA}"] .user`, 'Ada Mensah');
    await waitText(page, `[data-device="${ADA}"] .online`, /^online$/);
    expect(await page.locator('#badge-count').textContent()).toBe('8 shown · 8 online');
    expect(await card(LENA).locator('.groups').textContent()).toBe('Nurses, Pharmacy');

    const sent = await serviceClient(stub).alert({
      notification: 'Code blue',
      groups: ['Nurses'],
      quorum: 1,
    });
    expect(sent.status).toBe(200);
    for (const id of [ADA, BEN, LENA]) {
      await waitText(page, `[data-device="${id}"] .heard`, 'Plays: “Code blue”');
      await page.locator(`[data-device="${id}"][data-state="playing"]`).waitFor(WAIT);
    }
    expect(await card(OMAR).locator('.heard').textContent()).toBe('Nothing playing');
    await waitText(page, '#tasks .task.alerting', '0 / 1 acknowledged');

    await card(ADA).getByRole('button', { name: /^Talk/ }).click();
    await waitText(page, '#timeline li.event-acknowledged', 'Ada Mensah');
    await waitText(page, `[data-device="${ADA}"] .note`, 'Tap: acknowledged');
    await waitText(page, '#tasks .task.ended', 'ended: quorum');
    await waitText(page, '#tasks .task.ended', '1 / 1 acknowledged');
    expect(ui.problems).toEqual([]);
    // Air-gapped: nothing but the stub that served it.
    expect(ui.requested.filter((url) => !url.startsWith(stub.url))).toEqual([]);
  });

  test('the clock buttons move the virtual clock: +5 min times an alert out, and the page shows it', async () => {
    await using ui = await open({ badges: 'all', seed: 1 });
    const { page, stub } = ui;
    await waitText(page, '#clock-now', '2026-01-01 00:00:00');
    await serviceClient(stub).alert({
      notification: 'Spill in aisle 4',
      groups: ['Pharmacy'],
      timeout: 60,
    });
    await waitText(page, '#tasks .task.alerting', '1:00 to timeout');
    await page.getByRole('button', { name: '+30 s' }).click();
    await waitText(page, '#clock-now', '2026-01-01 00:00:30');
    await waitText(page, '#tasks .task.alerting', '0:30 to timeout');
    await page.getByRole('button', { name: '+5 min' }).click();
    await waitText(page, '#tasks .task.ended', 'ended: timed_out');
    await waitText(page, '#timeline li.event-timed_out', 'timed out');
    await waitText(page, '#clock-now', '2026-01-01 00:05:30');
    // The lanes put the start and the timeout on one axis, a minute apart; the badges' plays on theirs.
    const left = (selector: string) =>
      page
        .locator(selector)
        .first()
        .evaluate((mark) => Number.parseFloat(mark.style.left));
    const started = await left('[data-lane="alert"] .mark.event-start');
    const timedOut = await left('[data-lane="alert"] .mark.event-timed_out');
    expect(timedOut).toBeGreaterThan(started);
    expect(await page.locator('[data-lane="Lena Ortiz"] .mark.heard-play').count()).toBeGreaterThan(
      0,
    );
  });

  test('Next timer runs the clock to the next due timer: an alert whose timeout comes before its first repeat ends', async () => {
    await using ui = await open({ seed: 1 });
    const { page, stub } = ui;
    await waitText(page, '#badge-count', '8 shown');
    await serviceClient(stub).alert({
      notification: 'Short one',
      groups: ['Security'],
      timeout: 20,
    });
    await waitText(page, '#tasks .task.alerting', '0:20 to timeout');
    await page.getByRole('button', { name: 'Next timer' }).click();
    await waitText(page, '#tasks .task.ended', 'ended: timed_out');
    await waitText(page, '#clock-now', '2026-01-01 00:00:20');
  });

  test('a scaled clock shows its speed and no advance buttons', async () => {
    await using ui = await open({ seed: 1, clock: 'scaled', clockScale: 60 });
    const { page } = ui;
    await waitText(page, '#clock-mode', 'scaled clock');
    await waitText(page, '#clock-speed', '×60');
    expect(await page.getByRole('button', { name: '+30 s' }).isVisible()).toBe(false);
  });

  test('keyboard: Talk is a focusable button that Enter presses; its focus and its card stay put while updates stream in', async () => {
    await using ui = await open({ badges: 'all', seed: 1 });
    const { page, stub, card } = ui;
    await waitText(page, `[data-device="${BEN}"] .online`, /^online$/);
    const talk = card(BEN).getByRole('button', { name: /^Talk/ });
    await talk.focus();
    const before = await card(BEN).boundingBox();
    await serviceClient(stub).alert({
      notification: 'Keyboard test',
      groups: ['Nurses'],
      quorum: 1,
    });
    await waitText(page, `[data-device="${BEN}"] .heard`, 'Keyboard test');
    expect(await card(BEN).boundingBox()).toEqual(before);
    expect(await talk.evaluate((button) => button === button.ownerDocument.activeElement)).toBe(
      true,
    );
    await page.keyboard.press('Enter');
    await waitText(page, '#timeline li.event-acknowledged', 'Ben Okafor');
  });

  test('the send form sends an alert through the emulated API with the account key; Cancel ends it; a badge can be taken offline and back', async () => {
    const log: string[] = [];
    await using ui = await open({
      badges: 'all',
      seed: 1,
      onResponse: ({ method, url, status }) => log.push(`${method} ${url} ${status}`),
    });
    const { page, card } = ui;
    await waitText(page, `[data-device="${ADA}"] .online`, /^online$/);
    await page.locator('#send-group').selectOption('Security');
    await page.getByLabel('Message').fill('Visitor at the desk');
    await page.getByRole('button', { name: 'Send' }).click();
    await waitText(page, '#send-result', /^Sent: task /);
    await waitText(page, '[data-device="VIRTDESK01"] .heard', 'Visitor at the desk');
    await page.getByRole('button', { name: /^Cancel the alert “Visitor at the desk”/ }).click();
    await waitText(page, '#tasks .task.ended', 'ended: cancelled');
    // The key went in a header: neither the request log nor the stream repeats it.
    expect(log.some((line) => line.includes('POST /subscribers/100001/api/v1/alerts'))).toBe(true);
    expect(log.join('\n')).not.toContain('demo-api-key-riverside-0001');
    const snapshot = await (await fetch(`${ui.stub.controlUrl}/stream?once=true`)).text();
    expect(snapshot).not.toContain('demo-api-key-riverside-0001');

    await card(OMAR)
      .getByRole('button', { name: /^Take offline/ })
      .click();
    await waitText(page, `[data-device="${OMAR}"] .online`, /^offline$/);
    await waitText(page, '#timeline li.offline', 'Omar Haddad');
    await card(OMAR)
      .getByRole('button', { name: /^Bring back/ })
      .click();
    await waitText(page, `[data-device="${OMAR}"] .online`, /^online$/);
  });

  test('filters by account and group show only their badges', async () => {
    await using ui = await open({ seed: 1 });
    const { page } = ui;
    await waitText(page, '#badge-count', '8 shown');
    await page.locator('#filter-account').selectOption('100002');
    await waitText(page, '#badge-count', '2 shown');
    await page.locator('#filter-account').selectOption('');
    await page.locator('#filter-group').selectOption('Pharmacy');
    await waitText(page, '#badge-count', '2 shown');
    const users = await page.locator('#badge-grid .user').allTextContents();
    expect(users).toEqual(['Lena Ortiz', 'Omar Haddad']);
  });

  test('a user named like HTML is shown as text and runs nothing', async () => {
    const hostile = '<img src=x onerror="window.__pwned=1">Eve';
    const fixtures: Fixtures = {
      accounts: [
        {
          subscriber_id: '1',
          api_keys: ['hostile-key-0001'],
          groups: [{ id: '1', name: '<b>Crew</b>', members: ['350000000000001'] }],
          devices: [{ id: '350000000000001', user: hostile }],
        },
      ],
    };
    await using ui = await open({ fixtures, seed: 1 });
    const { page } = ui;
    await waitText(page, `[data-device="${ADA}"] .user`, hostile);
    expect(await page.locator(`[data-device="${ADA}"] .groups`).textContent()).toBe('<b>Crew</b>');
    expect(await page.locator('#badge-grid img, #badge-grid b').count()).toBe(0);
    expect(await page.evaluate('typeof globalThis.__pwned')).toBe('undefined');
  });

  test('opened with a wrong control token it says so, and connects once given the right one', async () => {
    await using ui = await open({ controlToken: 'right-control-token', seed: 1 }, '#token=wrong');
    const { page } = ui;
    await waitText(page, '#token-problem', /Wrong control token/);
    // The token never went into a URL the server saw.
    expect(ui.requested.some((url) => url.includes('wrong'))).toBe(false);
    await page.getByLabel('Control token').fill('right-control-token');
    await page.getByRole('button', { name: 'Connect' }).click();
    await waitText(page, '#connection', 'Live');
    await waitText(page, '#badge-count', '8 shown');
  });

  test('1,000 badges: every one counted, only the cards in view exist; readable on a phone without sideways scrolling', async () => {
    const fixtures = generateFixtures({ seed: 3, devicesPerAccount: 1_000 });
    await using ui = await open({ fixtures, seed: 1 });
    const { page } = ui;
    await waitText(page, '#badge-count', '1000 shown');
    const cards = await page.locator('#badge-grid .card').count();
    expect(cards).toBeGreaterThan(0);
    expect(cards).toBeLessThan(100);
    // Scrolled to the end, the last badge is drawn.
    const last = fixtures.accounts[0]!.devices.at(-1)!;
    await page.locator('#badges').evaluate((el) => el.scrollTo(0, el.scrollHeight));
    await page.locator(`[data-device="${last.id}"]`).waitFor(WAIT);
    // An alert to all 1,000: its task names 12 of them and counts the rest.
    const account = fixtures.accounts[0]!;
    const sent = await serviceClient(ui.stub, {
      id: account.subscriber_id,
      key: account.api_keys[0]!,
    }).alert({ notification: 'Everyone', groups: account.groups.map((g) => g.name) });
    expect(sent.status).toBe(200);
    await waitText(page, '#tasks .recipients .more', /^and 988 more: /);
    expect(await page.locator('#tasks .recipients li').count()).toBe(13);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.locator('#badge-grid .card').first().waitFor(WAIT);
    const overflow = await page.evaluate(
      'document.documentElement.scrollWidth - document.documentElement.clientWidth',
    );
    expect(overflow).toBeLessThanOrEqual(0);
  });
});
