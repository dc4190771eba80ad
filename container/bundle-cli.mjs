// Bundles the badge-sim CLI into one JavaScript file (dist/badge-sim.mjs) for the container:
// no TypeScript loader at run time and one file to read instead of hundreds, so the stub is
// ready sooner. Packages stay external (node_modules). esbuild comes with tsx.
// Run: node container/bundle-cli.mjs
import { build } from 'esbuild';

const started = performance.now();
await build({
  entryPoints: ['cli/badge-sim.ts'],
  outfile: 'dist/badge-sim.mjs',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  // dist/ sits one level below the package root, like the sources: paths made with
  // new URL('../fixtures/…', import.meta.url) resolve the same from both.
  logLevel: 'warning',
});
console.log(`bundled dist/badge-sim.mjs in ${Math.round(performance.now() - started)} ms`);
