/**
 * YAML documents that people write by hand (fixtures, scenarios): parse errors and field
 * errors both come back with the file and line, so the message says where to look.
 */
import { type Document, isNode, LineCounter, parseDocument } from 'yaml';
import { DURATION_SOURCE } from './duration.ts';
import { type ErrorObject, fieldPath } from './validator.ts';

export interface YamlSource {
  value: unknown;
  /** The line (1-based) of the node at a path like `timeline[2].alert.quorum`, or of its parent. */
  lineOf(path: string): number | undefined;
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
  };
}

/**
 * Ajv's errors as one sentence that names the field: the first error, and when it is one of
 * several allowed words (a union of literals), every word allowed there.
 */
export function describeError(
  errors: ErrorObject[],
  prefix = '',
): { path: string; message: string } {
  const error = errors[0]!;
  const path = fieldPath(error, prefix);
  let detail = error.message ?? 'is invalid';
  if (error.keyword === 'required') detail = 'is required';
  if (error.keyword === 'additionalProperties') detail = 'is not a field here';
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
  }
  return { path, message: `${path || '(document)'} ${detail}` };
}

function pathSegments(path: string): (string | number)[] {
  return path
    .split(/\.|\[|\]/)
    .filter(Boolean)
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}
