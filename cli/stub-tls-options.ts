import { closeSync, openSync, readSync } from 'node:fs';
import type { StubTlsOptions, TlsSetupError } from '../server-stub/tls.ts';
import { fail } from './cli-errors.ts';
import { booleanFromEnv } from './env-options.ts';
import type { StubOptions } from './stub-options.ts';

/** What `badge-sim stub` was given for TLS. */
type StubTlsFlags = Pick<
  StubOptions,
  'tls' | 'tlsCert' | 'tlsKey' | 'tlsCa' | 'tlsDir' | 'tlsNames'
>;

/** Each TLS option's flag and variable, as messages name them. */
const TLS_FLAGS = {
  cert: '--tls-cert (BADGE_SIM_TLS_CERT)',
  key: '--tls-key (BADGE_SIM_TLS_KEY)',
  ca: '--tls-ca (BADGE_SIM_TLS_CA)',
  dir: '--tls-dir (BADGE_SIM_TLS_DIR)',
  names: '--tls-names (BADGE_SIM_TLS_NAMES)',
} as const;

/**
 * The TLS options of `startStub` from the flags and variables, or undefined for plain HTTP.
 * Any --tls-* option means --tls. Files are read here: a path that cannot be read is one line
 * naming the flag (exit 2).
 */
export function tlsOptionsFrom(options: StubTlsFlags): StubTlsOptions | undefined {
  const given = (['tlsCert', 'tlsKey', 'tlsCa', 'tlsDir', 'tlsNames'] as const).filter(
    (name) => options[name] !== undefined,
  );
  const wanted = options.tls ?? booleanFromEnv('BADGE_SIM_TLS', given.length > 0);
  if (!wanted && given.length > 0)
    fail(
      `BADGE_SIM_TLS is false but ${given.map((g) => TLS_FLAGS[tlsField(g)]).join(' and ')} ${given.length > 1 ? 'are' : 'is'} given: drop ${given.length > 1 ? 'them' : 'it'}, or BADGE_SIM_TLS.`,
    );
  if (!wanted) return undefined;
  if (options.tlsCa !== undefined && options.tlsCert === undefined)
    fail(
      `${TLS_FLAGS.ca} is the CA of a given certificate: give ${TLS_FLAGS.cert} and ${TLS_FLAGS.key} too.`,
    );
  const read = (field: 'cert' | 'key' | 'ca', file: string | undefined) => {
    if (file === undefined) return undefined;
    try {
      return readPemFile(file);
    } catch (error) {
      if (error instanceof RangeError)
        fail(
          `${TLS_FLAGS[field]} ${file}: is over ${PEM_FILE_MAX_BYTES / 1024} KiB, not a PEM file: give the path of a PEM file.`,
        );
      const code = (error as NodeJS.ErrnoException).code;
      const why =
        code === 'ENOENT'
          ? 'no such file'
          : code === 'EACCES'
            ? 'not allowed to read it'
            : code === 'EISDIR'
              ? 'it is a folder'
              : (code ?? 'unreadable');
      fail(`${TLS_FLAGS[field]} ${file}: cannot read it (${why}): give the path of a PEM file.`);
    }
  };
  return {
    cert: read('cert', options.tlsCert),
    key: read('key', options.tlsKey),
    ca: read('ca', options.tlsCa),
    dir: options.tlsDir,
    names: options.tlsNames
      ?.split(',')
      .map((name) => name.trim())
      .filter(Boolean),
  };
}

function tlsField(option: 'tlsCert' | 'tlsKey' | 'tlsCa' | 'tlsDir' | 'tlsNames') {
  return option.slice(3).toLowerCase() as keyof typeof TLS_FLAGS;
}

/** A TLS setup error as one line naming the flag, its variable and the file. */
export function tlsProblem(error: TlsSetupError, options: StubTlsFlags): string {
  const file =
    error.field === 'cert'
      ? options.tlsCert
      : error.field === 'key'
        ? options.tlsKey
        : error.field === 'ca'
          ? options.tlsCa
          : undefined;
  return `${TLS_FLAGS[error.field]}${file === undefined ? '' : ` ${file}`}: ${error.message}.`;
}

/** A certificate chain or a key is a few KiB; more is not a PEM file meant for the stub. */
const PEM_FILE_MAX_BYTES = 1024 * 1024;

/**
 * A PEM file's text, read up to `PEM_FILE_MAX_BYTES` (RangeError past it): a device such as
 * /dev/zero never ends, and a start must fail, not hang. A pipe (`<(…)`) is read to its end.
 */
function readPemFile(file: string): string {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(PEM_FILE_MAX_BYTES + 1);
    let length = 0;
    for (;;) {
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) return buffer.toString('utf8', 0, length);
      length += read;
      if (length > PEM_FILE_MAX_BYTES) throw new RangeError(`${file} is over the limit`);
    }
  } finally {
    closeSync(fd);
  }
}
