/**
 * examples/compose: one stub container and two fleet shards from the project's image, started
 * with docker-compose as its comment says. The shards split the devices, none is claimed
 * twice, and an alert to everyone is acknowledged by the badges of both shards.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, describe, expect, inject, test } from 'vitest';
import { StubControlClient } from '../../client/control-client.ts';
import { freePort } from '../support/http.ts';

const FILE = 'examples/compose/docker-compose.yml';
const PROJECT = `badgesim${process.pid}`;

/** Debian's docker-compose (1.29) or the compose plugin, whichever is here. */
function composeCommand(): string[] | undefined {
  if (spawnSync('docker-compose', ['version'], { stdio: 'ignore' }).status === 0)
    return ['docker-compose'];
  if (spawnSync('docker', ['compose', 'version'], { stdio: 'ignore' }).status === 0)
    return ['docker', 'compose'];
  return undefined;
}
const compose = composeCommand();
if (!compose && process.env.CI === 'true')
  throw new Error(
    'CI=true and no docker-compose: .ci/run installs it (apt-get install docker-compose)',
  );

describe.skipIf(!compose)('examples/compose: a stub and two fleet shards', () => {
  let env: NodeJS.ProcessEnv = process.env;
  const run = (...args: string[]) =>
    spawnSync(compose![0]!, [...compose!.slice(1), '-p', PROJECT, '-f', FILE, ...args], {
      encoding: 'utf8',
      env,
      timeout: 120_000,
    });
  afterAll(() => {
    run('down', '--timeout', '5');
  });

  test('the shards split the 40 devices, and an alert to everyone is acknowledged by the badges of both', {
    timeout: 240_000,
  }, async () => {
    const port = await freePort();
    env = {
      ...process.env,
      BADGE_SIM_IMAGE: inject('badgeSimImage'),
      BADGE_SIM_HOST_PORT: String(port),
    };
    const started = performance.now();
    const up = run('up', '-d');
    console.log(`compose up: ${Math.round(performance.now() - started)} ms`);
    expect(up.status, up.stderr).toBe(0);
    const url = `http://127.0.0.1:${port}`;
    const control = new StubControlClient(url);
    // The stub container may still be starting: its health, each try and all of them bounded
    // (docker's proxy takes a connection before the stub listens, and may hold it silent).
    const health = () =>
      fetch(`${url}/_stub/health`, { signal: AbortSignal.timeout(2_000) }).then(
        (r) => r.status,
        () => 0,
      );
    await expect.poll(health, { timeout: 60_000, interval: 500 }).toBe(200);
    const fixtures = await control.fixtures();
    const devices = fixtures.accounts.flatMap((a) => a.devices.map((d) => d.id));
    expect(devices).toHaveLength(40);
    for (const id of devices) await control.waitForDevice(id, { online: true, timeout: '60s' });

    const account = fixtures.accounts.find((a) => a.devices.length > 0)!;
    const answer = await fetch(`${url}/subscribers/${account.subscriber_id}/api/v1/alerts`, {
      method: 'POST',
      headers: {
        authorization: `ServiceApiKey ${account.api_keys[0]}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        notification: 'Compose drill',
        groups: account.groups.map((g) => g.name),
      }),
    });
    expect(answer.status).toBe(200);
    const { task_id: task } = (await answer.json()) as { task_id: string };
    const end = await control.waitForEvent({ type: 'end', task, timeout: '30s' });
    expect(end.event.content).toMatchObject({ type: 'end', status: 'normal' });

    // Both shards' badges acknowledged (a shard is a contiguous half of the devices), and
    // none was refused another's device.
    const users = new Map(fixtures.accounts.flatMap((a) => a.devices.map((d) => [d.user, d.id])));
    const events = await fetch(
      `${url}/subscribers/${account.subscriber_id}/api/v1/events?limit=100`,
      { headers: { authorization: `ServiceApiKey ${account.api_keys[0]}` } },
    ).then((r) => r.json() as Promise<{ content: { type: string; device?: string } }[]>);
    const ackers = events
      .filter((e) => e.content.type === 'acknowledged')
      .map((e) => devices.indexOf(users.get(e.content.device!)!));
    expect(ackers.some((i) => i >= 0 && i < 20)).toBe(true);
    expect(ackers.some((i) => i >= 20)).toBe(true);
    for (const service of ['fleet-1', 'fleet-2']) {
      const logs = run('logs', '--no-color', service).stdout;
      expect(logs, service).not.toContain('device_claimed');
    }
  });
});
