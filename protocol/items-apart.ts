/**
 * A large document checked by several compiled validators instead of one: the schema with the
 * items of its large arrays left open, then each item by its own validator. V8 optimises no
 * function past its bytecode limit (`--max-optimized-bytecode-size`), and Ajv's one function
 * for a schema as large as a snapshot's is past it, so it ran interpreted: a 1,000-badge fleet
 * snapshot took ~56 ms to check whole and ~6 ms in parts (bench:fleet-snapshot). The first error
 * found is the one a single validator reports when the document has one fault; its path is
 * where it lies in the whole document.
 */
import type { ErrorObject } from 'ajv';
import { validatorOf } from './validator.ts';

/** The property names from the document's root to one of its arrays: `['engine', 'tasks']`. */
export type ArrayPath = readonly string[];

type SchemaNode = { properties?: Record<string, SchemaNode>; items?: unknown } & Record<
  string,
  unknown
>;

/**
 * A check of `schema` that validates the arrays at `arrays` an item at a time: the first error,
 * or `undefined` when the document is valid. The arrays lie in objects the schema declares
 * (`properties`), none inside another.
 */
export function validatorWithItemsApart(
  schema: object,
  arrays: readonly ArrayPath[],
): (data: unknown) => ErrorObject | undefined {
  let root = schema as SchemaNode;
  const items = arrays.map((path) => {
    const itemSchema = nodeAt(root, path).items as object;
    root = withItemsOpen(root, path);
    return { path, validate: validatorOf(itemSchema) };
  });
  const validateRoot = validatorOf(root);
  return (data) => {
    if (!validateRoot(data)) return validateRoot.errors![0];
    for (const { path, validate } of items) {
      const list = path.reduce((node, name) => (node as Record<string, unknown>)[name], data);
      const where = `/${path.join('/')}`;
      for (let i = 0; i < (list as unknown[]).length; i++) {
        if (!validate((list as unknown[])[i])) {
          const error = validate.errors![0]!;
          return { ...error, instancePath: `${where}/${i}${error.instancePath}` };
        }
      }
    }
    return undefined;
  };
}

function nodeAt(schema: SchemaNode, path: ArrayPath): SchemaNode {
  return path.reduce((node, name) => {
    const child = node.properties?.[name];
    if (!child) throw new Error(`items-apart: the schema declares no ${path.join('.')}`);
    return child;
  }, schema);
}

/** A copy of `schema` along `path` (the rest shared) whose array there takes any item. */
function withItemsOpen(schema: SchemaNode, path: ArrayPath): SchemaNode {
  if (path.length === 0) return { ...schema, items: {} };
  const [name, ...rest] = path as [string, ...string[]];
  return {
    ...schema,
    properties: { ...schema.properties, [name]: withItemsOpen(nodeAt(schema, [name]), rest) },
  };
}
