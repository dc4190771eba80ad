/**
 * Reading an OpenAPI 3 document as a client generator would: its operations, the values a
 * schema accepts (a valid one, and fast-check arbitraries of plausible ones), and whether an
 * answer is what the document lists for the operation. Used by the conformance test.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import fc from 'fast-check';

export type Schema = Record<string, any>;

export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components?: { securitySchemes?: Record<string, Schema> };
}

interface Parameter {
  in: 'path' | 'query' | 'header' | 'cookie';
  name: string;
  required?: boolean;
  schema: Schema;
}

export interface Operation {
  tags?: string[];
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
  responses: Record<string, { description: string; content?: Record<string, { schema: Schema }> }>;
  security?: Record<string, string[]>[];
}

export interface DocumentedOperation {
  method: string;
  /** The path template, `{name}` for each path parameter. */
  path: string;
  operation: Operation;
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

export function operationsOf(doc: OpenApiDocument): DocumentedOperation[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    HTTP_METHODS.filter((method) => Object.hasOwn(item, method)).map((method) => ({
      method: method.toUpperCase(),
      path,
      operation: item[method]!,
    })),
  );
}

const ajv = addFormats.default(new Ajv({ strict: false, allErrors: true }));
const compiled = new Map<string, ValidateFunction>();
function validator(schema: Schema): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(key, validate);
  }
  return validate;
}

const accepts = (schema: Schema, value: unknown): boolean => validator(schema)(value);

/**
 * Problems of an answer against the document: a status the operation does not list, a body
 * that is not JSON where the document gives one, or one its schema refuses. Error bodies are
 * held to exactly the documented properties (nothing the stub sends is left undocumented).
 */
export function conformanceProblems(
  operation: Operation,
  status: number,
  contentType: string | null,
  text: string,
): string[] {
  const documented = operation.responses[String(status)] ?? operation.responses.default;
  if (!documented) {
    return [
      `${status} is not documented (documented: ${Object.keys(operation.responses).join(', ')}): ${text.slice(0, 200)}`,
    ];
  }
  const stream = documented.content?.['text/event-stream']?.schema;
  if (stream) return eventStreamProblems(status, stream, contentType, text);
  const schema = documented.content?.['application/json']?.schema;
  if (!schema) {
    return text === '' ? [] : [`${status} has a body where the document gives none: ${text}`];
  }
  if (!contentType?.startsWith('application/json')) {
    return [`${status} answered ${contentType ?? 'no content type'}, not JSON: ${text}`];
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return [`${status} answered a body that is not JSON: ${text.slice(0, 200)}`];
  }
  const validate = validator(status >= 400 ? (closed(schema) as Schema) : schema);
  if (!validate(body)) {
    return [
      `${status} body ${text.slice(0, 300)} is not the documented schema: ${ajv.errorsText(validate.errors)}`,
    ];
  }
  return [];
}

/** An event stream (the live stream's snapshot): each message's `data:` is the documented schema. */
function eventStreamProblems(
  status: number,
  schema: Schema,
  contentType: string | null,
  text: string,
): string[] {
  if (!contentType?.startsWith('text/event-stream'))
    return [`${status} answered ${contentType ?? 'no content type'}, not an event stream`];
  const data = [...text.matchAll(/^data: (.*)$/gm)].map((m) => m[1]!);
  if (data.length === 0) return [`${status} event stream has no message: ${text.slice(0, 200)}`];
  const validate = validator(schema);
  return data.flatMap((line) =>
    validate(JSON.parse(line))
      ? []
      : [
          `${status} message ${line.slice(0, 300)} is not the documented schema: ${ajv.errorsText(validate.errors)}`,
        ],
  );
}

/** The schema with every object that lists properties closed to others. */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (schema === null || typeof schema !== 'object') return schema;
  const copy: Schema = {};
  for (const [key, value] of Object.entries(schema)) copy[key] = closed(value);
  if (copy.type === 'object' && copy.properties && copy.additionalProperties === undefined) {
    copy.additionalProperties = false;
  }
  return copy;
}

/** Valid values of fields and parameters by name (ids from the fixtures and the stub). */
export type KnownValues = Map<string, unknown>;

/**
 * A value the schema accepts, preferring what `known` holds for `name` when the schema
 * accepts that. Objects get their required properties, and with `full` also every optional
 * property that has a known value.
 */
