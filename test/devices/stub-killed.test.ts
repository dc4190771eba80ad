/**
 * A fleet whose stub process is killed (SIGKILL) while the fleet is talking to it: right after
 * an alert was posted, with the fleet's event loop busy, its control call (the settle that ends
 * `waitUntilConnected`) meets a dead stub. The badges reconnect when the stub comes back on the
 * same port; until then the fleet waits (decision F11), and so does `badge-sim devices`, for
 * as long as its bounds say (F6).
 */
import { once } from 'node:events';
import { createConnection, createServer, type Socket } from 'node:net';
import { describe, expect, test } from 'vitest';
import { FleetError, startFleet } from '../../simulator/fleet.ts';
import { runCli, startCli } from '../support/cli.ts';
import { freePort, RIVERSIDE, request } from '../support/http.ts';

/** Holds the event loop, as a loaded machine does: nothing of this process runs meanwhile. */
function busyFor(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // spin
  }
}

/** A stub process to be started, killed and started again on one port. */
async function stubOnPort() {
  const port = await freePort();
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    start: () =>
      startCli(
        ['stub', '--port', String(port), '--quiet', '--clock', 'virtual'],
        'Press Ctrl+C to stop.',
      ),
  };
}

/** What became of a wait so far: still waiting, connected, or the error it ended with. */
function outcomeOf(wait: Promise<void>) {
  let outcome: 'waiting' | 'connected' | Error = 'waiting';
  const settled = wait.then(
    () => {
      outcome = 'connected';
    },
    (error: Error) => {
      outcome = error;
    },
  );
  return { now: () => outcome, settled };
}

/**
 * The stub killed, every badge trying again: still a wait a while later; back on the same
 * port, the wait ends connected.
 */
async function killedThenBack(
  stub: Awaited<ReturnType<typeof stubOnPort>>,
  first: Awaited<ReturnType<typeof startCli>>,
  fleet: { summary(): { reconnecting: number } },
  wait: ReturnType<typeof outcomeOf>,
) {
  first.child.kill('SIGKILL');
  await once(first.child, 'exit');
  await expect.poll(() => fleet.summary().reconnecting, { timeout: 10_000 }).toBe(3);
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(wait.now()).toBe('waiting');
  const second = await stub.start();
  await wait.settled;
  expect(wait.now()).toBe('connected');
  return second;
}

describe('a stub killed while the fleet talks to it', () => {
  test('waitUntilConnected outlives it: killed just after a post, the settle meets a dead stub, and the wait goes on until the badges are back on the restarted stub', async () => {
    const stub = await stubOnPort();
    const first = await stub.start();
    await using fleet = await startFleet({
      stub: stub.url,
      group: 'Nurses',
      reconnect: { initialMs: 10, maxMs: 100 },
    });
    await fleet.waitUntilConnected();

    await request(`${stub.url}/subscribers/${RIVERSIDE.id}/api/v1/alerts`, {
      method: 'POST',
      headers: { authorization: `ServiceApiKey ${RIVERSIDE.key}` },
      body: { notification: 'Spill in ward 3', groups: ['Nurses'] },
    });
    // Every badge is online, so the wait goes straight to its settle: a control call to the
    // stub, which cannot have been answered before this turn of the event loop ends.
    const wait = outcomeOf(fleet.waitUntilConnected(3, 30_000));
    busyFor(50);
    await using _second = await killedThenBack(stub, first, fleet, wait);
    expect(fleet.summary()).toMatchObject({ online: 3, reconnecting: 0, reconnects: 3 });
  });

  test('the same in worker threads: a thread whose settle meets a dead stub tells the main thread, which waits for the badges', async () => {
    const stub = await stubOnPort();
    const first = await stub.start();
    await using fleet = await startFleet({
      stub: stub.url,
      group: 'Nurses',
      workers: 2,
      reconnect: { initialMs: 10, maxMs: 100 },
    });
    await fleet.waitUntilConnected();
    // The threads are asked to settle once this turn ends: the stub is dead by then.
    const wait = outcomeOf(fleet.waitUntilConnected(3, 30_000));
    await using _second = await killedThenBack(stub, first, fleet, wait);
    expect(fleet.summary()).toMatchObject({ online: 3, reconnects: 3 });
  });

  test('a stub that never comes back: the wait ends at its bound with what happened', async () => {
    const { url, start } = await stubOnPort();
    const stub = await start();
    await using fleet = await startFleet({
      stub: url,
      group: 'Nurses',
      reconnect: { initialMs: 10, maxMs: 100 },
    });
    await fleet.waitUntilConnected();
    const waiting = fleet.waitUntilConnected(3, 1_500);
    stub.child.kill('SIGKILL');
    const error = await waiting.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FleetError);
    expect((error as Error).message).toMatch(
      new RegExp(
        `^badge-sim: 0 of 3 badges connected after 1500 ms; the stub at ${url.replace(/\./g, '\\.')} is unreachable \\((ECONNREFUSED|ECONNRESET|UND_ERR_SOCKET)[^)]*\\), 3 badges reconnecting$`,
      ),
    );
  });
});

