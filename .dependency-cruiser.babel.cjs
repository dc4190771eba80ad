/**
 * How dependency-cruiser reads the TypeScript sources (.dependency-cruiser.cjs): Babel strips
 * the types, since TypeScript 7 (the project's compiler) offers no JavaScript API to parse
 * with. A type-only import is a dependency too (a layer that names another's types depends on
 * it), so this plugin first makes every `import type` / `export type … from` a plain one,
 * which the preset then keeps (`onlyRemoveTypeImports`).
 */
function keepTypeImports() {
  const asValue = (path) => {
    path.node.importKind = 'value';
    path.node.exportKind = 'value';
    for (const specifier of path.node.specifiers ?? []) {
      specifier.importKind = 'value';
      specifier.exportKind = 'value';
    }
  };
  // On entering the program: the preset drops type-only imports there, before it visits them.
  return {
    visitor: {
      Program(program) {
        program.traverse({
          ImportDeclaration: asValue,
          ExportNamedDeclaration: (path) => {
            if (path.node.source) asValue(path);
          },
        });
      },
    },
  };
}

module.exports = {
  plugins: [keepTypeImports],
  presets: [['@babel/preset-typescript', { onlyRemoveTypeImports: true }]],
};