export function validValue(schema: Schema, name: string, known: KnownValues, full = true): unknown {
  const given = known.get(name);
  if (given !== undefined && accepts(schema, given)) return given;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (branches) {
    const branch = branches.find((b) => b.type !== 'null') ?? branches[0];
    return validValue(branch ?? {}, name, known, full);
  }
  switch (schema.type) {
    case 'object': {
      const required = new Set<string>(schema.required ?? []);
      const value: Record<string, unknown> = {};
      for (const [key, property] of Object.entries<Schema>(schema.properties ?? {})) {
        if (required.has(key) || (full && known.has(key))) {
          value[key] = validValue(property, key, known, full);
        }
      }
      return value;
    }
    case 'array':
      return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () =>
        validValue(schema.items ?? {}, name, known, full),
      );
    case 'string': {
      if (schema.format === 'date-time') return '2026-01-01T00:00:00Z';
      const matching = matchingPattern(schema);
      if (matching) return fc.sample(matching, { seed: 1, numRuns: 1 })[0];
      return 'x'.repeat(Math.max(1, schema.minLength ?? 1));
    }
    case 'integer':
    case 'number':
      return schema.minimum ?? (schema.exclusiveMinimum ?? 0) + 1;
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return 'x';
  }
}

/** Strings matching the schema's pattern, when fast-check can write them (no lookahead). */
function matchingPattern(schema: Schema): fc.Arbitrary<string> | undefined {
  if (typeof schema.pattern !== 'string') return undefined;
  try {
    return fc.stringMatching(new RegExp(schema.pattern));
  } catch {
    return undefined;
  }
}

/** Names every object inherits: plain words to the stub. */
export const INHERITED_NAMES = [
  '__proto__',
  'constructor',
  'valueOf',
  'toString',
  'hasOwnProperty',
];

/** Text that is often mishandled: empty, blank, inherited names, numbers as text, dates. */
const AWKWARD_TEXT = [
  '',
  ' ',
  ...INHERITED_NAMES,
  '1e999',
  '0x10',
  '-1',
  '2026-01-01T00:00:01Z',
  '9999-12-31T23:59:59.999Z',
  '+275760-09-13T00:00:00Z',
  '30s',
  '100000000d',
  'x'.repeat(300),
  'ü✓',
];

/**
 * Plausible values of a schema, bounded: the known value of `name` among them, values of the
 * right type inside and just outside the schema's bounds, awkward text, and at times a value
 * of another type. Objects get each property or not, arrays up to 3 items.
 */
export function arbitraryOf(
  schema: Schema,
  name: string,
  known: KnownValues,
): fc.Arbitrary<unknown> {
  const own = generated(schema, known);
  const given = known.get(name);
  const typed = given === undefined ? own : fc.oneof(fc.constant(given), own);
  return fc.oneof({ weight: 8, arbitrary: typed }, { weight: 1, arbitrary: otherType });
}

const otherType = fc.constantFrom<unknown>(null, true, 0, -1, 1.5, 'x', [], {}, 1e308);

function generated(schema: Schema, known: KnownValues): fc.Arbitrary<unknown> {
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum, 'not-listed');
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (branches) return fc.oneof(...branches.map((b) => arbitraryOf(b, '', known)));
  switch (schema.type) {
    case 'object': {
      const properties = Object.entries<Schema>(schema.properties ?? {});
      if (properties.length === 0) {
        return fc.dictionary(
          fc.constantFrom('a', ...INHERITED_NAMES),
          fc.jsonValue({ maxDepth: 2 }),
          {
            maxKeys: 3,
          },
        );
      }
      return fc.record(
        Object.fromEntries(properties.map(([key, p]) => [key, arbitraryOf(p, key, known)])),
        { requiredKeys: [] },
      );
    }
    case 'array':
      return fc.array(arbitraryOf(schema.items ?? {}, '', known), { maxLength: 3 });
    case 'string': {
      const text: fc.Arbitrary<string>[] = [
        fc.string({ maxLength: 24 }),
        fc.constantFrom(...AWKWARD_TEXT),
      ];
      const matching = matchingPattern(schema);
      if (matching) text.push(matching);
      return fc.oneof(...text);
    }
    case 'integer':
    case 'number': {
      const min: number = schema.minimum ?? -1000;
      // Small, so that what a number sizes (generated fixtures) stays quick to make.
      const max: number = Math.min(schema.maximum ?? 1000, min + 20);
      const edges = [min - 1, min, ...(schema.maximum === undefined ? [] : [schema.maximum + 1])];
      const inside =
        schema.type === 'integer'
          ? fc.integer({ min, max })
          : fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
      return fc.oneof(inside, fc.constantFrom(...edges));
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}
