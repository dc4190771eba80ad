/**
 * YAML documents that people write by hand (fixtures, scenarios): parse errors and field
 * errors both come back with the file and line, so the message says where to look.
 */
import { type Document, isMap, isNode, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';
import { DURATION_SOURCE } from '../protocol/duration.ts';
import { type ErrorObject, fieldPath } from '../protocol/validator.ts';
import { nearestWord, withSuggestion } from './nearest-word.ts';
import { ownValue } from './own.ts';

export interface YamlSource {
  value: unknown;
  /** The line (1-based) of the node at a path like `timeline[2].alert.quorum`, or of its parent. */
  lineOf(path: string): number | undefined;
  /**
   * Where the thing at a path is written (1-based line and column): a field's key, a list's
   * item; for a missing one, its nearest enclosing node.
   */
  positionOf(path: string): { line: number; col: number } | undefined;
}

/** A YAML syntax error: the message carries `file:line:col`. */
export class YamlSyntaxError extends Error {
  override name = 'YamlSyntaxError';
}

export function parseYaml(text: string, file: string): YamlSource {
  const lineCounter = new LineCounter();
  let doc: Document;
  let value: unknown;
  try {
    doc = parseDocument(text, { lineCounter });
    if (doc.errors.length > 0) {
      const first = doc.errors[0]!;
      const at = first.linePos?.[0];
      throw new YamlSyntaxError(
        `badge-sim: ${file}${at ? `:${at.line}:${at.col}` : ''}: ${first.message.split('\n')[0]}`,
      );
    }
    // The yaml package refuses an alias bomb here (`ReferenceError: Excessive alias count`);
    // whatever it throws is this file's error, not a crash of the command (I17).
    value = doc.toJS();
  } catch (error) {
    if (error instanceof YamlSyntaxError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    throw new YamlSyntaxError(
      `badge-sim: ${file}: cannot read this document: ${message.split('\n')[0]}`,
    );
  }
  return {
    value,
    lineOf(path) {
      // A missing field has no node of its own: the nearest enclosing node gives the line.
      const segments = pathSegments(path);
      for (let n = segments.length; n >= 0; n--) {
        const node = doc.getIn(segments.slice(0, n), true);
        if (isNode(node) && node.range) return lineCounter.linePos(node.range[0]).line;
      }
      return undefined;
    },
    positionOf(path) {
      const segments = pathSegments(path);
      for (let n = segments.length; n > 0; n--) {
        const parent = n === 1 ? doc.contents : doc.getIn(segments.slice(0, n - 1), true);
        const last = segments[n - 1];
        const node = isMap(parent)
          ? parent.items.find(
              (pair) => String(isScalar(pair.key) ? pair.key.value : pair.key) === String(last),
            )?.key
          : isSeq(parent) && typeof last === 'number'
            ? parent.items[last]
            : undefined;
        if (isNode(node) && node.range) return lineCounter.linePos(node.range[0]);
      }
      const top = doc.contents;
      return isNode(top) && top.range ? lineCounter.linePos(top.range[0]) : undefined;
    },
  };
}

/** What a validator checked, for errors that name the innermost wrong thing and suggest a fix. */
export interface CheckedDocument {
  /** The schema the validator compiled (its errors' `schemaPath` points into it). */
  schema: object;
  /** The value it checked. */
  data: unknown;
}

/**
 * Ajv's errors as one sentence that names the field: the first error, and when it is one of
 * several allowed words (a union of literals), every word allowed there. Given what was
 * checked, the innermost error instead (a union's branches each fail; the one that got
 * deepest into the value names the wrong thing, not "must be array" at the top), and the
 * nearest valid word for an unknown field or a wrong word.
 */
export function describeError(
  errors: ErrorObject[],
  prefix = '',
  checked?: CheckedDocument,
): { path: string; message: string } {
  const first = checked ? innermost(errors) : errors[0]!;
  const error = checked ? misspeltInstead(first, checked) : first;
  const path = fieldPath(error, prefix);
  let detail = error.message ?? 'is invalid';
  if (error.keyword === 'required') detail = 'is required';
  if (error.keyword === 'additionalProperties') {
    detail = 'is not a field here';
    if (checked) {
      const word = String(error.params.additionalProperty);
      detail = withSuggestion(
        detail,
        word,
        fieldsAllowed(errors, error, checked.schema),
        'fields here',
      );
    }
  }
  if (error.keyword === 'pattern' && String(error.params.pattern).includes(DURATION_SOURCE)) {
    detail = 'must be a duration such as 30s, 5m, 2h, 1m30s or 1500ms';
  }
  if (error.keyword === 'enum' || error.keyword === 'const') {
    const allowed = new Set<unknown>();
    for (const e of errors) {
      if (e.instancePath !== error.instancePath) continue;
      if (e.keyword === 'enum') for (const v of e.params.allowedValues) allowed.add(v);
      if (e.keyword === 'const') allowed.add(e.params.allowedValue);
    }
    detail = `must be one of: ${[...allowed].join(', ')}`;
    const value = checked && valueAt(checked.data, error.instancePath);
    const words = [...allowed].filter((w): w is string => typeof w === 'string');
    const nearest = typeof value === 'string' ? nearestWord(value, words) : undefined;
    if (nearest !== undefined) detail += `; did you mean ${nearest}?`;
  }
  // The unknown field named in place of a missing one that it is not a slip of: both are
  // mistakes, the slip first (it is often why the file looks right to its writer).
  const missing = error === first ? undefined : String(first.params.missingProperty);
  const slip = String(error.params.additionalProperty);
  if (missing !== undefined && nearestWord(slip, [missing]) === undefined)
    detail += `${detail.endsWith('?') ? '' : '.'} Also: ${fieldPath(first, prefix)} is required.`;
  return { path, message: `${path || '(document)'} ${detail}` };
}

/**
 * The error deepest in the value (an unknown field counts as one level below its object, and
 * of equals it is the one named: it is what was written wrong); the first of equals.
 */
function innermost(errors: ErrorObject[]): ErrorObject {
  const depth = (e: ErrorObject) =>
    (e.instancePath === '' ? 0 : e.instancePath.split('/').length - 1) +
    (e.keyword === 'additionalProperties' ? 1.5 : e.keyword === 'required' ? 1 : 0);
  let best = errors[0]!;
  for (const e of errors) {
    if (e.keyword === 'anyOf' || e.keyword === 'oneOf') continue;
    if (depth(e) > depth(best) || best.keyword === 'anyOf') best = e;
  }
  return best;
}

/**
 * A required field missing next to an unknown one: the unknown field is the mistake to name
 * first, whether it is a slip of the missing one's name (`prove:` for `proves:`) or of another
 * field's (`duraton:` beside a missing `proves:`, issue 31). Ajv stops at the first error, so
 * it reports only the missing one.
 */
function misspeltInstead(error: ErrorObject, checked: CheckedDocument): ErrorObject {
  if (error.keyword !== 'required') return error;
  const missing = String(error.params.missingProperty);
  const value = valueAt(checked.data, error.instancePath);
  if (!value || typeof value !== 'object' || Array.isArray(value)) return error;
  const unknown: ErrorObject = {
    ...error,
    keyword: 'additionalProperties',
    schemaPath: error.schemaPath.replace(/\/required$/, '/additionalProperties'),
  };
  const known = new Set(fieldsAllowed([], unknown, checked.schema));
  const unknownKeys = Object.keys(value).filter((key) => !known.has(key));
  const slip =
    unknownKeys.find((key) => nearestWord(key, [missing]) !== undefined) ?? unknownKeys[0];
  if (slip === undefined) return error;
  return { ...unknown, params: { additionalProperty: slip } };
}

/** The fields of every branch that refused this unknown field at this place. */
function fieldsAllowed(errors: ErrorObject[], error: ErrorObject, schema: object): string[] {
  const fields = new Set<string>();
  for (const e of [error, ...errors]) {
    if (e.keyword !== 'additionalProperties' || e.instancePath !== error.instancePath) continue;
    // A schema path is a URI fragment: `patternProperties/%5E.*%24`.
    const segments = e.schemaPath
      .split('/')
      .slice(1, -1)
      .map(decodeURIComponent)
      .map(unescapePointer);
    const parent = segments.reduce<unknown>((node, s) => ownValue(node, s), schema);
    const properties = ownValue(parent, 'properties');
    if (properties && typeof properties === 'object')
      for (const name of Object.keys(properties)) fields.add(name);
  }
  return [...fields];
}

/** The value at a JSON pointer of Ajv's (`/timeline/2/alert`), own properties only. */
function valueAt(data: unknown, pointer: string): unknown {
  return pointer
    .split('/')
    .slice(1)
    .map(unescapePointer)
    .reduce<unknown>((node, s) => ownValue(node, s), data);
}

function unescapePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

function pathSegments(path: string): (string | number)[] {
  return path
    .split(/\.|\[|\]/)
    .filter(Boolean)
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}
