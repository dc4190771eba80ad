/**
 * HTTPS: `startStub({ tls })` on a real port. The certificate it issues is for the stub's
 * names and checks out against the CA it hands out; the service API, the trigger interface,
 * the control API and the badges' WebSocket all run over it; plain HTTP to the port is told
 * to use https; a client that does not trust the CA is refused; given certificates are
 * checked before anything listens; a CA kept in a folder is reused. (The CLI and a client in
 * another process with NODE_EXTRA_CA_CERTS: test/cli/stub-tls.test.ts.)
 */
import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { connect as netConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import forge from 'node-forge';
import { describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import { StubControlClient } from '../../client/control-client.ts';
import { ServiceClient } from '../../client/service-client.ts';
import { TriggerClient } from '../../client/trigger-client.ts';
import { fetchTrusting } from '../../client/trust.ts';
import { startStub } from '../../server-stub/start-stub.ts';
import { prepareTls, TlsSetupError } from '../../server-stub/tls.ts';
import { startFleet } from '../../simulator/fleet.ts';
import { RIVERSIDE } from '../support/http.ts';

const ROSA = '350000000000005';

/** Whether a TLS client trusting `ca` (or only Node's roots) accepts the stub as `servername`. */
function handshake(port: number, host: string, servername: string | undefined, ca?: string) {
  return new Promise<{ authorized: boolean; error?: string; peer?: X509Certificate }>((resolve) => {
    const socket = tlsConnect({ host, port, servername, ca, rejectUnauthorized: false }, () => {
      resolve({
        authorized: socket.authorized,
        error: socket.authorizationError ? String(socket.authorizationError) : undefined,
        peer: socket.getPeerX509Certificate(),
      });
      socket.end();
    });
    socket.on('error', (error) => resolve({ authorized: false, error: error.message }));
  });
}

describe('startStub({ tls: true })', () => {
  test('issues a certificate for localhost, 127.0.0.1 and ::1 from the CA it hands out (file and PEM), and serves https:// and wss:// URLs', async () => {
    await using stub = await startStub({ tls: true });
    expect(stub.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(stub.controlUrl).toBe(`${stub.url}/_stub`);
    expect(stub.devicesUrl).toMatch(/^wss:\/\/127\.0\.0\.1:\d+\/_stub\/devices\/connect$/);
    const tls = stub.tls!;
    expect(tls.source).toBe('new-ca');
    expect(readFileSync(tls.caFile!, 'utf8')).toBe(tls.caPem);
    expect(tls.names).toEqual(expect.arrayContaining(['localhost', '127.0.0.1', '::1']));
    const ca = new X509Certificate(tls.caPem!);
    expect(ca.ca).toBe(true);

    for (const [host, servername] of [
      ['127.0.0.1', undefined],
      ['localhost', 'localhost'],
    ] as const) {
      const trusted = await handshake(stub.port, host, servername, tls.caPem);
      expect(trusted, `${host} with the CA`).toMatchObject({ authorized: true });
      const leaf = trusted.peer!;
      expect(leaf.checkIssued(ca) && leaf.verify(ca.publicKey)).toBe(true);
      expect(leaf.subjectAltName).toContain('IP Address:127.0.0.1');
      expect(leaf.subjectAltName).toContain('IP Address:0:0:0:0:0:0:0:1');
      expect(leaf.subjectAltName).toContain('DNS:localhost');
      expect(leaf.publicKey.asymmetricKeyDetails).toMatchObject({ modulusLength: 2048 });
      expect(Date.parse(leaf.validTo) - Date.now()).toBeLessThanOrEqual(397 * 86_400_000);
      expect(Date.parse(leaf.validFrom)).toBeLessThan(Date.now());
    }
    // The name that is not on the certificate is refused even with the CA.
    const wrongName = await handshake(stub.port, '127.0.0.1', 'example.org', tls.caPem);
    expect(wrongName.error ?? '').toMatch(/altnames|ERR_TLS_CERT_ALTNAME_INVALID/i);
  });

  test('the service API, the trigger interface and the control API answer over https:// with badge-sim clients given the CA', async () => {
    await using stub = await startStub({ tls: true });
    const ca = stub.tls!.caPem!;
    const control = new StubControlClient(stub.url, { ca });
    expect(await control.health()).toMatchObject({ status: 'ok' });
    const service = new ServiceClient({
      baseUrl: stub.url,
      subscriberId: RIVERSIDE.id,
      apiKey: RIVERSIDE.key,
      ca,
    });
    const { task_id } = await service.alert({ notification: 'Over TLS', groups: ['Security'] });
    expect((await service.events()).map((e) => e.task.id)).toEqual([task_id]);
    const refresh = await control.issueRefreshToken(RIVERSIDE.id);
    const trigger = new TriggerClient({
      apiHost: stub.url,
      authUrl: stub.url,
      clientId: 'badge-sim-pro-sdk',
      refreshToken: refresh,
      subscriberId: RIVERSIDE.id,
      ca,
    });
    expect(await trigger.deviceInfo(ROSA)).toMatchObject({ device_id: ROSA });
  });

  test('badges connect over wss:// and hear an alert: embedded (the CA from the handle) and from another URL with `ca`', async () => {
    await using stub = await startStub({ tls: true });
    const ca = stub.tls!.caPem!;
    await using embedded = await startFleet({ stub, devices: [ROSA] });
    await embedded.waitUntilConnected(1, 10_000);
    const service = new ServiceClient({
      baseUrl: stub.url,
      subscriberId: RIVERSIDE.id,
      apiKey: RIVERSIDE.key,
      ca,
    });
    await service.alert({ notification: 'Badge over wss', groups: ['Security'] });
    await embedded.settled();
    expect(embedded.transcript(ROSA).map((e) => e.text)).toEqual(['Badge over wss']);
    await embedded.close();
    const control = new StubControlClient(stub.url, { ca });
    await control.reset();

    // As `badge-sim devices --stub https://…` does in its own process, with the CA given.
    await using external = await startFleet({ stub: stub.url, devices: [ROSA], ca });
    await external.waitUntilConnected(1, 10_000);
    await service.alert({ notification: 'Second over wss', groups: ['Security'] });
    await external.settled();
    expect(external.transcript(ROSA).map((e) => e.text)).toEqual(['Second over wss']);
    const devices = await control.devices();
    expect(devices.find((d) => d.device_id === ROSA)).toMatchObject({ online: true });
  });

  test('a client that does not trust the CA is refused by its TLS check, fetch and WebSocket alike', async () => {
    await using stub = await startStub({ tls: true });
    const error = await fetch(`${stub.url}/_stub/health`).catch((e: unknown) => e);
    expect((error as { cause?: { code?: string } }).cause?.code).toBe(
      'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    );
    const ws = new WebSocket(stub.devicesUrl);
    const wsError = await new Promise<NodeJS.ErrnoException>((resolve) => ws.on('error', resolve));
    expect(wsError.code).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
    // A fleet says what to do.
    await expect(startFleet({ stub: stub.url, devices: [ROSA] })).rejects.toThrow(
      /not trusted \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\): start this command with NODE_EXTRA_CA_CERTS=/,
    );
  });

  test('plain http:// and ws:// to the TLS port get 400 https_required naming url, in the stub error shape', async () => {
    await using stub = await startStub({ tls: true });
    const plain = stub.url.replace('https:', 'http:');
    const response = await fetch(`${plain}/subscribers/100001/api/v1/events`, {
      headers: { authorization: `ServiceApiKey ${RIVERSIDE.key}` },
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      code: 'https_required',
      message: expect.stringContaining('use https://'),
      field: 'url',
    });
    const ws = new WebSocket(stub.devicesUrl.replace('wss:', 'ws:'));
    const wsError = await new Promise<Error>((resolve) => ws.on('error', resolve));
    expect(wsError.message).toContain('Unexpected server response: 400');
    // The port still serves TLS afterwards.
    const health = await fetchTrusting(stub.tls!.caPem)(`${stub.url}/_stub/health`);
    expect(health.status).toBe(200);
  });

  test('a client that connects to the TLS port and sends nothing is dropped after the headers deadline', async () => {
    await using stub = await startStub({ tls: true, timeouts: { headersMs: 300 } });
    const socket = netConnect(stub.port, '127.0.0.1');
    const started = performance.now();
    await new Promise((resolve) => socket.once('close', resolve));
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  test('the temporary CA file is removed when the stub stops; its key was never written', async () => {
    const stub = await startStub({ tls: true });
    const file = stub.tls!.caFile!;
    expect(existsSync(file)).toBe(true);
    expect(existsSync(join(file, '..', 'ca-key.pem'))).toBe(false);
    await stub.close();
    expect(existsSync(file)).toBe(false);
  });
});

/** A self-signed certificate for 127.0.0.1, valid over the given span, and its key. */
function selfSigned(from: Date, to: Date) {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(
    publicKey.export({ type: 'spki', format: 'pem' }) as string,
  );
  cert.serialNumber = '01';
  cert.validity.notBefore = from;
  cert.validity.notAfter = to;
  cert.setSubject([{ name: 'commonName', value: 'team-made' }]);
  cert.setIssuer([{ name: 'commonName', value: 'team-made' }]);
  cert.setExtensions([{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }]);
  const key = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  cert.sign(forge.pki.privateKeyFromPem(key), forge.md.sha256.create());
  return { cert: forge.pki.certificateToPem(cert), key };
}

describe('a CA kept in a folder (tls.dir)', () => {
  test('is made once and reused on the next start: a client that trusted it keeps trusting the new certificate', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'badge-sim-tls-test-')), 'kept');
    let firstCa: string;
    {
      await using first = await startStub({ tls: { dir } });
      expect(first.tls).toMatchObject({ source: 'new-ca', caFile: join(dir, 'ca.pem') });
      firstCa = first.tls!.caPem!;
    }
    expect(existsSync(join(dir, 'ca.pem'))).toBe(true);
    expect(statSync(join(dir, 'ca-key.pem')).mode & 0o777).toBe(0o600);
    await using second = await startStub({ tls: { dir } });
    expect(second.tls).toMatchObject({ source: 'kept-ca', caPem: firstCa });
    const health = await fetchTrusting(firstCa)(`${second.url}/_stub/health`);
    expect(health.status).toBe(200);
  });

  test('a folder whose key is not its CA’s is refused, saying to empty it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'badge-sim-tls-test-'));
    const other = mkdtempSync(join(tmpdir(), 'badge-sim-tls-test-'));
    prepareTls({ dir }, '127.0.0.1').dispose();
    prepareTls({ dir: other }, '127.0.0.1').dispose();
    copyFileSync(join(other, 'ca-key.pem'), join(dir, 'ca-key.pem'));
    expect(() => prepareTls({ dir }, '127.0.0.1')).toThrow(
      /ca-key\.pem is not the key of ca\.pem: empty the folder for a new CA/,
    );
  });

  test('a kept CA that expires within 397 days is refused: it could not issue a full certificate', () => {
    const dir = mkdtempSync(join(tmpdir(), 'badge-sim-tls-test-'));
    const ending = selfSigned(
      new Date(Date.now() - 60_000),
      new Date(Date.now() + 30 * 86_400_000),
    );
    writeFileSync(join(dir, 'ca.pem'), ending.cert);
    writeFileSync(join(dir, 'ca-key.pem'), ending.key);
    expect(() => prepareTls({ dir }, '127.0.0.1')).toThrow(
      /the CA expires on .*, too soon to issue from: empty the folder for a new CA/,
    );
  });

  test('a folder with only half a CA is refused naming what is missing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'badge-sim-tls-test-'));
    const issued = prepareTls({ dir }, '127.0.0.1');
    issued.dispose();
    const half = mkdtempSync(join(tmpdir(), 'badge-sim-tls-test-'));
    copyFileSync(join(dir, 'ca.pem'), join(half, 'ca.pem'));
    expect(() => prepareTls({ dir: half }, '127.0.0.1')).toThrow(/ca\.pem but no ca-key\.pem/);
  });
});

