// The validators the installed package would compile at run time, compiled now (issue 28:
// start-up). Ajv writes a schema's validator as JavaScript source; a stub's start compiles the
// fixtures' schema, a scenario run the scenario's and those of the routes and frames it uses,
// a few hundred ms of CPU. The build runs that work once with dist/'s own modules (every
// catalogue scenario loaded and run, in this process, on the virtual clock), asks
// protocol/validator.ts which schemas were compiled, and writes Ajv's standalone code of each
// into dist/protocol/validators.prebuilt.js, named by the hash of the schema's text: a process
// that meets the same schema takes the prebuilt function. A schema that changed has another
// hash and is compiled as before: a prebuilt validator is never stale, only absent.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Writes dist/protocol/validators.prebuilt.js; how many validators it holds. */
export async function prebuildValidators(dist) {
  const load = (path) => import(pathToFileURL(join(dist, path)).href);
  const validator = await load('protocol/validator.js');
  const { findScenarioFiles } = await load('scenarios/run-suite.js');
  const { loadScenarioFile } = await load('scenarios/load-scenario.js');
  const { runScenario } = await load('scenarios/run-scenario.js');
  for (const file of findScenarioFiles([])) {
    // Whether it passes is the tests' business: here it only has to use its schemas.
    await runScenario(loadScenarioFile(file)).catch(() => undefined);
  }
  const { Ajv, _ } = await import('ajv');
  const addFormats = (await import('ajv-formats')).default;
  const standaloneCode = (await import('ajv/dist/standalone/index.js')).default.default;
  const parts = [];
  const entries = [];
  for (const unknownFields of ['reject', 'ignore']) {
    const texts = [
      ...new Set(
        validator
          .schemasUsed()
          .filter((s) => s.unknownFields === unknownFields)
          .map((s) => s.schemaText),
      ),
    ];
    if (texts.length === 0) continue;
    const ajv = addFormats(
      new Ajv({
        ...validator.ajvOptions(unknownFields),
        code: { source: true, formats: _`require("ajv-formats/dist/formats").fullFormats` },
      }),
    );
    const names = {};
    texts.forEach((text, i) => {
      ajv.addSchema(JSON.parse(text), `${unknownFields}${i}`);
      names[`v${i}`] = `${unknownFields}${i}`;
      entries.push([validator.prebuiltKey(unknownFields, text), `${unknownFields}.v${i}`]);
    });
    // CommonJS code (`exports.v0 = …`), kept in a function of its own: the two Ajv instances
    // name their functions alike.
    parts.push(
      `const ${unknownFields} = (() => {\nconst exports = {};\n${standaloneCode(ajv, names)}\nreturn exports;\n})();`,
    );
  }
  writeFileSync(
    join(dist, 'protocol/validators.prebuilt.js'),
    [
      '// Written by `npm run build` (scripts/prebuild-validators.mjs): do not edit.',
      "import { createRequire } from 'node:module';",
      'const require = createRequire(import.meta.url);',
      ...parts,
      `export const PREBUILT = {\n${entries.map(([key, value]) => `  ${JSON.stringify(key)}: ${value},`).join('\n')}\n};`,
      '',
    ].join('\n'),
  );
  return entries.length;
}
