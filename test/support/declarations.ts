/**
 * What a package's declarations show a user: starting from the `types` file of each entry point
 * in its `exports`, every declaration that an exported name refers to, through imports between
 * the package's own `.d.ts` files, however deep. A declaration reached that way and exported by
 * no entry point is a leak: the user sees it in a hover or an error but cannot import it by name.
 *
 * It reads `.d.ts` files as tsc writes them: each top-level statement starts at column 0 and
 * continues on indented lines (and its closing bracket), so no TypeScript parser is needed.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

/** A declaration: `file#name`, the file relative to the package root. */
type DeclarationKey = `${string}#${string}`;

interface DeclarationFile {
  /** Top-level declarations by name (overloads and merged declarations joined). */
  declarations: Map<string, string>;
  /** Local names bound by `import … from './…'` (or re-exported from there), to their origin. */
  imports: Map<string, { file: string; name: string }>;
  /** Exported name → local name, for `export { a as b }` and `export declare …`. */
  exports: Map<string, string>;
  /** Exported name → origin, for `export { a } from './…'`. */
  reexports: Map<string, { file: string; name: string }>;
  /** `export * from './…'` and `export type * from './…'`: every name those export. */
  stars: string[];
  /** `declare module 'vitest' { … }`: what the package adds to another module's types. */
  augmentations: string[];
}

const DECLARATION =
  /^(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?(?:class|interface|type|function|const|let|var|enum|namespace)\s+([\w$]+)/;
const NAMED_LIST = /^(import|export)\s+(?:type\s+)?\{([^}]*)\}\s*(?:from\s+['"]([^'"]+)['"])?/;
const STAR = /^export\s+(?:type\s+)?\*\s+from\s+['"](\.[^'"]+)['"]/;
const IDENTIFIER = /[A-Za-z_$][\w$]*/g;
/** The name under which a module augmentation is walked: it has none of its own. */
const AUGMENTATION = '(augmentation)';
const INLINE_IMPORT = /import\(["'](\.[^"']+)["']\)\.([\w$]+)/g;

function toDeclarationFile(from: string, specifier: string): string {
  return join(dirname(from), specifier).replace(/\.(d\.ts|ts|js|mts|mjs)$/, '.d.ts');
}

function parseNames(list: string): Array<{ name: string; alias: string }> {
  return list
    .split(',')
    .map((part) => part.trim().replace(/^type\s+/, ''))
    .filter(Boolean)
    .map((part) => {
      const [name, alias] = part.split(/\s+as\s+/) as [string, string?];
      return { name, alias: alias ?? name };
    });
}

function withoutComments(code: string): string {
  return code.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
}

function parse(file: string): DeclarationFile {
  const parsed: DeclarationFile = {
    declarations: new Map(),
    imports: new Map(),
    exports: new Map(),
    reexports: new Map(),
    augmentations: [],
    stars: [],
  };
  const statements: string[] = [];
  for (const line of withoutComments(readFileSync(file, 'utf8')).split('\n')) {
    if (/^[A-Za-z]/.test(line) || statements.length === 0) statements.push(line);
    else statements[statements.length - 1] += `\n${line}`;
  }
  for (const statement of statements) {
    const list = NAMED_LIST.exec(statement.replace(/\s+/g, ' '));
    if (list) {
      const [, keyword, names, specifier] = list as unknown as [string, string, string, string?];
      const origin = specifier?.startsWith('.') ? toDeclarationFile(file, specifier) : undefined;
      for (const { name, alias } of parseNames(names)) {
        if (keyword === 'import') {
          if (origin) parsed.imports.set(alias, { file: origin, name });
        } else if (origin) parsed.reexports.set(alias, { file: origin, name });
        else if (!specifier) parsed.exports.set(alias, name);
      }
      continue;
    }
    const star = STAR.exec(statement);
    if (star) {
      parsed.stars.push(toDeclarationFile(file, star[1]!));
      continue;
    }
    if (/^declare (module|global)\b/.test(statement)) {
      parsed.augmentations.push(statement);
      continue;
    }
    const declared = DECLARATION.exec(statement);
    if (!declared) continue;
    const name = declared[1]!;
    parsed.declarations.set(name, `${parsed.declarations.get(name) ?? ''}\n${statement}`);
    if (statement.startsWith('export')) parsed.exports.set(name, name);
  }
  return parsed;
}

export interface DeclarationReport {
  /** Declarations that some entry point exports, under any name. */
  exported: Set<DeclarationKey>;
  /** Every declaration of the package a user's types reach, with the one that reached it first. */
  reached: Map<DeclarationKey, string>;
  /**
   * Reached, exported from its own module, but by no entry point: what a user sees and cannot
   * name. (A helper the module does not export, such as a mapped type, is read through.)
   */
  leaked: Array<{ declaration: DeclarationKey; via: string }>;
  /** Declaration files read. */
  files: number;
  /** Each entry point's subpath (`.`, `./vitest`, …) and its `types` file, relative to the root. */
  entries: Map<string, string>;
  /**
   * What a `.d.ts` file (relative to the root) exports: each name, the declaration it leads to,
   * and whether that declares a type by an interface or a type alias (a class does not count;
   * a TypeBox schema and its type of the same name does).
   */
  exportsOf(file: string): Map<string, { declaration: DeclarationKey; declaresType: boolean }>;
}

