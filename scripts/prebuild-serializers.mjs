// The serializers of the answers a stub sends, written now (issue 28: start-up): fast-json-
// stringify compiles a response schema into a function when a route first answers with it,
// and a schema with unions makes an Ajv and compiles their branches too, some 100 ms of a
// one-scenario run. Called after prebuild-validators.mjs has run the catalogue in this
// process: every schema its stubs answered with, and the health check's (what a started stub
// is first asked), is written as fast-json-stringify's standalone code, its validators inlined,
// into dist/server-stub/serializers.prebuilt.js, named by the hash of the schema's text. Each
// is made when first asked for. A schema that changed has another hash and is compiled as
// before: a prebuilt serializer is never stale, only absent.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Writes dist/server-stub/serializers.prebuilt.js; how many serializers it holds. */
export async function prebuildSerializers(dist) {
  const load = (path) => import(pathToFileURL(join(dist, path)).href);
  const serializers = await load('server-stub/response-serializers.js');
  const { startStub } = await load('server-stub/start-stub.js');
  // What a started stub is first asked (the bench, the image's health check, fleets).
  const stub = await startStub({ port: 0 });
  try {
    // Over HTTP: a started stub sets each answer's socket timeout, which inject() lacks.
    const health = await fetch(`${stub.url}/_stub/health`);
    if (!health.ok) throw new Error(`GET /_stub/health answered ${health.status}`);
  } finally {
    await stub[Symbol.asyncDispose]();
  }
  const fastJson = (await import('fast-json-stringify')).default;
  const { _ } = await import('ajv');
  const entries = serializers.serializerSchemasUsed().map((text) => {
    const code = fastJson(JSON.parse(text), {
      mode: 'standalone',
      inlineValidators: true,
      ajv: { code: { formats: _`require("ajv-formats/dist/formats").fullFormats` } },
    });
    // CommonJS code (`module.exports = …`), run when the serializer is first asked for.
    return `  ${JSON.stringify(serializers.prebuiltSerializerKey(text))}: () => {\nconst module = { exports: {} };\n${code}\nreturn module.exports;\n},`;
  });
  writeFileSync(
    join(dist, 'server-stub/serializers.prebuilt.js'),
    [
      '// Written by `npm run build` (scripts/prebuild-serializers.mjs): do not edit.',
      "import { createRequire } from 'node:module';",
      'const require = createRequire(import.meta.url);',
      `export const PREBUILT_SERIALIZERS = {\n${entries.join('\n')}\n};`,
      '',
    ].join('\n'),
  );
  return entries.length;
}
