/**
 * HTTPS for the stub (docs/decisions.md N1–N9). Client libraries of the original build
 * `https://` URLs, so the stub can serve TLS on its one port: with a certificate it is given,
 * or with one it issues at start from a local certificate authority (CA) whose certificate it
 * writes to a file for clients to trust (`NODE_EXTRA_CA_CERTS`, `REQUESTS_CA_BUNDLE`,
 * `curl --cacert`). Certificates are made with node-forge from keys made by Node's crypto;
 * nothing shells out to openssl. Private keys are never logged nor put in a message.
 */
import {
  createPrivateKey,
  generateKeyPairSync,
  type KeyObject,
  randomBytes,
  X509Certificate,
} from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { isIP, type Server, type Socket } from 'node:net';
import { hostname, networkInterfaces, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import forge from 'node-forge';
import { refuseOnSocket } from './http-errors.ts';

/** `startStub({ tls })`: `true` issues a certificate from a new CA; the fields say otherwise. */
export interface StubTlsOptions {
  /** PEM: the server's certificate (then any intermediates). With `key`; none is issued then. */
  cert?: string;
  /** PEM: the unencrypted private key of `cert`. */
  key?: string;
  /**
   * PEM: the CA that issued `cert`, handed to clients (`tls.caPem`, `tls.caFile`). Without
   * it a self-signed `cert` is its own CA, and any other leaves clients to their own trust.
   */
  ca?: string;
  /**
   * Keeps the generated CA here (`ca.pem`, `ca-key.pem`) and reuses it on the next start, so
   * clients keep trusting it. Without it the CA is new on every start, its key never leaves
   * memory and `ca.pem` goes in a temporary folder removed when the stub stops.
   */
  dir?: string;
  /** More host names or addresses for the issued certificate (a network alias, a LAN IP). */
  names?: string[];
}

/** What a TLS stub tells its clients (`StubHandle.tls`). No private key is kept here. */
export interface StubTlsInfo {
  /** PEM of the CA to trust; undefined when a given certificate came without one. */
  readonly caPem: string | undefined;
  /** A file holding `caPem`: for `NODE_EXTRA_CA_CERTS=<file>` and friends. */
  readonly caFile: string | undefined;
  /** `new-ca`: a CA made for this run; `kept-ca`: made earlier in `dir`; `given`: files. */
  readonly source: 'new-ca' | 'kept-ca' | 'given';
  /** The host names and addresses the server certificate is valid for. */
  readonly names: readonly string[];
  /** When the server certificate expires. */
  readonly validTo: Date;
}

/** A TLS setup that cannot work: `field` is the option at fault (`cert`, `key`, `ca`, `dir`, `names`). */
export class TlsSetupError extends Error {
  override name = 'TlsSetupError';
  constructor(
    readonly field: 'cert' | 'key' | 'ca' | 'dir' | 'names',
    message: string,
  ) {
    super(message);
  }
}

/** What the server needs (cert and key) and what the handle shows; `dispose` removes temp files. */
export interface PreparedTls {
  cert: string;
  key: string;
  info: StubTlsInfo;
  dispose(): void;
}

const DAY_MS = 86_400_000;
/** The CA lives long (a kept one is trusted once); a server certificate at most 397 days (what browsers and Apple clients accept). */
const CA_VALID_DAYS = 3650;
const LEAF_VALID_DAYS = 397;
/** Valid from an hour ago: a client whose clock is a little behind (a container, a VM) still accepts it. */
const BACKDATE_MS = 3_600_000;
const MAX_NAMES = 100;
const DNS_NAME =
  /^(?=.{1,253}$)(\*\.)?[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?(\.[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*\.?$/;

/**
 * The certificate and key to serve, from the options: given ones checked (they parse, the key
 * is the certificate's, it is valid now, the CA issued it), or a new one issued for the
 * stub's names by a CA made now or kept in `dir`.
 */
export function prepareTls(options: StubTlsOptions | true, listenHost: string): PreparedTls {
  const given = options === true ? {} : options;
  if (given.cert !== undefined || given.key !== undefined) return givenTls(given);
  const names = certificateNames(listenHost, given.names ?? []);
  const kept = given.dir === undefined ? undefined : resolve(given.dir);
  const ca = kept === undefined ? newCa() : keptCa(kept);
  const leaf = issueLeaf(ca, names);
  let dir = kept;
  let temporary: string | undefined;
  if (dir === undefined) {
    temporary = mkdtempSync(join(tmpdir(), 'badge-sim-tls-'));
    dir = temporary;
    writeFileSync(join(dir, 'ca.pem'), ca.pem);
  }
  return {
    cert: leaf.pem,
    key: leaf.keyPem,
    info: {
      caPem: ca.pem,
      caFile: join(dir, 'ca.pem'),
      source: ca.kept ? 'kept-ca' : 'new-ca',
      names,
      validTo: leaf.validTo,
    },
    dispose: () => {
      if (temporary) rmSync(temporary, { recursive: true, force: true });
    },
  };
}

/**
 * The names of the issued certificate: localhost and the loopback addresses, this machine's
 * (or container's) host name, the listen address (every local address when it is 0.0.0.0 or
 * ::), and the names asked for.
 */
export function certificateNames(listenHost: string, extra: readonly string[]): string[] {
  for (const name of extra) {
    if (typeof name !== 'string' || !(isIP(name) || DNS_NAME.test(name)))
      throw new TlsSetupError(
        'names',
        `'${String(name).slice(0, 80)}' is neither a host name nor an IP address`,
      );
  }
  const names = ['localhost', '127.0.0.1', '::1'];
  const own = hostname();
  if (DNS_NAME.test(own)) names.push(own);
  if (listenHost === '0.0.0.0' || listenHost === '::') {
    for (const addresses of Object.values(networkInterfaces())) {
      for (const address of addresses ?? []) {
        // A link-local IPv6 address needs its zone, which a certificate cannot hold.
        if (!address.address.toLowerCase().startsWith('fe80:')) names.push(address.address);
      }
    }
  } else if (isIP(listenHost) || DNS_NAME.test(listenHost)) {
    names.push(listenHost);
  }
  names.push(...extra);
  const unique = [...new Set(names.map((n) => (isIP(n) ? n : n.toLowerCase())))];
  if (unique.length > MAX_NAMES)
    throw new TlsSetupError('names', `at most ${MAX_NAMES} names, got ${unique.length}`);
  return unique;
}

interface Ca {
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

function newCa(): Ca {
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
function keptCa(dir: string): Ca {
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
function issueLeaf(ca: Ca, names: readonly string[]) {
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

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** Given certificate and key, checked so that a mistake is one message now, not a failed handshake later. */
function givenTls(given: StubTlsOptions): PreparedTls {
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

/**
 * Lets only TLS reach the TLS server: the first byte of a connection says which it is (22, a
 * TLS handshake record). Anything else, a plain `http://` or `ws://` client, is answered
 * 400 `https_required` in the stub's error shape, in plain HTTP it can read, and closed. A
 * connection that sends nothing is dropped after `silentMs`, as a plain stub would.
 */
export function refusePlainHttp(server: Server, silentMs: number): void {
  const tlsListeners = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  server.on('connection', (socket: Socket) => {
    const ignore = () => undefined;
    socket.on('error', ignore);
    socket.setTimeout(silentMs, () => socket.destroy());
    socket.once('readable', () => {
      const first: Buffer | null = socket.read(1);
      if (first === null) {
        socket.destroy();
        return;
      }
      socket.unshift(first);
      socket.setTimeout(0);
      socket.off('error', ignore);
      if (first[0] === 0x16) {
        for (const listener of tlsListeners) listener.call(server, socket);
        return;
      }
      // Read and drop what it sends, so closing does not reset the answer away.
      socket.on('error', ignore);
      socket.resume();
      refuseOnSocket(
        socket,
        400,
        'https_required',
        'this port speaks HTTPS only (badge-sim stub --tls): use https:// (wss:// for badges) with the same host and port',
        'url',
      );
    });
  });
}
