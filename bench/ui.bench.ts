/**
 * `npm run bench:ui`: the dashboard's time to first render with 1,000 badges, in a real
 * Chromium (Debian's, through playwright-core): a stub with 1,000 generated devices, each a
 * virtual badge it runs itself (`badges: 'all'`), the page opened at /_stub/ui/. Printed: the
 * snapshot's size, the time from navigation to the cards drawn (and the counts), and from an
 * alert to all 1,000 sent it to its first card showing it. Markdown on stdout.
 */
import { generateFixtures } from '../fixtures/generate-fixtures.ts';
import { startStub } from '../index.ts';
import { launchBrowser } from '../test/support/browser.ts';

const BADGES = 1_000;
const fixtures = generateFixtures({ seed: 3, devicesPerAccount: BADGES });
const account = fixtures.accounts[0]!;
let started = performance.now();
const stub = await startStub({ fixtures, badges: 'all', seed: 1 });
const stubMs = performance.now() - started;
const browser = await launchBrowser();
try {
  const snapshot = await (await fetch(`${stub.controlUrl}/stream?once=true`)).text();
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  started = performance.now();
  await page.goto(`${stub.controlUrl}/ui/`);
  await page.locator('#badge-count', { hasText: `${BADGES} shown · ${BADGES} online` }).waitFor();
  const firstRenderMs = performance.now() - started;
  const inPage = (await page.evaluate('performance.now()')) as number;
  const cards = await page.locator('#badge-grid .card').count();

  // Every badge is in some group of the generated account: alert them all at once.
  started = performance.now();
  const groups = account.groups.map((g) => g.name);
  const sent = await fetch(`${stub.url}/subscribers/${account.subscriber_id}/api/v1/alerts`, {
    method: 'POST',
    headers: {
      authorization: `ServiceApiKey ${account.api_keys[0]}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ notification: 'Bench alert', groups }),
  });
  if (!sent.ok) throw new Error(`alert refused: ${await sent.text()}`);
  await page.locator('#badge-grid .card .heard', { hasText: 'Bench alert' }).first().waitFor();
  const alertMs = performance.now() - started;

  console.log(`## Dashboard with ${BADGES} badges (Chromium ${browser.version()})

| what | value |
|---|---|
| stub start with ${BADGES} badges connected | ${(stubMs / 1000).toFixed(2)} s |
| snapshot (\`/_stub/stream\` first message) | ${(snapshot.length / 1024).toFixed(0)} KiB |
| navigation to ${BADGES} counted, cards drawn (test side) | ${firstRenderMs.toFixed(0)} ms |
| the same, page clock (performance.now at that point) | ${inPage.toFixed(0)} ms |
| cards in the page (virtualised) | ${cards} of ${BADGES} |
| alert to ${BADGES} badges → first card shows it | ${alertMs.toFixed(0)} ms |
`);
} finally {
  await browser.close();
  await stub.close();
}
