/**
 * A real Chromium for the page tests: Debian's `chromium` driven by playwright-core (its own
 * browser download cannot reach its host here). Under CI=true a missing browser fails the run
 * (.ci/run installs it); on a laptop without one the browser suites are left out, saying why.
 */
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

const CHROMIUM = process.env.BADGE_SIM_CHROMIUM ?? '/usr/bin/chromium';

/** Why the browser tests cannot run here, or undefined when they can. */
export function browserUnavailable(): string | undefined {
  if (existsSync(CHROMIUM)) return undefined;
  const why = `no Chromium at ${CHROMIUM} (apt-get install chromium, or set BADGE_SIM_CHROMIUM)`;
  if (process.env.CI === 'true') throw new Error(`CI=true and ${why}`);
  return why;
}

/**
 * Chromium headless, with nothing of its own reaching for the network: this machine's closed
 * network refuses its background connections, and root needs --no-sandbox.
 */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
