/**
 * The serializers of the stub's answers: fast-json-stringify writes what a route's response
 * schema lists. Each is compiled once per process, when it first writes an answer, so a stub
 * starts without compiling the answers of its hundred routes; or it is taken from
 * `serializers.prebuilt.ts`, which the build fills (scripts/prebuild-serializers.mjs) with
 * fast-json-stringify's standalone code of the schemas the catalogue's stubs send, the
 * validators of their unions inlined: compiling one of those makes an Ajv and compiles its
 * branches, some 100 ms of a one-scenario run (issue 28: start-up). A prebuilt serializer is
 * keyed by its schema's hash: a schema that changed is compiled as before, never served stale.
 */
import { createHash } from 'node:crypto';
import fastJson from 'fast-json-stringify';
import { PREBUILT_SERIALIZERS } from './serializers.prebuilt.ts';

export type Serialize = (data: unknown) => string;

/**
 * The name of a schema in PREBUILT_SERIALIZERS: the hash of its text.
 * @public for scripts/prebuild-serializers.mjs, which loads the built module (knip cannot see it)
 */
export function prebuiltSerializerKey(schemaText: string): string {
  return createHash('sha256').update(schemaText).digest('base64url');
}

const serializers = new Map<string, Serialize>();
/** The texts of the schemas this process has written an answer with: what the build prebuilds. */
const sent = new Set<string>();
const HAS_PREBUILT = Object.keys(PREBUILT_SERIALIZERS).length > 0;

/** The schemas this process has written answers with, in order (their texts). */
export function serializerSchemasUsed(): readonly string[] {
  return [...sent];
}

/** The serializer of a response schema, once per process, compiled when it first writes. */
export function compiledSerializer(schema: object): Serialize {
  const key = JSON.stringify(schema);
  let serialize = serializers.get(key);
  if (!serialize) {
    let compiled: Serialize | undefined;
    serialize = (data) => {
      compiled ??= compile(schema, key);
      return compiled(data);
    };
    serializers.set(key, serialize);
  }
  return serialize;
}

function compile(schema: object, schemaText: string): Serialize {
  sent.add(schemaText);
  const prebuilt = HAS_PREBUILT
    ? PREBUILT_SERIALIZERS[prebuiltSerializerKey(schemaText)]
    : undefined;
  return prebuilt?.() ?? (fastJson(schema as Parameters<typeof fastJson>[0]) as Serialize);
}
