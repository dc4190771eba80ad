// `npm run build`: the package's JavaScript, declarations and source maps in dist/, and beside
// them the files the code reads at run time. The compiled modules find those files with
// new URL('../fixtures/…', import.meta.url), as the sources do, so dist/ mirrors the source tree.
// Run: node scripts/build-package.mjs
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
/**
 * Read at run time: the default fixtures, the scenario catalogue and its JSON schema, the HTML
 * report's page (CSS and plain JavaScript, inlined into each report); the image's health check
 * (plain JavaScript the Dockerfile runs from dist/); the dashboard's page and stylesheets (its
 * script is bundled below).
 */
const ASSETS = [
  'container/healthcheck.mjs',
  'dashboard/base.css',
  'dashboard/index.html',
  'dashboard/style.css',
  'fixtures/default.fixtures.yaml',
  'scenarios/catalogue',
  'scenarios/reports/html-report',
  'scenarios/scenario.schema.json',
];

const started = performance.now();
// A file removed from the sources must not live on in the package.
rmSync(dist, { recursive: true, force: true });
const tsc = join(dirname(fileURLToPath(import.meta.resolve('typescript/package.json'))), 'bin/tsc');
const compiled = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], {
  stdio: 'inherit',
});
if (compiled.status !== 0) {
  console.error('badge-sim build: tsc failed');
  process.exit(compiled.status ?? 1);
}
for (const asset of ASSETS) cpSync(join(root, asset), join(dist, asset), { recursive: true });
// The device protocol's AsyncAPI document, generated from the frame schemas just compiled
// (protocol/device-protocol.asyncapi.ts): export `badge-sim/asyncapi.json`.
const { deviceProtocolAsyncApi } = await import(
  pathToFileURL(join(dist, 'protocol/device-protocol.asyncapi.js')).href
);
writeFileSync(
  join(dist, 'asyncapi.json'),
  `${JSON.stringify(deviceProtocolAsyncApi(), null, 2)}\n`,
);
// The default fixtures' document, read now (fixtures/default-fixtures.prebuilt.ts).
const { prebuildDefaultFixtures } = await import('./prebuild-fixtures.mjs');
await prebuildDefaultFixtures(dist);
// The validators a stub and the scenarios compile, compiled now (scripts/prebuild-validators.mjs).
const { prebuildValidators } = await import('./prebuild-validators.mjs');
const prebuilt = await prebuildValidators(dist);
// The serializers of the answers the catalogue's stubs sent (scripts/prebuild-serializers.mjs).
const { prebuildSerializers } = await import('./prebuild-serializers.mjs');
const serializers = await prebuildSerializers(dist);
// The command: bundled (scripts/bundle-cli.mjs) in place of tsc's modules of cli/, which
// nothing else imports.
rmSync(join(dist, 'cli'), { recursive: true, force: true });
const { bundleCli } = await import('./bundle-cli.mjs');
const cli = await bundleCli(root, dist);
// The trace viewer's page (CSS and plain JavaScript, inlined into each page it makes), where
// the bundle looks for it: beside its source's place in dist/cli/.
cpSync(join(root, 'cli/show-trace/page'), join(dist, 'cli/show-trace/page'), { recursive: true });
// The dashboard's script, bundled now: the package and the image serve it without esbuild.
const { bundleDashboard } = await import('../dashboard/bundle.mjs');
mkdirSync(join(dist, 'dashboard'), { recursive: true });
writeFileSync(join(dist, 'dashboard/app.js'), await bundleDashboard());
// `run` and `stub` once, each writing its code cache (decision Q18).
const { writeCommandCodeCaches } = await import('./bundle-cli.mjs');
await writeCommandCodeCaches(dist);
console.log(
  `badge-sim build: dist/ in ${Math.round(performance.now() - started)} ms (${prebuilt} validators and ${serializers} serializers prebuilt; the command: ${cli.chunks} files, ${(cli.bytes / 1024 / 1024).toFixed(1)} MiB)`,
);
