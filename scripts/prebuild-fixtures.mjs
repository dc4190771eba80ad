// The default fixtures' document, read now (issue 28: start-up): every `badge-sim run` of a
// scenario on the default fixtures parsed their YAML. Written into
// dist/fixtures/default-fixtures.prebuilt.js with the SHA-256 of the file's text, read by
// dist/'s own YAML reader; a file whose text has another hash is parsed as before.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Writes dist/fixtures/default-fixtures.prebuilt.js from dist/fixtures/default.fixtures.yaml. */
export async function prebuildDefaultFixtures(dist) {
  const { parseYaml } = await import(pathToFileURL(join(dist, 'input/yaml-source.js')).href);
  const file = join(dist, 'fixtures/default.fixtures.yaml');
  const text = readFileSync(file, 'utf8');
  const prebuilt = {
    sha256: createHash('sha256').update(text).digest('hex'),
    json: JSON.stringify(parseYaml(text, file).value),
  };
  writeFileSync(
    join(dist, 'fixtures/default-fixtures.prebuilt.js'),
    [
      '// Written by `npm run build` (scripts/prebuild-fixtures.mjs): do not edit.',
      `export const DEFAULT_FIXTURES_PREBUILT = ${JSON.stringify(prebuilt)};`,
      '',
    ].join('\n'),
  );
}
