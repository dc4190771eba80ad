// What a stub serving TLS is given, tells its clients and refuses (docs/decisions.md N1–N9).

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
