/**
 * The stub's answers are written by a serializer compiled when first used, or by the one the
 * build prebuilt for the same schema (issue 28: start-up); a schema that changed since the
 * build is compiled, never written by a stale serializer.
 */
import fastJson from 'fast-json-stringify';
import { expect, test, vi } from 'vitest';

const prebuiltCalls: string[] = [];
const PREBUILT_SCHEMA = {
  type: 'object',
  properties: { id: { type: 'string' }, kept: { anyOf: [{ type: 'integer' }, { type: 'null' }] } },
};

vi.mock('./serializers.prebuilt.ts', async () => {
  const { createHash } = await import('node:crypto');
  const key = createHash('sha256').update(JSON.stringify(PREBUILT_SCHEMA)).digest('base64url');
  return {
    PREBUILT_SERIALIZERS: {
      [key]: () => {
        const serialize = fastJson(PREBUILT_SCHEMA as Parameters<typeof fastJson>[0]);
        return (data: unknown) => {
          prebuiltCalls.push('prebuilt');
          return serialize(data);
        };
      },
    },
  };
});

const { compiledSerializer, serializerSchemasUsed } = await import('./response-serializers.ts');

test('the prebuilt serializer of a schema writes its answers; a schema not prebuilt is compiled; each is recorded when it first writes', () => {
  const prebuilt = compiledSerializer(structuredClone(PREBUILT_SCHEMA));
  const changed = { ...PREBUILT_SCHEMA, required: ['id'] };
  const compiled = compiledSerializer(changed);
  expect(serializerSchemasUsed()).toEqual([]);
  expect(prebuilt({ id: 'a', kept: null, dropped: 1 })).toBe('{"id":"a","kept":null}');
  expect(prebuiltCalls).toEqual(['prebuilt']);
  expect(compiled({ id: 'b', kept: 3 })).toBe('{"id":"b","kept":3}');
  expect(prebuiltCalls).toEqual(['prebuilt']);
  expect(serializerSchemasUsed()).toEqual([
    JSON.stringify(PREBUILT_SCHEMA),
    JSON.stringify(changed),
  ]);
  // One serializer a schema, whichever copy of it fastify hands over.
  expect(compiledSerializer(structuredClone(changed))).toBe(compiled);
});
