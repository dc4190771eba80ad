/**
 * HTTPS for the stub (docs/decisions.md N1–N9). Client libraries of the original build
 * `https://` URLs, so the stub can serve TLS on its one port: with a certificate it is given,
 * or with one it issues at start from a local certificate authority (CA) whose certificate it
 * writes to a file for clients to trust (`NODE_EXTRA_CA_CERTS`, `REQUESTS_CA_BUNDLE`,
 * `curl --cacert`). Certificates are made with node-forge from keys made by Node's crypto;
 * nothing shells out to openssl. Private keys are never logged nor put in a message.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { hostname, networkInterfaces, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { givenTls } from './tls-given.ts';
import { issueLeaf, keptCa, newCa } from './tls-issuer.ts';
import { type PreparedTls, type StubTlsOptions, TlsSetupError } from './tls-options.ts';

// The parts: the options and the error (tls-options.ts), the local CA and what it issues
// (tls-issuer.ts), a given certificate checked (tls-given.ts), plain HTTP refused on the TLS
// port (https-only.ts). What start-stub.ts and the package's entry points use is here.
export { refusePlainHttp } from './https-only.ts';
export type { PreparedTls, StubTlsInfo, StubTlsOptions } from './tls-options.ts';
export { TlsSetupError } from './tls-options.ts';

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
