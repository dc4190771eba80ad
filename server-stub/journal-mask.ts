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

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;

/**
 * JSON text, whole or cut anywhere, with the value of every secret-named field masked as
 * `maskSecrets` masks the parsed value (any depth; an object, a list, a number as well as a
 * string; `null` and `""` kept): what the journal shows of an answer or body it keeps cut
 * (RJ4), without parsing it. A value the cut falls inside is masked too. The rest of the text
 * is kept as it was sent.
 */
export function maskJsonText(text: string): string {
  let masked = '';
  let copiedTo = 0;
  let at = 0;
  while (at < text.length) {
    if (text.charCodeAt(at) !== QUOTE) {
      at++;
      continue;
    }
    const stringEnd = endOfString(text, at);
    const colon = skipSpace(text, stringEnd);
    if (text.charCodeAt(colon) !== COLON) {
      at = stringEnd;
      continue;
    }
    const valueStart = skipSpace(text, colon + 1);
    if (!isSecretName(fieldName(text.slice(at + 1, stringEnd - 1)))) {
      at = valueStart;
      continue;
    }
    const valueEnd = endOfValue(text, valueStart);
    const value = text.slice(valueStart, valueEnd);
    if (valueStart < text.length && value !== 'null' && value !== '""') {
      masked += `${text.slice(copiedTo, valueStart)}"${MASK}"`;
      copiedTo = valueEnd;
    }
    at = valueEnd;
  }
  return copiedTo === 0 ? text : masked + text.slice(copiedTo);
}

/** A key's name with its escapes read (`"api\u005fkey"` is `api_key`); as written when cut. */
function fieldName(written: string): string {
  if (!written.includes('\\')) return written;
  try {
    return JSON.parse(`"${written}"`) as string;
  } catch {
    return written;
  }
}

/** Where the string opening at `quote` ends (after its closing quote), or the text's end. */
function endOfString(text: string, quote: number): number {
  for (let at = quote + 1; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code === BACKSLASH) at++;
    else if (code === QUOTE) return at + 1;
  }
  return text.length;
}

function skipSpace(text: string, from: number): number {
  let at = from;
  while (at < text.length && /\s/.test(text[at]!)) at++;
  return at;
}

/** Where the value starting at `start` ends: a string, a nested object or list, a literal. */
function endOfValue(text: string, start: number): number {
  const first = text[start];
  if (first === '"') return endOfString(text, start);
  if (first === '{' || first === '[') {
    let depth = 0;
    for (let at = start; at < text.length; at++) {
      const char = text[at];
      if (char === '"') at = endOfString(text, at) - 1;
      else if (char === '{' || char === '[') depth++;
      else if ((char === '}' || char === ']') && --depth === 0) return at + 1;
    }
    return text.length;
  }
  let at = start;
  while (at < text.length && !/[\s,}\]]/.test(text[at]!)) at++;
  return at;
}
