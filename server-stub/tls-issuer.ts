// The stub's own certificate authority: a CA made now or kept in a folder, and the server
// certificate it issues for the stub's names. Certificates are made with node-forge from keys
// made by Node's crypto; nothing shells out to openssl. Private keys are never logged nor put
// in a message.
import { generateKeyPairSync, type KeyObject, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { hostname } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import forge from 'node-forge';
import { TlsSetupError } from './tls-options.ts';

const DAY_MS = 86_400_000;
/** The CA lives long (a kept one is trusted once); a server certificate at most 397 days (what browsers and Apple clients accept). */
const CA_VALID_DAYS = 3650;
const LEAF_VALID_DAYS = 397;
/** Valid from an hour ago: a client whose clock is a little behind (a container, a VM) still accepts it. */
const BACKDATE_MS = 3_600_000;
export interface Ca {
  cert: forge.pki.Certificate;
  key: forge.pki.rsa.PrivateKey;
  pem: string;
  kept: boolean;
}

/** An RSA 2048 key pair by Node's crypto (fast, native), in the forms forge and Node take. */
function newKeyPair() {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    privateKey: forge.pki.privateKeyFromPem(pem(privateKey, 'pkcs1')),
    publicKey: forge.pki.publicKeyFromPem(
      publicKey.export({ type: 'spki', format: 'pem' }) as string,
    ),
    keyPem: pem(privateKey, 'pkcs8'),
  };
}

function pem(key: KeyObject, type: 'pkcs1' | 'pkcs8'): string {
  return key.export({ type, format: 'pem' }) as string;
}

/** A positive serial of 128 random bits (RFC 5280: unique, at most 20 octets). */
function serial(): string {
  return `01${randomBytes(16).toString('hex')}`;
}

/** A new key pair and an unsigned certificate for it, valid from a little before now. */
function newCertificate(validDays: number) {
  const keys = newKeyPair();
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = serial();
  const now = Date.now();
  cert.validity.notBefore = new Date(now - BACKDATE_MS);
  cert.validity.notAfter = new Date(now + validDays * DAY_MS);
  return { keys, cert };
}

export function newCa(): Ca {
  const { keys, cert } = newCertificate(CA_VALID_DAYS);
  // Named after the machine and the moment, so two of them are told apart in a trust store.
  const name = [
    {
      name: 'commonName',
      value: `badge-sim local CA ${hostname().slice(0, 20)} ${new Date().toISOString().slice(0, 19)}`,
    },
    { name: 'organizationName', value: 'badge-sim' },
  ];
  cert.setSubject(name);
  cert.setIssuer(name);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(keys.privateKey, forge.md.sha256.create());
  return { cert, key: keys.privateKey, pem: forge.pki.certificateToPem(cert), kept: false };
}

/** The CA kept in `dir`, or a new one written there (its key readable by this user only). */
export function keptCa(dir: string): Ca {
  const certFile = join(dir, 'ca.pem');
  const keyFile = join(dir, 'ca-key.pem');
  const certText = readIfThere(certFile);
  const keyText = readIfThere(keyFile);
  if (certText === undefined && keyText === undefined) {
    const ca = newCa();
    try {
      makeFolders(dir, 0o700);
      writeFileSync(keyFile, forge.pki.privateKeyToPem(ca.key), { mode: 0o600 });
      chmodSync(keyFile, 0o600);
      writeFileSync(certFile, ca.pem);
    } catch (error) {
      throw new TlsSetupError(
        'dir',
        `cannot keep the CA in ${dir} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}): give a folder this user can write`,
      );
    }
    return ca;
  }
  if (certText === undefined || keyText === undefined)
    throw new TlsSetupError(
      'dir',
      `${dir} holds ${certText === undefined ? 'ca-key.pem but no ca.pem' : 'ca.pem but no ca-key.pem'}: restore it, or empty the folder for a new CA (clients must then trust the new ca.pem)`,
    );
  let cert: forge.pki.Certificate;
  let key: forge.pki.rsa.PrivateKey;
  try {
    cert = forge.pki.certificateFromPem(certText);
    key = forge.pki.privateKeyFromPem(keyText) as forge.pki.rsa.PrivateKey;
  } catch {
    throw new TlsSetupError(
      'dir',
      `${dir}: ca.pem and ca-key.pem are not the RSA CA badge-sim keeps there: empty the folder for a new CA`,
    );
  }
  const publicKey = cert.publicKey as forge.pki.rsa.PublicKey;
  if (publicKey.n?.compareTo(key.n) !== 0)
    throw new TlsSetupError(
      'dir',
      `${dir}: ca-key.pem is not the key of ca.pem: empty the folder for a new CA`,
    );
  if (cert.validity.notAfter.getTime() < Date.now() + LEAF_VALID_DAYS * DAY_MS)
    throw new TlsSetupError(
      'dir',
      `${dir}: the CA expires on ${cert.validity.notAfter.toISOString()}, too soon to issue from: empty the folder for a new CA`,
    );
  return { cert, key, pem: certText, kept: true };
}

/**
 * `mkdir -p`, one level at a time: Node's recursive mode retries for ever where mkdir answers
 * ENOENT under a folder that exists (`/proc/x`), and a start must fail, not hang.
 */
function makeFolders(dir: string, mode: number): void {
  const missing: string[] = [];
  for (let at = resolve(dir); !existsSync(at); at = dirname(at)) {
    missing.unshift(at);
    if (dirname(at) === at) break;
  }
  for (const folder of missing) mkdirSync(folder, { mode });
}

function readIfThere(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new TlsSetupError(
      'dir',
      `cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
}

/** A server certificate for `names`, signed by the CA. */
export function issueLeaf(ca: Ca, names: readonly string[]) {
  const { keys, cert } = newCertificate(LEAF_VALID_DAYS);
  cert.setSubject([
    { name: 'commonName', value: names[0]! },
    { name: 'organizationName', value: 'badge-sim stub' },
  ]);
  cert.setIssuer(ca.cert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    {
      name: 'subjectAltName',
      // 2: a DNS name; 7: an IP address (clients match an address only against IP names).
      altNames: names.map((n) => (isIP(n) ? { type: 7, ip: n } : { type: 2, value: n })),
    },
    { name: 'subjectKeyIdentifier' },
    {
      name: 'authorityKeyIdentifier',
      keyIdentifier: ca.cert.generateSubjectKeyIdentifier().getBytes(),
    },
  ]);
  cert.sign(ca.key, forge.md.sha256.create());
  return {
    pem: forge.pki.certificateToPem(cert),
    keyPem: keys.keyPem,
    validTo: cert.validity.notAfter,
  };
}
