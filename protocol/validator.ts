/**
 * The one place badge-sim compiles JSON schemas: the stub's HTTP bodies, query strings and
 * paths, the device frames on both ends of the wire, fixtures and scenarios. One Ajv
 * configuration (with ajv-formats), each schema compiled once per process, and one way of
 * naming the field an error is about.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

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
 */
const BASE_OPTIONS = {
  allErrors: false,
  strict: false,
  coerceTypes: false,
  useDefaults: true,
} as const;

/**
 * One Ajv for each way of treating unknown fields: Ajv drops them (`removeAdditional`) as an
 * option of the instance, not of a schema.
 */
const instances = new Map<'reject' | 'ignore', Ajv>();
/** Keyed by the schema's text: fastify hands its compilers copies, never the same object. */
const compiled = new Map<Ajv, Map<string, ValidateFunction>>();

function instance(unknownFields: 'reject' | 'ignore'): Ajv {
  let ajv = instances.get(unknownFields);
  if (!ajv) {
    ajv = addFormats.default(
      new Ajv({ ...BASE_OPTIONS, removeAdditional: unknownFields === 'ignore' }),
    );
    instances.set(unknownFields, ajv);
    compiled.set(ajv, new Map());
  }
  return ajv;
}

/** The validator of a schema, compiled once per process (tests start hundreds of stubs). */
export function validatorOf(schema: object, options: ValidatorOptions = {}): ValidateFunction {
  const ajv = instance(options.unknownFields ?? 'reject');
  const cache = compiled.get(ajv)!;
  const key = JSON.stringify(schema);
  let validate = cache.get(key);
  if (!validate) {
    validate = naming(ajv.compile(schema));
    cache.set(key, validate);
  }
  return validate;
}

/** A validator whose errors name the allowed words of a choice (see `nameTheChoice`). */
function naming(validate: ValidateFunction): ValidateFunction {
  const check = ((data: unknown) => {
    const valid = validate(data) as boolean;
    check.errors = valid ? null : nameTheChoice(validate.errors ?? []);
    return valid;
  }) as ValidateFunction;
  return Object.assign(check, { schema: validate.schema, schemaEnv: validate.schemaEnv });
}

/**
 * A choice of words (a union of constants, as TypeBox writes `Union([Literal…])`) fails with
 * one `const` error a word and then `anyOf`; Ajv's first says only "must be equal to
 * constant". Say what the choices are: "must be one of: start, end, …".
 */
function nameTheChoice(errors: ErrorObject[]): ErrorObject[] {
  const first = errors[0];
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
