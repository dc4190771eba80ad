/**
 * The one rule that keeps secrets out of the request journal (RJ5): a credential is replaced
 * by `***` wherever the journal would show it — the `Authorization` header (its scheme word
 * kept), and any field named like a secret in a query, a JSON or form body, an answer, or the
 * raw text of a body that could not be parsed.
 */

export const MASK = '***';

/**
 * Field names that hold a secret, compared without case, `_` or `-`: API keys, OAuth client
 * secrets, refresh, access and id tokens, a device's `key`, passwords.
 */
const SECRET_NAMES = new Set([
  'apikey',
  'key',
  'clientsecret',
  'refreshtoken',
  'accesstoken',
  'idtoken',
  'token',
  'password',
  'secret',
  'authorization',
]);

export function isSecretName(name: string): boolean {
  return SECRET_NAMES.has(name.toLowerCase().replace(/[-_]/g, ''));
}

/** `ServiceApiKey abc` → `ServiceApiKey ***`; a value without a scheme word → `***`. */
export function maskAuthorization(value: string): string {
  const space = value.trim().indexOf(' ');
  return space < 0 ? MASK : `${value.trim().slice(0, space)} ${MASK}`;
}

/**
 * A copy of a parsed body, query or answer with the value of every secret-named field masked,
 * at any depth. Keys are copied as own data properties (`__proto__` included, as data).
 */
export function maskSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(maskSecrets);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([name, field]) => [
      name,
      isSecretName(name) && field !== null && field !== undefined && field !== ''
        ? MASK
        : maskSecrets(field),
    ]),
  );
}

/**
 * Secrets in text that is not JSON or a form the stub could parse: `"name": "value"` and
 * `name=value` pairs whose name is a secret's have their value masked.
 */
const SECRET_IN_TEXT = /"([A-Za-z_-]+)"(\s*:\s*")[^"]*|\b([A-Za-z_-]+)=[^&\s]*/g;

export function maskText(text: string): string {
  return text.replace(SECRET_IN_TEXT, (whole, quoted?: string, colon?: string, bare?: string) => {
    if (quoted !== undefined) return isSecretName(quoted) ? `"${quoted}"${colon}${MASK}` : whole;
    return isSecretName(bare!) ? `${bare}=${MASK}` : whole;
  });
}