/** Walks the declarations of the unpacked package at `root` (the folder of its package.json). */
export function walkDeclarations(root: string): DeclarationReport {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const parsedFiles = new Map<string, DeclarationFile>();
  const read = (file: string): DeclarationFile => {
    let parsed = parsedFiles.get(file);
    if (!parsed) {
      parsed = parse(file);
      parsedFiles.set(file, parsed);
    }
    return parsed;
  };
  const keyOf = (file: string, name: string): DeclarationKey => `${relative(root, file)}#${name}`;

  /** The names a module exports, its `export *` included. */
  const exportedNames = (file: string, depth = 0): Set<string> => {
    const parsed = read(file);
    const names = new Set([...parsed.exports.keys(), ...parsed.reexports.keys()]);
    if (depth < 50)
      for (const star of parsed.stars)
        for (const name of exportedNames(star, depth + 1)) if (name !== 'default') names.add(name);
    return names;
  };

  /** Follows imports and re-exports to the file that declares `name`. */
  const origin = (file: string, name: string, depth = 0): { file: string; name: string } => {
    const parsed = read(file);
    const next = parsed.reexports.get(name) ?? parsed.imports.get(parsed.exports.get(name) ?? name);
    if (next && depth < 50) return origin(next.file, next.name, depth + 1);
    if (!parsed.exports.has(name) && !parsed.declarations.has(name) && depth < 50) {
      const star = parsed.stars.find((candidate) => exportedNames(candidate).has(name));
      if (star) return origin(star, name, depth + 1);
    }
    return { file, name: parsed.exports.get(name) ?? name };
  };

  const entries = new Map<string, string>();
  const exported = new Set<DeclarationKey>();
  const reached = new Map<DeclarationKey, string>();
  const queue: Array<{ file: string; name: string; via: string }> = [];
  for (const [subpath, conditions] of Object.entries<unknown>(manifest.exports ?? {})) {
    const types =
      typeof conditions === 'object' && conditions !== null
        ? (conditions as { types?: unknown }).types
        : undefined;
    if (typeof types !== 'string') continue;
    const entry = join(root, types);
    entries.set(subpath, types.replace(/^\.\//, ''));
    for (const name of exportedNames(entry)) {
      const declared = origin(entry, name);
      exported.add(keyOf(declared.file, declared.name));
      queue.push({ ...declared, via: `${subpath} exports ${name}` });
    }
  }

  const augmented = new Set<string>();
  while (queue.length > 0) {
    const { file, name, via } = queue.shift()!;
    if (!augmented.has(file)) {
      augmented.add(file);
      read(file).augmentations.forEach((_, index) => {
        queue.push({
          file,
          name: `${AUGMENTATION}${index}`,
          via: `${relative(root, file)}, loaded`,
        });
      });
    }
    const key = keyOf(file, name);
    if (reached.has(key)) continue;
    reached.set(key, via);
    const parsed = read(file);
    const text = name.startsWith(AUGMENTATION)
      ? parsed.augmentations[Number(name.slice(AUGMENTATION.length))]
      : parsed.declarations.get(name);
    if (text === undefined) continue;
    const here = `${key} (${via})`;
    for (const [, specifier, imported] of text.matchAll(INLINE_IMPORT))
      queue.push({ ...origin(toDeclarationFile(file, specifier!), imported!), via: here });
    for (const [identifier] of text.replace(INLINE_IMPORT, '').matchAll(IDENTIFIER)) {
      if (identifier === name) continue;
      if (parsed.imports.has(identifier)) {
        const from = parsed.imports.get(identifier)!;
        queue.push({ ...origin(from.file, from.name), via: here });
      } else if (parsed.declarations.has(identifier))
        queue.push({ file, name: identifier, via: here });
    }
  }

  const isExportedByItsModule = (declaration: DeclarationKey): boolean => {
    const [file, name] = declaration.split('#') as [string, string];
    return [...read(join(root, file)).exports.values()].includes(name);
  };
  const leaked = [...reached]
    .filter(
      ([declaration]) =>
        !exported.has(declaration) &&
        !declaration.includes(`#${AUGMENTATION}`) &&
        isExportedByItsModule(declaration),
    )
    .map(([declaration, via]) => ({ declaration, via }));
  const exportsOf: DeclarationReport['exportsOf'] = (file) => {
    const absolute = join(root, file);
    const names = new Map<string, { declaration: DeclarationKey; declaresType: boolean }>();
    for (const name of exportedNames(absolute)) {
      const declared = origin(absolute, name);
      const text = read(declared.file).declarations.get(declared.name) ?? '';
      const declaresType = /^(?:export\s+)?(?:declare\s+)?(?:interface|type)\s/m.test(text);
      names.set(name, { declaration: keyOf(declared.file, declared.name), declaresType });
    }
    return names;
  };
  return { exported, reached, leaked, files: parsedFiles.size, entries, exportsOf };
}
