/**
 * `badge-sim stub --tls` as a team with existing client code uses it: the stub in one process,
 * and in another, a client that knows nothing of badge-sim: Node's own `fetch` over https://,
 * trusting the CA file the stub printed through NODE_EXTRA_CA_CERTS, with nothing changed but
 * the host. Also: without the CA it is refused, plain http:// is told to use https, bad
 * certificate files are one line and exit 2, and badge-sim's own commands follow
 * NODE_EXTRA_CA_CERTS.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { prepareTls } from '../../server-stub/tls.ts';
import { runCli, runCliAsync, startCli } from '../support/cli.ts';

/** Starts `badge-sim stub` with TLS and reads its URL and CA file from the banner. */
async function startTlsStub(args: string[] = ['--tls']) {
  const cli = await startCli(
    ['stub', '--port', '0', '--quiet', '--clock', 'virtual', ...args],
    'Press Ctrl+C to stop.',
  );
  const url = /control API\s+(https:\/\/\S+)\/_stub/.exec(cli.output())?.[1];
  const caFile = /NODE_EXTRA_CA_CERTS=(\S+)/.exec(cli.output())?.[1];
  if (!url || !caFile) throw new Error(`no https URL or CA file in:\n${cli.output()}`);
  return Object.assign(cli, { url, caFile });
}

/**
 * An outside client: plain Node, its own fetch, no badge-sim code, the stub's URL as its
 * host. It prints one JSON line per call: [what, status, body].
 */
const OUTSIDE_CLIENT = `
const host = process.env.STUB_URL;
const ua = { 'user-agent': 'team-client/1.0' };
const calls = [];
async function call(what, url, init = {}) {
  try {
    const response = await fetch(host + url, { ...init, headers: { ...ua, ...init.headers } });
    const text = await response.text();
    let body = text;
    try { body = JSON.parse(text); } catch {}
    calls.push([what, response.status, body]);
    return body;
  } catch (error) {
    calls.push([what, 'failed', error.cause?.code ?? error.message]);
    return undefined;
  }
}
const tokens = await call('token', '/oauth2/token', {
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams({
    grant_type: 'refresh_token',
    client_id: 'badge-sim-pro-sdk',
    refresh_token: 'demo-refresh-token-riverside-pro-0001',
  }).toString(),
});
const bearer = { authorization: 'Bearer ' + tokens?.access_token };
await call('validate', '/oauth2/validate', { headers: bearer });
await call('trigger', '/ibot/workflow/wf_http_page_security?subscriber_id=100001&user_id=350000000000005', {
  method: 'POST',
  headers: { ...bearer, 'content-type': 'application/json' },
  body: JSON.stringify({ action: 'invoke', action_args: { room: '12' } }),
});
await call('device', '/service/api/v1/device/350000000000005?subscriber_id=100001', { headers: bearer });
const key = { authorization: 'ServiceApiKey demo-api-key-riverside-0001' };
await call('alert', '/subscribers/100001/api/v1/alerts', {
  method: 'POST',
  headers: { ...key, 'content-type': 'application/json' },
  body: JSON.stringify({ notification: 'Over https', groups: ['Security'] }),
});
await call('events', '/subscribers/100001/api/v1/events', { headers: key });
for (const c of calls) console.log(JSON.stringify(c));
`;

function runOutsideClient(env: Record<string, string>) {
  const file = join(mkdtempSync(join(tmpdir(), 'badge-sim-client-')), 'client.mjs');
  writeFileSync(file, OUTSIDE_CLIENT);
  const { NODE_EXTRA_CA_CERTS: _inherited, ...parentEnv } = process.env;
  const run = spawnSync(process.execPath, [file], {
    encoding: 'utf8',
    timeout: 30_000,
    env: { ...parentEnv, ...env },
  });
  expect(run.status, run.stderr).toBe(0);
  return run.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as [string, number | 'failed', any]);
}

