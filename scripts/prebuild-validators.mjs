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
  const { findScenarioFiles } = await load('scenarios/runner/run-suite.js');
  const { loadScenarioFile } = await load('scenarios/format/load-scenario.js');
  const { runScenario } = await load('scenarios/runner/run-scenario.js');
  for (const file of findScenarioFiles([])) {
    // Whether it passes is the tests' business: here it only has to use its schemas.
    await runScenario(loadScenarioFile(file)).catch(() => undefined);
  }
  const { Ajv, _ } = await import('ajv');
  const addFormats = (await import('ajv-formats')).default;
  const standaloneCode = (await import('ajv/dist/standalone/index.js')).default.default;
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
    texts.forEach((text, i) => {
      ajv.addSchema(JSON.parse(text), `${unknownFields}${i}`);
      // CommonJS code (`exports.validate = …`), each validator in a function of its own that
      // runs when it is first asked for: a process evaluates (and a code cache holds) only the
      // validators it uses, not the megabyte of all of them (issue 28: start-up).
      entries.push([
        validator.prebuiltKey(unknownFields, text),
        `() => {\nconst exports = {};\n${standaloneCode(ajv, { validate: `${unknownFields}${i}` })}\nreturn exports.validate;\n}`,
      ]);
    });
  }
  writeFileSync(
    join(dist, 'protocol/validators.prebuilt.js'),
    [
      '// Written by `npm run build` (scripts/prebuild-validators.mjs): do not edit.',
      "import { createRequire } from 'node:module';",
      'const require = createRequire(import.meta.url);',
      '/** A getter that makes its validator when first read, once. */',
      'const once = (make) => { let made; return () => (made ??= make()); };',
      'export const PREBUILT = Object.defineProperties({}, {',
      ...entries.map(
        ([key, make]) => `  ${JSON.stringify(key)}: { enumerable: true, get: once(${make}) },`,
      ),
      '});',
      '',
    ].join('\n'),
  );
  return entries.length;
}
