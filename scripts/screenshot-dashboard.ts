/**
 * `npm run screenshot:dashboard`: writes docs/dashboard.png, the README's picture of the
 * dashboard. A seeded stub with the default fixtures and its own badges on the virtual clock;
 * Omar taken offline at 0:30 (his offline stretch on his lane), an alert to the nurses
 * (quorum 2) that Ada has acknowledged, a broadcast to the dock crew; the page at a laptop's
 * width. Run it again after changing the page.
 */
import { fileURLToPath } from 'node:url';
import { startStub } from '../index.ts';
import { launchBrowser } from '../test/support/browser.ts';

const OUT = fileURLToPath(new URL('../docs/dashboard.png', import.meta.url));
const stub = await startStub({ badges: 'all', seed: 1 });
const browser = await launchBrowser();
try {
  const post = async (path: string, body?: unknown, key?: string) => {
    const response = await fetch(`${stub.url}${path}`, {
      method: 'POST',
      headers: {
        ...(key ? { authorization: `ServiceApiKey ${key}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${path}: ${await response.text()}`);
  };
  await post('/_stub/clock/advance', { by: '30s' });
  await post('/_stub/devices/350000000000004/offline');
  // Gone at 0:30 before the clock moves on (a transport wait, bounded).
  const gone = await fetch(
    `${stub.controlUrl}/devices/350000000000004/await?online=false&timeout=10s`,
  );
  if (!gone.ok) throw new Error(`Omar did not go offline: ${await gone.text()}`);
  await post('/_stub/clock/advance', { by: '30s' });
  await post(
    '/subscribers/100001/api/v1/alerts',
    { notification: 'Code blue, ward 3', groups: ['Nurses'], quorum: 2, timeout: 120 },
    'demo-api-key-riverside-0001',
  );
  await post('/_stub/clock/advance', { by: '12s' });
  await post('/_stub/devices/350000000000001/tap');
  await post(
    '/subscribers/100002/api/v1/broadcasts',
    { notification: 'Truck at dock two', groups: ['Dock Crew'] },
    'demo-api-key-harbour-0002',
  );
  const page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
  await page.goto(`${stub.controlUrl}/ui/`);
  await page.locator('#timeline li.event-acknowledged').first().waitFor();
  await page.locator('[data-device="350000000000004"] .online', { hasText: /^offline$/ }).waitFor();
  await page.screenshot({ path: OUT, fullPage: true });
  console.log(`wrote ${OUT}`);
} finally {
  await browser.close();
  await stub.close();
}
