// The dashboard's one script: dashboard/main.ts and what it imports, bundled by esbuild into
// one file with no import left (the page asks the stub for nothing else). `npm run build` writes
// it to dist/dashboard/app.js; a stub run from the sources bundles it in memory on first use.
// esbuild is a devDependency: the installed package and the image never load it.
import { fileURLToPath } from 'node:url';

export const DASHBOARD_ENTRY = fileURLToPath(new URL('./main.ts', import.meta.url));

/** The bundle's text. Only this source-only file imports esbuild: dist/ never does. */
export async function bundleDashboard() {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [DASHBOARD_ENTRY],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    legalComments: 'none',
    write: false,
  });
  return result.outputFiles[0].text;
}
