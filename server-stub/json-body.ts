/**
 * JSON request bodies, read so that nothing a client sends can crash, wedge or mislead the
 * stub: nesting is bounded before the text is parsed (a parser or validator that recurses
 * cannot overflow its stack), and a `__proto__` key is refused naming where it is, rather than
 * being taken for invalid JSON.
 */
import { HttpError } from './http-errors.ts';

/** The deepest nesting of arrays and objects a JSON body may have (the body itself is 1). */
const MAX_JSON_DEPTH = 32;

/**
 * The nesting of a JSON text, scanned without parsing; stops at the first container deeper
 * than `limit` and returns where it is: the top-level field holding it (or `body`).
 */
function tooDeep(text: string, limit = MAX_JSON_DEPTH): string | undefined {
  let depth = 0;
  let inString = false;
  let stringStart = 0;
  let topKey: string | undefined;
  let topIsObject = false;
  let expectTopKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) {
        inString = false;
        if (expectTopKey) {
          topKey = text.slice(stringStart + 1, i);
          expectTopKey = false;
        }
      }
      continue;
    }
    if (c === 0x22) {
      inString = true;
      stringStart = i;
    } else if (c === 0x7b || c === 0x5b) {
      depth++;
      if (depth > limit) return topKey === undefined ? 'body' : topKey || '""';
      if (depth === 1) {
        topIsObject = c === 0x7b;
        expectTopKey = topIsObject;
      }
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    } else if (c === 0x2c && depth === 1) {
      expectTopKey = topIsObject;
    } else if (c === 0x3a && depth === 1) {
      expectTopKey = false;
    }
  }
  return undefined;
}

/**
 * Parses a JSON body: too deep → 400 `too_deep`; not JSON → 400 `invalid_json`; a `__proto__`
 * key anywhere → 400 `invalid_field` naming its path. All with the stub's error body.
 */
export function parseJsonBody(text: string): unknown {
  const deep = tooDeep(text);
  if (deep !== undefined) {
    throw new HttpError(
      400,
      'too_deep',
      `${deep} nests arrays and objects more than ${MAX_JSON_DEPTH} deep`,
      deep,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HttpError(
      400,
      'invalid_json',
      "Body is not valid JSON but content-type is set to 'application/json'",
      'body',
    );
  }
  // JSON.parse makes `__proto__` an own key; a merge elsewhere would not. Refused, named.
  if (text.includes('__proto__')) {
    const at = protoKeyPath(value);
    if (at !== undefined) {
      throw new HttpError(400, 'invalid_field', `${at} is not a field of this request`, at);
    }
  }
  return value;
}

/** The path of the first `__proto__` key in a parsed value (bounded depth: iterative anyway). */
function protoKeyPath(value: unknown): string | undefined {
  const stack: [unknown, string][] = [[value, '']];
  while (stack.length > 0) {
    const [node, path] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (Array.isArray(node)) {
      node.forEach((item, i) => {
        stack.push([item, `${path}[${i}]`]);
      });
      continue;
    }
    for (const key of Object.keys(node)) {
      const at = path ? `${path}.${key}` : key;
      if (key === '__proto__') return at;
      stack.push([(node as Record<string, unknown>)[key], at]);
    }
  }
  return undefined;
}