/**
 * A TCP proxy to the stub at `port` that holds the first request starting with `held` (the
 * bytes are kept, never forwarded): the moment a control call is in flight, made to last.
 * `release()` resets that connection (ECONNRESET for its client), as a killed stub does.
 */
async function holdingProxy(port: number, held: string) {
  let heldSocket: Socket | undefined;
  let sawIt!: () => void;
  const arrived = new Promise<void>((resolve) => {
    sawIt = resolve;
  });
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    sockets.add(client);
    const upstream = createConnection({ host: '127.0.0.1', port });
    sockets.add(upstream);
    let holding = false;
    client.on('data', (chunk) => {
      if (!holding && !heldSocket && chunk.toString('latin1').startsWith(held)) {
        holding = true;
        heldSocket = client;
        sawIt();
      }
      if (!holding) upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (!holding) client.write(chunk);
    });
    const end = () => {
      if (!holding) client.destroy();
      upstream.destroy();
    };
    upstream.on('close', end);
    upstream.on('error', end);
    client.on('close', () => upstream.destroy());
    client.on('error', () => upstream.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port: proxyPort } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${proxyPort}`,
    arrived,
    release: () => heldSocket?.resetAndDestroy(),
    async [Symbol.asyncDispose]() {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

describe('badge-sim devices and a stub killed under it', () => {
  test('killed just after a post while the fleet settles its start: the command waits, says so, and runs on once the stub is back on its port', async () => {
    const stub = await stubOnPort();
    const first = await stub.start();
    await using proxy = await holdingProxy(stub.port, 'POST /_stub/settle');
    await using devices = await startCli(
      ['devices', '--stub', proxy.url, '--group', 'Nurses', '--ack-after', '12s'],
      '',
    );
    // The fleet's badges are online and its settle is on the way: an alert goes out, the stub
    // is killed, and the settle's connection is reset.
    await proxy.arrived;
    await request(`${stub.url}/subscribers/${RIVERSIDE.id}/api/v1/alerts`, {
      method: 'POST',
      headers: { authorization: `ServiceApiKey ${RIVERSIDE.key}` },
      body: { notification: 'Spill in ward 3', groups: ['Nurses'] },
    });
    first.child.kill('SIGKILL');
    await once(first.child, 'exit');
    proxy.release();

    await expect
      .poll(devices.output, { timeout: 10_000 })
      .toMatch(/lost the stub, reconnecting: 0 of 3 online · 3 reconnecting \(stub unreachable/);
    expect(devices.child.exitCode).toBeNull();
    expect(devices.errors()).not.toContain('unreachable (ECONNRESET)');

    await using _second = await stub.start();
    await expect
      .poll(devices.output, { timeout: 30_000 })
      .toContain(`3 badges online against ${proxy.url}`);
    await expect
      .poll(devices.output)
      .toMatch(/back online: 3 of 3 online \(the stub was unreachable/);
    devices.child.kill('SIGINT');
    const [code] = await once(devices.child, 'exit');
    expect(code).toBe(0);
    expect(devices.output()).toContain('connections    3 of 3 online; 3 reconnects');
  });

  test('a stub that never comes back: --give-up-after bounds the wait, then the command stops with exit 1 and its summary', async () => {
    const { url, start } = await stubOnPort();
    const stub = await start();
    await using devices = await startCli(
      ['devices', '--stub', url, '--group', 'Nurses', '--give-up-after', '2s'],
      'Press Ctrl+C to stop.',
    );
    stub.child.kill('SIGKILL');
    const [code] = await once(devices.child, 'exit');
    expect(code).toBe(1);
    expect(devices.output()).toMatch(/lost the stub, reconnecting: 0 of 3 online/);
    expect(devices.output()).toMatch(
      /the stub has been unreachable for 2(\.\d+)?s \(--give-up-after 2s\): stopping 3 badges after/,
    );
    expect(devices.output()).toMatch(/connections {4}0 of 3 online · 3 reconnecting/);

    const bad = runCli(['devices', '--stub', 'http://127.0.0.1:9', '--give-up-after', 'soon']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain(
      "--give-up-after 'soon' is not 'never' or a duration such as 10m.",
    );
  });
});
