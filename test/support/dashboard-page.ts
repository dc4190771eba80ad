/**
 * The dashboard of a new stub in a real Chromium, for the page tests: every URL the page asks
 * for is kept, every page error too, and disposing closes the page's context and the stub.
 */
import type { Browser, Page } from 'playwright-core';
import { startStub } from '../../index.ts';
import type { StartStubOptions } from '../../server-stub/start-stub.ts';

/** A transport guard for each wait on the page (it answers in milliseconds). */
export const WAIT = { timeout: 10_000 };

export async function openDashboard(browser: Browser, options: StartStubOptions, hash = '') {
  const stub = await startStub(options);
  const context = await browser.newContext();
  const page = await context.newPage();
  const requested: string[] = [];
  page.on('request', (r) => requested.push(r.url()));
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto(`${stub.controlUrl}/ui/${hash}`);
  return {
    stub,
    page,
    requested,
    problems,
    card: (id: string) => page.locator(`[data-device="${id}"]`),
    async [Symbol.asyncDispose]() {
      await context.close();
      await stub.close();
    },
  };
}

/** Waits (bounded) until an element matching `selector` holds `text`. */
export const waitText = (page: Page, selector: string, text: string | RegExp) =>
  page.locator(selector, { hasText: text }).first().waitFor(WAIT);
