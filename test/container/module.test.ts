/**
 * The testcontainers module and the image: fluent settings reach the stub, the handle's URLs
 * and control client work, the log says ready and holds no secret, the health check turns
 * healthy, SIGTERM stops it cleanly, and bad settings are refused before anything starts.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, test } from 'vitest';
import { fetchTrusting } from '../../client/trust.ts';
import { BadgeSimContainer } from '../../container/badge-sim-container.ts';
import { DEFAULT_FIXTURES_FILE, FixtureError } from '../../fixtures/load-fixtures.ts';
import { startFleet } from '../../simulator/fleet.ts';

const image = inject('badgeSimImage');
const docker = (...args: string[]) => spawnSync('docker', args, { encoding: 'utf8' }).stdout.trim();

const ONE_ACCOUNT = `accounts:
  - subscriber_id: "900001"
    name: Container Test Site
    api_keys: [container-test-secret-key-0001]
    groups:
      - { id: "9001", name: Porters, members: ["390000000000001"] }
    devices:
      - { id: "390000000000001", user: Pat Porter, key: badge-key-9001 }
`;

async function readLogs(container: { logs(): Promise<NodeJS.ReadableStream> }, until: string) {
  const stream = await container.logs();
  let text = '';
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 10_000);
    stream.on('data', (chunk) => {
      text += chunk.toString();
      if (text.includes(until)) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  (stream as unknown as { destroy?: () => void }).destroy?.();
  return text;
}

describe('BadgeSimContainer', () => {
  test('fluent settings reach the stub; the handle gives URLs and a ready control client', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'badge-sim-container-')), 'site.yaml');
    writeFileSync(file, ONE_ACCOUNT);
    const started = performance.now();
    await using stub = await new BadgeSimContainer(image)
      .withFixtures(file)
      .withSeed(7)
      .withAuthScheme('Token')
      .withBrandWord('acme')
      .withCancelEvents('none')
      .withClock('scaled', 60)
      .start();
    console.log(`container start to ready: ${Math.round(performance.now() - started)} ms`);

    expect(stub.url).toMatch(/^http:\/\/localhost:\d+$/);
    expect(stub.devicesUrl).toBe(`${stub.url.replace('http', 'ws')}/_stub/devices/connect`);
    expect(stub.apiHost('qa')).toBe(`${stub.url}/qa`);
    expect(await stub.control.settings()).toMatchObject({
      authScheme: 'Token',
      brandWord: 'acme',
      cancelEvents: 'none',
    });
    expect((await stub.control.health()).clock).toMatchObject({ mode: 'scaled', scale: 60 });
    expect((await stub.control.fixtures()).accounts.map((a) => a.subscriber_id)).toEqual([
      '900001',
    ]);
    const alert = await fetch(`${stub.serviceUrl('900001')}/alerts`, {
      method: 'POST',
      headers: {
        authorization: 'Token container-test-secret-key-0001',
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        notification: 'Lift 2',
        groups: ['urn:acme-resource:name:group:Porters'],
      }),
    });
    expect(alert.status).toBe(200);
    const { task_id } = (await alert.json()) as { task_id: string };
    expect(task_id).toMatch(/^[A-Za-z0-9]{22}$/);
    // The published port is on loopback only.
    const binding = docker('port', stub.getId(), '8080/tcp');
    expect(binding.split('\n').every((line) => line.startsWith('127.0.0.1:'))).toBe(true);
  });

  test('the log says ready and shows no API key; the health check turns healthy; SIGTERM stops it cleanly', async () => {
    const stub = await new BadgeSimContainer(image).start();
    const logs = await readLogs(stub, 'Press Ctrl+C');
    expect(logs).toContain('badge-sim stub ready');
    expect(logs).not.toContain('demo-api-key-riverside-0001');
    let health = '';
    for (let i = 0; i < 60 && health !== 'healthy'; i++) {
      health = docker('inspect', '--format', '{{.State.Health.Status}}', stub.getId());
      if (health !== 'healthy') await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(health).toBe('healthy');
    const id = stub.getId();
    await stub.stop({ remove: false, timeout: 10_000 });
    try {
      // 0, not 137: the stub stopped on SIGTERM before Docker had to kill it.
      expect(docker('inspect', '--format', '{{.State.ExitCode}}', id)).toBe('0');
      expect(spawnSync('docker', ['logs', id], { encoding: 'utf8' }).stdout).toContain(
        'SIGTERM: stopping the stub',
      );
    } finally {
      docker('rm', '-f', id);
    }
  });

  test('the control API is locked with a random token by default, which the handle sends and the log never shows; withControlToken chooses it', async () => {
    await using stub = await new BadgeSimContainer(image).start();
    expect(stub.controlToken).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect((await fetch(`${stub.controlUrl}/fixtures`)).status).toBe(401);
    expect((await fetch(`${stub.controlUrl}/health`)).status).toBe(200);
    expect((await stub.control.fixtures()).accounts).toHaveLength(2);
    const logs = await readLogs(stub, 'Press Ctrl+C');
    expect(logs).toContain('control API locked (send header X-Badge-Sim-Control-Token');
    expect(logs).not.toContain(stub.controlToken);
    await using chosen = await new BadgeSimContainer(image)
      .withControlToken('team-control-token-3')
      .withQuietLog()
      .start();
    expect(chosen.controlToken).toBe('team-control-token-3');
    const answer = await fetch(`${chosen.controlUrl}/fixtures`, {
      headers: { 'X-Badge-Sim-Control-Token': 'team-control-token-3' },
    });
    expect(answer.status).toBe(200);
  });

  test('the dashboard is served from the image, air-gapped, and BADGE_SIM_BADGES=all runs its badges in the container', async () => {
    await using stub = await new BadgeSimContainer(image)
      .withEnvironment({ BADGE_SIM_BADGES: 'all' })
      .withQuietLog()
      .start();
    const page = await fetch(`${stub.controlUrl}/ui/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const script = await fetch(`${stub.controlUrl}/ui/app.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toContain('javascript');
    expect((await script.text()).length).toBeGreaterThan(1000);
    const snapshot = await fetch(`${stub.controlUrl}/stream?once=true`, {
      headers: { 'X-Badge-Sim-Control-Token': stub.controlToken! },
    });
    expect(snapshot.status).toBe(200);
    const data = JSON.parse(/^data: (.*)$/m.exec(await snapshot.text())![1]!) as {
      devices: { online: boolean }[];
    };
    // The badges the container runs itself are online: the dashboard shows real badge state.
    expect(data.devices.length).toBeGreaterThan(0);
    expect(data.devices.filter((d) => d.online).length).toBe(data.devices.length);
  });

  test('withTls(): https:// and wss:// only, the handle gives the CA (its control client trusts it), badges connect over wss://, the health check turns healthy over HTTPS', async () => {
    await using stub = await new BadgeSimContainer(image).withTls().start();
    expect(stub.url).toMatch(/^https:\/\/localhost:\d+$/);
    expect(stub.devicesUrl).toMatch(/^wss:\/\/localhost:\d+\/_stub\/devices\/connect$/);
    expect(stub.caPem).toMatch(/^-----BEGIN CERTIFICATE-----/);
    expect((await stub.control.fixtures()).accounts).toHaveLength(2);
    const untrusted = await fetch(`${stub.url}/_stub/health`).catch((e: unknown) => e);
    expect((untrusted as { cause?: { code?: string } }).cause?.code).toBe(
      'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    );
    const trusting = fetchTrusting(stub.caPem);
    const plain = await fetch(`${stub.url.replace('https:', 'http:')}/_stub/health`);
    expect(plain.status).toBe(400);
    await using fleet = await startFleet({
      stub: stub.url,
      controlToken: stub.controlToken,
      ca: stub.caPem,
      devices: ['350000000000005'],
    });
    await fleet.waitUntilConnected(1, 20_000);
    const alert = await trusting(`${stub.serviceUrl('100001')}/alerts`, {
      method: 'POST',
      headers: {
        authorization: 'ServiceApiKey demo-api-key-riverside-0001',
        'content-type': 'application/json',
      },
      body: JSON.stringify({ notification: 'Over wss in a container', groups: ['Security'] }),
    });
    expect(alert.status).toBe(200);
    await fleet.settled();
    expect(fleet.transcript('350000000000005').map((e) => e.text)).toEqual([
      'Over wss in a container',
    ]);
    let health = '';
    for (let i = 0; i < 60 && health !== 'healthy'; i++) {
      health = docker('inspect', '--format', '{{.State.Health.Status}}', stub.getId());
      if (health !== 'healthy') await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(health).toBe('healthy');
    const logs = await readLogs(stub, 'Press Ctrl+C');
    expect(logs).toContain(`CA file      /tmp/badge-sim-tls/ca.pem`);
    expect(logs).not.toContain('PRIVATE KEY');
  });

  test('withTls refuses a name that is no host name or address', () => {
    expect(() => new BadgeSimContainer(image).withTls({ names: ['a b'] })).toThrow(
      "badge-sim: withTls: names are host names or IP addresses (not 'a b')",
    );
  });

  test('the image keeps few malloc arenas, so memory a stub frees leaves RSS (MALLOC_ARENA_MAX=2, H9)', () => {
    const env = JSON.parse(docker('image', 'inspect', image, '--format', '{{json .Config.Env}}'));
    expect(env).toContain('MALLOC_ARENA_MAX=2');
  });

  test('bad settings are refused before a container starts, naming what to fix', () => {
    const container = () => new BadgeSimContainer(image);
    expect(() => container().withFixtures({ accounts: [] })).toThrow(
      /^badge-sim: withFixtures: accounts must NOT have fewer than 1 items/,
    );
    expect(() => container().withFixtures({ accounts: [] })).toThrow(FixtureError);
    expect(() => container().withFixtures('/no/such/fixtures.yaml')).toThrow(
      /cannot read fixtures/,
    );
    expect(() => container().withSeed(1.5)).toThrow(
      'badge-sim: withSeed: give a whole number from 0',
    );
    expect(() => container().withClock('scaled')).toThrow(
      "badge-sim: withClock('scaled', factor): give a positive factor, e.g. 60",
    );
    expect(() => container().withClock('real', 60)).toThrow("a factor is for 'scaled' time");
    expect(() => container().withAuthScheme('')).toThrow('withAuthScheme: give one word');
    expect(() => container().withBrandWord('a/b')).toThrow('withBrandWord: give letters');
    expect(() => container().withControlToken('')).toThrow('withControlToken: the token is empty');
    expect(() => container().withCancelEvents('bogus' as never)).toThrow(
      "withCancelEvents: give one of end-cancelled, end-normal, none (not 'bogus')",
    );
    expect(() => container().withGeneratedFixtures(3).withFixtures(DEFAULT_FIXTURES_FILE)).toThrow(
      'give either withFixtures or withGeneratedFixtures, not both',
    );
  });

  test('a stub that exits at start fails start() at once with its own message', async () => {
    const started = performance.now();
    await expect(
      new BadgeSimContainer(image).withEnvironment({ BADGE_SIM_CLOCK: 'sometimes' }).start(),
    ).rejects.toThrow(/exited[\s\S]*--clock must be one of: virtual, real, scaled/);
    // Not the 60 s startup timeout: the wait stops when the container exits.
    expect(performance.now() - started).toBeLessThan(30_000);
  });
});