describe('given certificate and key (tls.cert, tls.key, tls.ca)', () => {
  /** A certificate, its key and its CA, issued the way the stub issues its own. */
  function issued(names: string[] = []) {
    const prepared = prepareTls({ names }, '127.0.0.1');
    prepared.dispose();
    return { cert: prepared.cert, key: prepared.key, ca: prepared.info.caPem! };
  }

  test('are served, and the handle hands out the given CA', async () => {
    const given = issued(['stub.test']);
    await using stub = await startStub({ tls: given });
    expect(stub.tls).toMatchObject({ source: 'given', caPem: given.ca });
    expect(stub.tls!.names).toContain('stub.test');
    expect(readFileSync(stub.tls!.caFile!, 'utf8')).toBe(given.ca);
    const health = await fetchTrusting(given.ca)(`${stub.url}/_stub/health`);
    expect(health.status).toBe(200);
  });

  test('a self-signed certificate is its own CA: the handle hands it out and a client trusting it connects', async () => {
    const given = selfSigned(new Date(Date.now() - 60_000), new Date(Date.now() + 86_400_000));
    await using stub = await startStub({ tls: given });
    expect(stub.tls).toMatchObject({ source: 'given', names: ['127.0.0.1'] });
    expect(new X509Certificate(stub.tls!.caPem!).fingerprint256).toBe(
      new X509Certificate(given.cert).fingerprint256,
    );
    const health = await fetchTrusting(given.cert)(`${stub.url}/_stub/health`);
    expect(health.status).toBe(200);
  });

  test('a certificate that is not valid now is refused: clients would refuse it', async () => {
    const expired = selfSigned(new Date('2020-01-01T00:00:00Z'), new Date('2021-01-01T00:00:00Z'));
    const error = await startStub({ tls: expired }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TlsSetupError);
    expect(error).toMatchObject({
      field: 'cert',
      message: expect.stringMatching(/^is valid from .*2020.* to .*2021.*, not now/),
    });
  });

  test.each([
    [
      'a key that is not the certificate’s',
      'key',
      () => ({ ...issued(), key: issued().key }),
      /is not the key of the certificate/,
    ],
    [
      'a CA that did not issue it',
      'ca',
      () => ({ ...issued(), ca: issued().ca }),
      /did not issue the certificate/,
    ],
    [
      'a certificate that is not PEM',
      'cert',
      () => ({ ...issued(), cert: 'hello' }),
      /is not a PEM certificate/,
    ],
    [
      'a key that is not PEM',
      'key',
      () => ({ ...issued(), key: 'hello' }),
      /is not a PEM private key/,
    ],
    [
      'a name that is no host name or address',
      'names',
      () => ({ names: ['not a name'] }),
      /'not a name' is neither a host name nor an IP address/,
    ],
    ['a certificate without its key', 'key', () => ({ cert: issued().cert }), /give both/],
  ])(
    '%s is a TlsSetupError naming %s, before anything listens; the message holds no key',
    async (_case, field, make, message) => {
      const given = make();
      const error = await startStub({ tls: given }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TlsSetupError);
      expect(error).toMatchObject({ field, message: expect.stringMatching(message) });
      expect((error as Error).message).not.toContain('PRIVATE KEY');
    },
  );
});
