/**
 * Trusting a stub's own certificate authority (a `badge-sim stub --tls`), for badge-sim's own
 * connections. Node reads `NODE_EXTRA_CA_CERTS` once, at process start, for `fetch`, `https`
 * and `ws` alike: that needs nothing here. A CA known only at run time (an embedded TLS stub,
 * a `ca` option) cannot be added to Node 20's trust store, so connections are given it:
 * `fetchTrusting` for HTTP, `wsTrusting` for badges' WebSockets (docs/decisions.md N6).
 */
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';

/** A CA certificate in PEM, trusted besides Node's own (and `NODE_EXTRA_CA_CERTS`'s). */
export type CaPem = string;

type Undici = typeof import('undici');
let undici: Promise<Undici> | undefined;

/**
 * `fetch` that also trusts `ca`; the global `fetch` (looked up at each call) without one.
 * undici, Node's own HTTP client, is loaded only when a CA is given.
 */
export function fetchTrusting(ca: CaPem | undefined): typeof fetch {
  if (ca === undefined) return (input, init) => fetch(input, init);
  let dispatcher: InstanceType<Undici['Agent']> | undefined;
  return (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    undici ??= import('undici');
    const { Agent, fetch: undiciFetch } = await undici;
    dispatcher ??= new Agent({ connect: { ca: trustedWith(ca) } });
    return undiciFetch(input as Parameters<typeof undiciFetch>[0], {
      ...(init as Parameters<typeof undiciFetch>[1]),
      dispatcher,
    });
  }) as unknown as typeof fetch;
}

/** The TLS options of a `ws` client that also trusts `ca` (none without one). */
export function wsTrusting(ca: CaPem | undefined): { ca?: string[] } {
  return ca === undefined ? {} : { ca: trustedWith(ca) };
}

/**
 * Node's roots, `NODE_EXTRA_CA_CERTS`'s certificates and `ca`: a `ca` option replaces the
 * default store, which holds the first two.
 */
function trustedWith(ca: CaPem): string[] {
  return [...rootCertificates, ...extraCaCertificates(), ca];
}

let extra: string[] | undefined;
function extraCaCertificates(): string[] {
  if (extra) return extra;
  extra = [];
  const file = process.env.NODE_EXTRA_CA_CERTS;
  if (file) {
    try {
      extra =
        readFileSync(file, 'utf8').match(
          /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g,
        ) ?? [];
    } catch {
      // Node warned about it at start already.
    }
  }
  return extra;
}

/**
 * What to do when a connection failed because the server's certificate is not trusted, or
 * undefined for any other failure. `error` is what `fetch` or `ws` threw or emitted.
 */
export function untrustedCertificateHint(error: unknown): string | undefined {
  const code =
    (error as { cause?: { code?: unknown } })?.cause?.code ?? (error as { code?: unknown })?.code;
  if (typeof code !== 'string' || !UNTRUSTED.has(code)) return undefined;
  return `the stub's certificate is not trusted (${code}): start this command with NODE_EXTRA_CA_CERTS=<the CA file 'badge-sim stub --tls' printed>`;
}

const UNTRUSTED = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_ISSUER_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_UNTRUSTED',
]);
