/**
 * The one place badge-sim compiles JSON schemas: the stub's HTTP bodies, query strings and
 * paths, the device frames on both ends of the wire, fixtures and scenarios. One Ajv
 * configuration (with ajv-formats), each schema compiled once per process, and one way of
 * naming the field an error is about.
 */
import { createHash } from 'node:crypto';
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { PREBUILT } from './validators.prebuilt.ts';

export type { ErrorObject, ValidateFunction };

export interface ValidatorOptions {
  /**
   * Fields a schema does not list where it refuses unknown fields: refused (`reject`, the
   * default) or dropped from the data in silence (`ignore`, the stub's `unknownFields`).
   */
  unknownFields?: 'reject' | 'ignore';
}

/**
 * Types are never coerced (JSON keeps its types; the stub reads numbers out of query strings
 * itself), the first error is enough, and unknown keywords (`description`, OpenAPI's) pass.
 * Schemas are badge-sim's own, written with TypeBox: Ajv does not check each against the JSON
 * Schema meta-schema first (`validateSchema`), a third of the first compile of a process (a
 * stub's start compiles the fixtures' schema).
 */
const BASE_OPTIONS = {
  allErrors: false,
  strict: false,
  coerceTypes: false,
  useDefaults: true,
  validateSchema: false,
} as const;

/**
 * One Ajv for each way of treating unknown fields: Ajv drops them (`removeAdditional`) as an
 * option of the instance, not of a schema. Made when a first schema is compiled.
 */
const instances = new Map<'reject' | 'ignore', Ajv>();
/** Keyed by the schema's text: fastify hands its compilers copies, never the same object. */
const compiled = new Map<'reject' | 'ignore', Map<string, ValidateFunction>>([
  ['reject', new Map()],
  ['ignore', new Map()],
]);

/**
 * Ajv's options for a way of treating unknown fields (the build's standalone code uses them too).
 * @public for scripts/prebuild-validators.mjs, which loads the built module (knip cannot see it)
 */
export function ajvOptions(unknownFields: 'reject' | 'ignore'): Options {
  return { ...BASE_OPTIONS, removeAdditional: unknownFields === 'ignore' };
}

function instance(unknownFields: 'reject' | 'ignore'): Ajv {
  let ajv = instances.get(unknownFields);
  if (!ajv) {
    ajv = addFormats.default(new Ajv(ajvOptions(unknownFields)));
    instances.set(unknownFields, ajv);
  }
  return ajv;
}

/**
 * The name of a schema in PREBUILT: the way of treating unknown fields and its text's hash.
 * @public for scripts/prebuild-validators.mjs
 */
export function prebuiltKey(unknownFields: 'reject' | 'ignore', schemaText: string): string {
  return `${unknownFields}:${createHash('sha256').update(schemaText).digest('base64url')}`;
}

const used: { unknownFields: 'reject' | 'ignore'; schemaText: string }[] = [];
/**
 * The schemas this process compiled (or found prebuilt), in order: what the build prebuilds.
 * @public for scripts/prebuild-validators.mjs
 */
export function schemasUsed(): readonly {
  unknownFields: 'reject' | 'ignore';
  schemaText: string;
}[] {
  return used;
}

const HAS_PREBUILT = Object.keys(PREBUILT).length > 0;

/** Compiled now, unless the build compiled it already (protocol/validators.prebuilt.ts). */
function compile(schema: object, schemaText: string, unknownFields: 'reject' | 'ignore') {
  used.push({ unknownFields, schemaText });
  const prebuilt = HAS_PREBUILT ? PREBUILT[prebuiltKey(unknownFields, schemaText)] : undefined;
  return prebuilt ?? instance(unknownFields).compile(schema);
}

/**
 * The validator of a schema, once per process (tests start hundreds of stubs). Ajv compiles it
 * when it first checks something: a process pays only for the schemas it uses, and a stub,
 * whose routes declare a hundred, starts without compiling any (issue 28: start-up).
 */
export function validatorOf(schema: object, options: ValidatorOptions = {}): ValidateFunction {
  const unknownFields = options.unknownFields ?? 'reject';
  const cache = compiled.get(unknownFields)!;
  const key = JSON.stringify(schema);
  let validate = cache.get(key);
  if (!validate) {
    validate = compiledOnFirstUse(schema, () => compile(schema, key, unknownFields));
    cache.set(key, validate);
  }
  return validate;
}

/**
 * A validator that compiles its schema on its first call, and whose errors name the allowed
 * words of a choice (see `nameTheChoice`). `schemaEnv` (fastify reads it to pass the parent
 * of what it validates) compiles it too, then stays a plain value.
 */
function compiledOnFirstUse(schema: object, compile: () => ValidateFunction): ValidateFunction {
  let validate: ValidateFunction | undefined;
  const compiledNow = () => {
    validate ??= compile();
    return validate;
  };
  const check = ((data: unknown) => {
    const valid = compiledNow()(data) as boolean;
    check.errors = valid ? null : nameTheChoice(validate!.errors ?? []);
    return valid;
  }) as ValidateFunction;
  return Object.defineProperties(check, {
    schema: { value: schema, enumerable: true },
    schemaEnv: {
      configurable: true,
      enumerable: true,
      get: () => {
        const { schemaEnv } = compiledNow();
        Object.defineProperty(check, 'schemaEnv', { value: schemaEnv, enumerable: true });
        return schemaEnv;
      },
    },
  });
}

/**
 * A choice of words (a union of constants, as TypeBox writes `Union([Literal…])`) fails with
 * one `const` error a word and then `anyOf`; Ajv's first says only "must be equal to
 * constant". Say what the choices are: "must be one of: start, end, …".
 */
function nameTheChoice(errors: ErrorObject[]): ErrorObject[] {
  const first = errors[0];
  if (first?.keyword === 'enum') {
    // The same words for a choice written as an `enum` (one comparison an element, no errors).
    const words = (first.params as { allowedValues: unknown[] }).allowedValues;
    first.message = `must be one of: ${words.map((w) => (typeof w === 'string' ? w : JSON.stringify(w))).join(', ')}`;
    return errors;
  }
  if (first?.keyword !== 'const') return errors;
  const words: unknown[] = [];
  for (const error of errors) {
    if (error.instancePath !== first.instancePath) return errors;
    if (error.keyword === 'anyOf') {
      first.message = `must be one of: ${words.map((w) => (typeof w === 'string' ? w : JSON.stringify(w))).join(', ')}`;
      return errors;
    }
    if (error.keyword !== 'const') return errors;
    words.push((error.params as { allowedValue: unknown }).allowedValue);
  }
  return errors;
}

/**
 * The field an Ajv error is about, as people read it: `/groups/1/name` → `groups[1].name`; a
 * missing or unknown property names itself; an empty key is shown as `""`, so no part of the
 * path is blank. Empty for the document itself. `prefix` is where the document sits
 * (`timeline[2]`).
 */
export function fieldPath(error: ErrorObject, prefix = ''): string {
  const segments = error.instancePath.split('/').slice(1);
  const { missingProperty, additionalProperty } = error.params as Record<string, unknown>;
  if (typeof missingProperty === 'string') segments.push(missingProperty);
  if (typeof additionalProperty === 'string') segments.push(additionalProperty);
  return segments.reduce(
    (path, s) => (/^\d+$/.test(s) ? `${path}[${s}]` : path ? `${path}.${s || '""'}` : s || '""'),
    prefix,
  );
}
