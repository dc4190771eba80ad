import { createPrivateKey, type KeyObject, X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type PreparedTls, type StubTlsOptions, TlsSetupError } from './tls-options.ts';

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** Given certificate and key, checked so that a mistake is one message now, not a failed handshake later. */
export function givenTls(given: StubTlsOptions): PreparedTls {
  if (given.dir !== undefined)
    throw new TlsSetupError('dir', 'a kept CA is for issued certificates, not for a given one');
  if (given.names !== undefined)
    throw new TlsSetupError('names', 'names are for an issued certificate, not a given one');
  if (given.cert === undefined || given.key === undefined)
    throw new TlsSetupError(
      given.cert === undefined ? 'cert' : 'key',
      'give both the certificate and its key',
    );
  const chain = (given.cert.match(PEM_CERTIFICATE) ?? []).map((block) => {
    try {
      return new X509Certificate(block);
    } catch {
      return undefined;
    }
  });
  const leaf = chain[0];
  if (!leaf || chain.includes(undefined))
    throw new TlsSetupError('cert', 'is not a PEM certificate (-----BEGIN CERTIFICATE-----)');
  let key: KeyObject;
  try {
    key = createPrivateKey(given.key);
  } catch (error) {
    const encrypted = /ENCRYPTED/.test(given.key);
    throw new TlsSetupError(
      'key',
      encrypted
        ? 'is encrypted: give the key without a passphrase'
        : `is not a PEM private key (${(error as { reason?: string }).reason ?? 'unreadable'})`,
    );
  }
  if (!leaf.checkPrivateKey(key))
    throw new TlsSetupError(
      'key',
      `is not the key of the certificate (subject ${leaf.subject.replaceAll('\n', ', ')}): give the key that belongs to it`,
    );
  const now = Date.now();
  if (Date.parse(leaf.validTo) < now || Date.parse(leaf.validFrom) > now)
    throw new TlsSetupError(
      'cert',
      `is valid from ${leaf.validFrom} to ${leaf.validTo}, not now: clients would refuse it`,
    );
  let caPem: string | undefined;
  if (given.ca !== undefined) {
    const blocks = given.ca.match(PEM_CERTIFICATE) ?? [];
    let ca: X509Certificate;
    try {
      ca = new X509Certificate(blocks[0] ?? '');
    } catch {
      throw new TlsSetupError('ca', 'is not a PEM certificate (-----BEGIN CERTIFICATE-----)');
    }
    const issued = chain.some(
      (c) =>
        c!.fingerprint256 === ca.fingerprint256 || (c!.checkIssued(ca) && c!.verify(ca.publicKey)),
    );
    if (!issued)
      throw new TlsSetupError(
        'ca',
        `did not issue the certificate (issuer ${leaf.issuer.replaceAll('\n', ', ')}): give the CA that signed it`,
      );
    caPem = given.ca;
  } else if (leaf.checkIssued(leaf)) {
    // Self-signed: clients trust the certificate itself.
    caPem = leaf.toString();
  }
  let temporary: string | undefined;
  if (caPem !== undefined) {
    temporary = mkdtempSync(join(tmpdir(), 'badge-sim-tls-'));
    writeFileSync(join(temporary, 'ca.pem'), caPem);
  }
  return {
    cert: given.cert,
    key: given.key,
    info: {
      caPem,
      caFile: temporary && join(temporary, 'ca.pem'),
      source: 'given',
      names: subjectNames(leaf),
      validTo: new Date(leaf.validTo),
    },
    dispose: () => {
      if (temporary) rmSync(temporary, { recursive: true, force: true });
    },
  };
}

/** `DNS:localhost, IP Address:127.0.0.1` → `['localhost', '127.0.0.1']`. */
function subjectNames(cert: X509Certificate): string[] {
  return (cert.subjectAltName ?? '')
    .split(', ')
    .map((entry) => entry.replace(/^(DNS|IP Address):/, ''))
    .filter(Boolean);
}