describe('badge-sim stub --tls', () => {
  // One stub for these four: each only reads it or adds alerts and badges of its own, and a
  // TLS stub's start (its CA and certificate made) is the slowest part of each. Started by the
  // first test that asks (startCli waits with expect.poll, which only a test may call).
  let started: ReturnType<typeof startTlsStub> | undefined;
  const sharedStub = () => {
    started ??= startTlsStub();
    return started;
  };
  afterAll(async () => (await started)?.[Symbol.asyncDispose]());

  test('a client in another process trusting the printed CA (NODE_EXTRA_CA_CERTS) uses Node’s fetch over https:// for token, trigger, device info and the service API', async () => {
    const stub = await sharedStub();
    expect(stub.output()).toMatch(/service API\s+https:\/\/127\.0\.0\.1:\d+\/subscribers/);
    expect(stub.output()).toContain(`REQUESTS_CA_BUNDLE=${stub.caFile}`);
    expect(stub.output()).toContain(`curl --cacert ${stub.caFile}`);
    expect(readFileSync(stub.caFile, 'utf8')).toMatch(/^-----BEGIN CERTIFICATE-----/);
    expect(stub.output()).not.toMatch(/PRIVATE KEY/);

    const calls = runOutsideClient({ STUB_URL: stub.url, NODE_EXTRA_CA_CERTS: stub.caFile });
    const byName = new Map(calls.map(([what, status, body]) => [what, { status, body }]));
    expect(byName.get('token')).toMatchObject({
      status: 200,
      body: { token_type: 'Bearer', access_token: expect.any(String) },
    });
    expect(byName.get('validate')).toMatchObject({
      status: 200,
      body: { userid: expect.any(String), client_id: 'badge-sim-pro-sdk', expires_in: 7200 },
    });
    expect(byName.get('trigger')).toMatchObject({ status: 200 });
    expect(byName.get('device')).toMatchObject({
      status: 200,
      body: { device_id: '350000000000005' },
    });
    expect(byName.get('alert')).toMatchObject({
      status: 200,
      body: { task_id: expect.any(String) },
    });
    expect(byName.get('events')).toMatchObject({ status: 200 });
    expect((byName.get('events')!.body as any[]).map((e) => e.content.type)).toContain('start');
    expect(calls.every(([, status]) => status === 200)).toBe(true);
  });

  test('a client that does not trust the CA is refused with a TLS error; plain http:// gets 400 https_required', async () => {
    const stub = await sharedStub();
    const untrusted = runOutsideClient({ STUB_URL: stub.url });
    expect(untrusted[0]).toEqual(['token', 'failed', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE']);

    const plain = runOutsideClient({
      STUB_URL: stub.url.replace('https:', 'http:'),
      NODE_EXTRA_CA_CERTS: stub.caFile,
    });
    expect(plain[0]).toEqual([
      'token',
      400,
      expect.objectContaining({ code: 'https_required', field: 'url' }),
    ]);
  });

  test('badge-sim run --stub https://… runs a scenario against it with NODE_EXTRA_CA_CERTS', async () => {
    const stub = await sharedStub();
    const run = runCli(
      ['run', '--stub', stub.url, 'scenarios/catalogue/workflow-spoken-on-badge.scenario.yaml'],
      { NODE_EXTRA_CA_CERTS: stub.caFile },
    );
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('✓ A workflow trigger is spoken on the badge');
  });

  test('badge-sim devices, env and analytics reach it with NODE_EXTRA_CA_CERTS; without it they, and run, say what to set', async () => {
    const stub = await sharedStub();
    const trusted = { NODE_EXTRA_CA_CERTS: stub.caFile };
    // Two at a time: a loaded machine runs more no faster.
    const [devices, env] = await Promise.all([
      runCliAsync(
        ['devices', '--stub', stub.url, '--count', '2', '--for', '2s', '--quiet'],
        trusted,
      ),
      runCliAsync(['env', '--stub', stub.url], trusted),
    ]);
    expect(devices.status, devices.stderr).toBe(0);
    expect(devices.stdout).toMatch(/2 online/);
    expect(env.status, env.stderr).toBe(0);
    expect(env.stdout).toContain(`${stub.url}/qa`);
    const untrustedArgs = [
      ['devices', '--stub', stub.url, '--for', '1s', '--wait', '0'],
      ['env', '--stub', stub.url],
      ['analytics', '--base-url', stub.url, '-s', '100001', '--api-key', 'k'],
      ['run', '--stub', stub.url],
    ];
    const analytics = await runCliAsync(['analytics', '--base-url', stub.url, '-s', '100001'], {
      ...trusted,
      BADGE_SIM_API_KEY: 'demo-api-key-riverside-0001',
    });
    expect(analytics.status, analytics.stderr).toBe(0);
    const refused = [];
    for (let i = 0; i < untrustedArgs.length; i += 2) {
      const pair = untrustedArgs.slice(i, i + 2);
      refused.push(
        ...(await Promise.all(
          pair.map((args) => runCliAsync(args, { NODE_EXTRA_CA_CERTS: undefined })),
        )),
      );
    }

    for (const [i, args] of untrustedArgs.entries()) {
      const run = refused[i]!;
      expect(run.status, `${args[0]}: ${run.stderr}`).toBe(2);
      expect(run.stderr).toMatch(
        /certificate is not trusted \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\): start this command with NODE_EXTRA_CA_CERTS=/,
      );
    }
  });
});

describe('badge-sim stub with given certificate files', () => {
  let made: ReturnType<typeof makeFiles> | undefined;
  /**
   * Files of a certificate, its key and its CA, as a team's own tooling would make them: made
   * once for the file (two RSA keys), read and never changed by the cases.
   */
  function files() {
    made ??= makeFiles();
    return made;
  }

  function makeFiles() {
    const dir = mkdtempSync(join(tmpdir(), 'badge-sim-certs-'));
    const issued = prepareTls({}, '127.0.0.1');
    issued.dispose();
    const other = prepareTls({}, '127.0.0.1');
    other.dispose();
    const write = (name: string, text: string) => {
      writeFileSync(join(dir, name), text);
      return join(dir, name);
    };
    return {
      cert: write('cert.pem', issued.cert),
      key: write('key.pem', issued.key),
      ca: write('ca.pem', issued.info.caPem!),
      otherKey: write('other-key.pem', other.key),
    };
  }

  test('--tls-cert, --tls-key and --tls-ca are served, and the given CA file is printed', async () => {
    const f = files();
    await using stub = await startTlsStub([
      '--tls-cert',
      f.cert,
      '--tls-key',
      f.key,
      '--tls-ca',
      f.ca,
    ]);
    expect(stub.caFile).toBe(f.ca);
    const calls = runOutsideClient({ STUB_URL: stub.url, NODE_EXTRA_CA_CERTS: f.ca });
    expect(calls.every(([, status]) => status === 200)).toBe(true);
  });

  test('--tls-dir: a folder that cannot be made is one line and exit 2, never a hang; a new folder keeps the CA, and the banner says so', async () => {
    // Under /proc, mkdir answers ENOENT below a folder that exists: Node's recursive mkdir
    // retried that for ever.
    const run = runCli(['stub', '--port', '0', '--tls-dir', '/proc/badge-sim-none/ca']);
    expect(run.status).toBe(2);
    expect(run.stderr.trim()).toMatch(
      /^badge-sim: --tls-dir \(BADGE_SIM_TLS_DIR\): cannot keep the CA in \/proc\/badge-sim-none\/ca \(ENOENT\): give a folder this user can write\.$/,
    );
    const dir = join(mkdtempSync(join(tmpdir(), 'badge-sim-kept-')), 'a', 'b');
    {
      await using first = await startTlsStub(['--tls-dir', dir]);
      expect(first.caFile).toBe(join(dir, 'ca.pem'));
      expect(first.output()).toContain('a CA made now and kept in --tls-dir');
    }
    await using second = await startTlsStub(['--tls-dir', dir]);
    expect(second.output()).toContain('the CA kept in --tls-dir');
  });

  test.each([
    [
      'a --tls-cert path that does not exist',
      (f: ReturnType<typeof files>) => ['--tls-cert', `${f.cert}.missing`, '--tls-key', f.key],
      /^badge-sim: --tls-cert \(BADGE_SIM_TLS_CERT\) \S+cert\.pem\.missing: cannot read it \(no such file\): give the path of a PEM file\.$/,
    ],
    [
      'a --tls-key that is not the certificate’s',
      (f: ReturnType<typeof files>) => ['--tls-cert', f.cert, '--tls-key', f.otherKey],
      /^badge-sim: --tls-key \(BADGE_SIM_TLS_KEY\) \S+other-key\.pem: is not the key of the certificate \(subject CN=localhost, O=badge-sim stub\): give the key that belongs to it\.$/,
    ],
    [
      'a --tls-cert that never ends (/dev/zero)',
      () => ['--tls-cert', '/dev/zero', '--tls-key', '/dev/zero'],
      /^badge-sim: --tls-cert \(BADGE_SIM_TLS_CERT\) \/dev\/zero: is over 1024 KiB, not a PEM file: give the path of a PEM file\.$/,
    ],
    [
      'a --tls-cert without --tls-key',
      (f: ReturnType<typeof files>) => ['--tls-cert', f.cert],
      /^badge-sim: --tls-key \(BADGE_SIM_TLS_KEY\): give both the certificate and its key\.$/,
    ],
    [
      'a --tls-key given as the certificate',
      (f: ReturnType<typeof files>) => ['--tls-cert', f.key, '--tls-key', f.key],
      /^badge-sim: --tls-cert \(BADGE_SIM_TLS_CERT\) \S+key\.pem: is not a PEM certificate/,
    ],
  ])('%s is one line saying what to fix, exit 2, no key material', async (_case, args, message) => {
    const run = await runCliAsync(['stub', '--port', '0', ...args(files())]);
    expect(run.status).toBe(2);
    expect(run.stderr.trim()).toMatch(message);
    expect(run.stderr + run.stdout).not.toMatch(/PRIVATE KEY|at \S+\.ts:\d+/);
  });
});
