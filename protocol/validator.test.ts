/**
 * The one validator module: every schema compiled once per process, unknown fields refused or
 * dropped as asked, and every error's field named the same way (HTTP answers, device frames,
 * fixture and scenario files). And the wire's shapes live in protocol/: the clients and the
 * container module reach no server code.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Type from 'typebox';
import { describe, expect, test } from 'vitest';
import { fieldPath, validatorOf } from './validator.ts';

const Account = Type.Object(
  {
    groups: Type.Array(
      Type.Object({ name: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
    ),
  },
  { additionalProperties: false },
);

function firstField(schema: object, data: unknown, prefix?: string): string {
  const validate = validatorOf(schema);
  expect(validate(data)).toBe(false);
  return fieldPath(validate.errors![0]!, prefix);
}

describe('validatorOf', () => {
  test('a choice of words is refused naming the words, not "must be equal to constant"', () => {
    const Mode = Type.Object({
      mode: Type.Union([Type.Literal('virtual'), Type.Literal('real'), Type.Literal('scaled')]),
      // A union that is not only words keeps Ajv's own message.
      size: Type.Optional(Type.Union([Type.Literal('auto'), Type.Integer()])),
    });
    const validate = validatorOf(Mode);
    expect(validate({ mode: 'fast' })).toBe(false);
    expect(validate.errors![0]!.message).toBe('must be one of: virtual, real, scaled');
    expect(fieldPath(validate.errors![0]!)).toBe('mode');
    expect(validate({ mode: 'real', size: 'big' })).toBe(false);
    expect(validate.errors![0]!.message).not.toContain('one of');
    expect(validate({ mode: 'real', size: 3 })).toBe(true);
    expect(validate.errors).toBeNull();
  });

  test('a choice written as an enum (checked without an error a branch) is refused naming the words too', () => {
    const validate = validatorOf(Type.Object({ status: Type.Enum(['queued', 'playing']) }));
    expect(validate({ status: 'heard' })).toBe(false);
    expect(validate.errors![0]!.message).toBe('must be one of: queued, playing');
    expect(fieldPath(validate.errors![0]!)).toBe('status');
    expect(validate({ status: 'playing' })).toBe(true);
  });

  test('a schema is compiled once: an equal schema (a copy) gets the same validator', () => {
    expect(validatorOf(structuredClone(Account))).toBe(validatorOf(Account));
  });

  test('a schema is compiled when it first checks data, not before: what is never used costs nothing', () => {
    // Ajv refuses this schema when it compiles it: asking for the validator does not compile.
    const broken = { type: 'object', properties: { n: { type: 'no-such-type' } } };
    const validate = validatorOf(broken);
    expect(() => validate({ n: 1 })).toThrow(/no-such-type|type/);
    // fastify reads `schemaEnv` to pass the parent of what it checks: a compiled one's.
    const ok = validatorOf(Type.Object({ lazy: Type.Integer() }));
    expect(ok.schemaEnv).toBeDefined();
    expect(ok({ lazy: 1 })).toBe(true);
  });

  test('unknown fields are refused by default, dropped with unknownFields: ignore', () => {
    const refusing = validatorOf(Account);
    expect(refusing({ groups: [], extra: 1 })).toBe(false);
    const ignoring = validatorOf(Account, { unknownFields: 'ignore' });
    const data = { groups: [{ name: 'a', extra: 1 }], extra: 1 };
    expect(ignoring(data)).toBe(true);
    expect(data).toEqual({ groups: [{ name: 'a' }] });
  });

  test('types are never coerced: "5" is no number', () => {
    expect(validatorOf(Type.Object({ n: Type.Integer() }))({ n: '5' })).toBe(false);
  });

  test('formats are known (ajv-formats): a date-time is checked', () => {
    const validate = validatorOf(Type.String({ format: 'date-time' }));
    expect(validate('2026-01-01T00:00:00Z')).toBe(true);
    expect(validate('yesterday')).toBe(false);
  });
});

describe('fieldPath names the field an error is about', () => {
  test('array items with brackets, properties with dots', () => {
    expect(firstField(Account, { groups: [{ name: 'a' }, { name: '' }] })).toBe('groups[1].name');
  });

  test('a missing field names itself', () => {
    expect(firstField(Account, { groups: [{}] })).toBe('groups[0].name');
  });

  test('an unknown field names itself; an empty key is shown as ""', () => {
    expect(firstField(Account, { groups: [{ name: 'a', colour: 1 }] })).toBe('groups[0].colour');
    expect(firstField(Account, { groups: [], '': 1 })).toBe('""');
  });

  test('the document itself is the empty path, or the prefix it sits at', () => {
    expect(firstField(Account, 5)).toBe('');
    expect(firstField(Account, { groups: [{}] }, 'accounts[2]')).toBe('accounts[2].groups[0].name');
  });
});

describe('the wire shapes are declared in protocol/', () => {
  const root = fileURLToPath(new URL('..', import.meta.url));
  test.each(['client', 'container'])('%s/ imports nothing from server-stub/', (folder) => {
    const sources = readdirSync(`${root}${folder}`).filter(
      (file) => file.endsWith('.ts') && !file.endsWith('.test.ts'),
    );
    expect(sources.length).toBeGreaterThan(0);
    for (const file of sources) {
      const text = readFileSync(`${root}${folder}/${file}`, 'utf8');
      expect(text, `${folder}/${file}`).not.toMatch(/from '\.\.\/server-stub\//);
    }
  });
});
