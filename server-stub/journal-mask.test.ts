/** The JSON-text mask against the parsed-value mask it stands in for on cut texts (RJ4, RJ5). */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { isSecretName, MASK, maskJsonText, maskSecrets } from './journal-mask.ts';

/** Field names: secret ones in the spellings RJ5 lists, and ordinary ones. */
const names = fc.constantFrom(
  'api_key',
  'Api-Key',
  'token',
  'refresh_token',
  'client_secret',
  'password',
  'key',
  'notification',
  'id',
  'keys',
  'tokens_left',
  'name',
);
const plain = fc.oneof(
  fc.string({ unit: fc.constantFrom('a', ' ', '"', '\\', '{', '}', ':', ',', 'é', '\n') }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
);
const { document } = fc.letrec((tie) => ({
  document: fc.oneof(
    { depthSize: 'small' },
    plain,
    fc.array(tie('document')),
    fc.dictionary(names, tie('document')),
  ),
}));
/** Secret values are made of `§`, which nothing else holds: a leak is easy to see. */
const SECRETS = ['§§§', ['§', '§§'], { inner: '§', n: 1 }];
/** The same values, with a secret in every secret-named field. */
const withSecrets = document.map((value) => withSecretsOnly(value));

function withSecretsOnly(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withSecretsOnly);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([name, field]) => [
      name,
      isSecretName(name) ? SECRETS[name.length % SECRETS.length] : withSecretsOnly(field),
    ]),
  );
}

describe('maskJsonText', () => {
  test('masks a whole JSON text as maskSecrets masks its parsed value, compact or indented', () => {
    fc.assert(
      fc.property(document, fc.boolean(), (value, indent) => {
        const text = JSON.stringify(value, null, indent ? 2 : undefined);
        // What the text holds, not the value it was written from: JSON writes -0 as 0.
        expect(JSON.parse(maskJsonText(text))).toEqual(maskSecrets(JSON.parse(text)));
      }),
      {
        examples: [
          [-0, false],
          [{ token: -0, n: [-0] }, true],
        ],
      },
    );
  });

  test('a text cut anywhere shows no part of a secret', () => {
    fc.assert(
      fc.property(withSecrets, fc.double({ min: 0, max: 1, noNaN: true }), (value, at) => {
        const text = JSON.stringify(value);
        const cut = text.slice(0, Math.floor(text.length * at));
        expect(maskJsonText(cut)).not.toContain('§');
      }),
    );
  });

  test('what the mask keeps: null and empty values, names that only look alike', () => {
    expect(maskJsonText('{"token": null, "key": "", "keys": [1], "api\\u005fkey": 7}')).toBe(
      `{"token": null, "key": "", "keys": [1], "api\\u005fkey": "${MASK}"}`,
    );
    expect(maskJsonText('[{"password": {"a": ["}"]}, "n": 1}]')).toBe(
      `[{"password": "${MASK}", "n": 1}]`,
    );
    expect(maskJsonText('{"refresh_token": "rt-1')).toBe(`{"refresh_token": "${MASK}"`);
  });
});
