// The `badge-sim` command as the package runs it: cli/badge-sim.ts and everything it imports,
// its dependencies too, bundled by esbuild into dist/cli/ (issue 28: start-up). Node loads a
// few files instead of some six hundred modules (TypeBox alone is 373 files), and what a
// command does not use is not in its chunks: each command is a chunk of its own, loaded by the
// dynamic import of cli/command-loaders.ts; `run` and `stub` share one CommonJS bundle instead, which
// each compiles with a V8 code cache written here by running it once (decision Q18). The library (dist/index.js and the other entry points)
// stays unbundled: this is only the command.
//
// A bundled module's `import.meta.url` is its chunk's; badge-sim's modules find the files
// beside them (fixtures, the catalogue, the report's page, the dashboard, the fleet's worker)
// from their own URL, so each of those is rewritten to the URL of the module's compiled file
// in dist/, where tsc put it and those files sit.
import { isAscii } from 'node:buffer';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';

/**
 * Not bundled: optional native helpers that `ws` tries in a `try` (absent, it does without),
 * and what only a checkout has (tsx, esbuild: the sources' own paths, never taken in dist/).
 */
const EXTERNAL = ['bufferutil', 'utf-8-validate', 'supports-color', 'tsx', 'esbuild'];

/** Writes the bundle of cli/badge-sim.ts into `dist/cli` (which must be empty or absent). */
export async function bundleCli(root, dist) {
  const esbuild = await import('esbuild');
  const outdir = join(dist, 'cli');
  /** What both builds share. */
  const common = {
    absWorkingDir: root,
    // The maps name node_modules/… below the package, as a user's install has them.
    preserveSymlinks: true,
    bundle: true,
    platform: 'node',
    target: 'node20',
    external: EXTERNAL,
    // Where the maps point is enough for a stack trace; dist/'s own maps carry the sources.
    sourcemap: 'linked',
    sourcesContent: false,
    legalComments: 'none',
    minifyWhitespace: true,
    minifySyntax: true,
    metafile: true,
    logLevel: 'warning',
  };
  const result = await esbuild.build({
    ...common,
    entryPoints: { 'badge-sim': join(root, 'cli/badge-sim.ts') },
    outdir,
    splitting: true,
    format: 'esm',
    // CommonJS dependencies (fastify, ajv, ws) require Node's built-ins.
    banner: {
      js: "import { createRequire as createRequireOfBundle } from 'node:module';\nconst require = createRequireOfBundle(import.meta.url);",
    },
    plugins: [commandsFromBundles(root), picomatchOfBundle(), moduleUrlOfSource(root, dist)],
  });
  const bundles = await esbuild.build({
    ...common,
    // One bundle for both commands (each has its own code cache of it): the package carries
    // their shared code once.
    // Each command's module is required when that command is made, not when the bundle runs:
    // `run` does not evaluate what only `stub` imports (esbuild wraps a required module and
    // what it imports in functions that run on first use).
    stdin: {
      contents: Object.entries(COMMAND_BUNDLES)
        .map(
          ([name, exported]) =>
            `export function ${exported}() { return require('./cli/${name}.command.ts').${exported}(); }`,
        )
        .join('\n'),
      resolveDir: root,
      sourcefile: 'cli/commands.cjs.ts',
      loader: 'ts',
    },
    outfile: join(outdir, 'commands.cjs'),
    format: 'cjs',
    // Run by cli/command-bundle.ts with CommonJS's arguments: each module's URL is the bundle's.
    define: { 'import.meta.url': '__commandBundleUrl' },
    // The one other use, `import.meta.resolve` of tsx in fleet-workers.ts, is for the sources only.
    logOverride: { 'empty-import-meta': 'silent' },
    banner: { js: 'var __commandBundleUrl = require("node:url").pathToFileURL(__filename).href;' },
    plugins: [picomatchOfBundle(), moduleUrlOfSource(root, dist)],
  });
  assertAscii(join(outdir, 'commands.cjs'));
  for (const [file, output] of Object.entries(bundles.metafile.outputs))
    result.metafile.outputs[file] = output;
  for (const [file, input] of Object.entries(bundles.metafile.inputs))
    result.metafile.inputs[file] = input;
  writeFileSync(
    join(outdir, 'THIRD-PARTY-LICENSES.txt'),
    thirdPartyLicenses(root, result.metafile),
  );
  const scripts = Object.entries(result.metafile.outputs).filter(([file]) => /\.c?js$/.test(file));
  return {
    chunks: scripts.length,
    bytes: scripts.reduce((sum, [, output]) => sum + output.bytes, 0),
  };
}

/**
 * The commands' bundle is read as Latin-1 when it is ASCII, much faster than UTF-8 (see
 * cli/command-bundle.ts). esbuild escapes what it can, but not a regular expression's text: a
 * character past ASCII there fails the build, to be written as an escape (`\u00B1`).
 */
function assertAscii(file) {
  const bytes = readFileSync(file);
  if (isAscii(bytes)) return;
  const at = bytes.findIndex((byte) => byte > 0x7f);
  const line = bytes.subarray(0, at).toString('latin1').split('\n').length;
  const around = bytes.subarray(Math.max(0, at - 60), at + 20).toString('utf8');
  throw new Error(
    `${file}:${line}: ${JSON.stringify(around)} is not ASCII: write the character as an escape in its source, so the bundle stays ASCII`,
  );
}

/**
 * The commands that run from one CommonJS bundle, each with its V8 code cache of it (decision
 * Q18, cli/command-bundle.ts), and the function each exports: those whose start-up issue 28
 * times.
 */
const COMMAND_BUNDLES = { run: 'runCommand', stub: 'stubCommand' };

/**
 * In the ES-module bundle, `import('./run.command.ts')` (cli/command-loaders.ts) loads the commands'
 * CommonJS bundle beside it, through that command's code cache, instead.
 */
function commandsFromBundles(root) {
  return {
    name: 'commands-from-bundles',
    setup(build) {
      const names = Object.keys(COMMAND_BUNDLES).join('|');
      build.onResolve(
        { filter: new RegExp(`^\\./(${names})\\.command\\.ts$`) },
        ({ path, importer }) =>
          importer === join(root, 'cli/command-loaders.ts')
            ? { path: path.slice(2, -'.command.ts'.length), namespace: 'command-bundle' }
            : undefined,
      );
      build.onLoad({ filter: /.*/, namespace: 'command-bundle' }, ({ path: name }) => ({
        contents: [
          `import { loadCommandBundle } from ${JSON.stringify(join(root, 'cli/command-bundle.ts'))};`,
          // Every chunk sits in dist/cli/, beside the bundles.
          `const bundle = loadCommandBundle(new URL('./commands.cjs', import.meta.url), ${JSON.stringify(name)});`,
          `export const ${COMMAND_BUNDLES[name]} = bundle.${COMMAND_BUNDLES[name]};`,
        ].join('\n'),
        loader: 'js',
        resolveDir: root,
      }));
    },
  };
}

/**
 * fdir (tinyglobby's crawler) requires picomatch at its top level, through `createRequire`,
 * for a glob API tinyglobby never calls: in the bundle that require loads picomatch's own
 * files from node_modules, compiled without the code cache, on every `run` (about 10 to 20 ms
 * of CPU). It is given the picomatch bundled for tinyglobby instead: the same module, as fdir
 * would have found it. A newer fdir that no longer reads so fails the build, to be looked at.
 */
function picomatchOfBundle() {
  const REQUIRED = '__require.resolve("picomatch");\n\tpm = __require("picomatch");';
  return {
    name: 'picomatch-of-bundle',
    setup(build) {
      build.onLoad({ filter: /[\\/]fdir[\\/]dist[\\/]index\.mjs$/ }, async ({ path }) => {
        const text = await readFile(path, 'utf8');
        if (!text.includes(REQUIRED))
          throw new Error(`${path}: no longer requires picomatch as bundle-cli.mjs expects`);
        return {
          contents: `import picomatchOfBundle from 'picomatch';\n${text.replace(REQUIRED, 'pm = picomatchOfBundle;')}`,
          loader: 'js',
        };
      });
    },
  };
}

/** The modules the build writes in place of their sources (dist/ has the generated ones). */
const GENERATED = new Set([
  'fixtures/default-fixtures.prebuilt.ts',
  'protocol/validators.prebuilt.ts',
  'server-stub/serializers.prebuilt.ts',
]);

/**
 * Each badge-sim module's `import.meta.url` made the URL of its compiled file in dist/; a
 * module the build generates is taken from dist/.
 */
function moduleUrlOfSource(root, dist) {
  return {
    name: 'module-url-of-source',
    setup(build) {
      build.onLoad({ filter: /\.ts$/ }, async ({ path }) => {
        const own = relative(root, path).split(sep).join('/');
        if (own.startsWith('..') || own.split('/').includes('node_modules')) return undefined;
        const compiled = own.replace(/\.ts$/, '.js');
        const generated = GENERATED.has(own);
        const text = await readFile(generated ? join(dist, compiled) : path, 'utf8');
        return {
          // Every chunk sits in dist/cli/: one folder up is dist/. The generated modules'
          // `require`s (Ajv's runtime, fast-json-stringify's serializer) are left to esbuild,
          // which bundles what they name: not loaded from node_modules uncached at run time.
          contents: (generated ? requireOfBundle(text) : text).replaceAll(
            'import.meta.url',
            `new URL(${JSON.stringify(`../${compiled}`)}, import.meta.url).href`,
          ),
          loader: generated ? 'js' : 'ts',
        };
      });
    },
  };
}

/** The generated module without its `createRequire`: its `require` calls are the bundle's. */
function requireOfBundle(text) {
  const OWN_REQUIRE =
    "import { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);\n";
  if (!text.includes('createRequire')) return text;
  if (!text.includes(OWN_REQUIRE))
    throw new Error('a generated module no longer makes its require as bundle-cli.mjs expects');
  return text.replace(OWN_REQUIRE, '');
}

/**
 * The bundle carries code of its dependencies: their names, versions, licences and licence
 * texts, in one file beside it (esbuild keeps only comments marked as legal).
 */
function thirdPartyLicenses(root, metafile) {
  const packages = new Map();
  for (const input of Object.keys(metafile.inputs)) {
    const at = input.lastIndexOf('node_modules/');
    if (at < 0) continue;
    const parts = input.slice(at + 'node_modules/'.length).split('/');
    const name = parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
    const folder = join(root, input.slice(0, at), 'node_modules', name);
    if (!packages.has(folder)) packages.set(folder, name);
  }
  const seen = new Set();
  const sections = [...packages]
    .sort(([, a], [, b]) => a.localeCompare(b))
    .map(([folder, name]) => ({
      folder,
      name,
      manifest: JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')),
    }))
    // Two copies of one version (nested for two dependents) are one entry.
    .filter(
      ({ name, manifest }) =>
        !seen.has(`${name}@${manifest.version}`) && seen.add(`${name}@${manifest.version}`),
    )
    .map(({ folder, name, manifest }) => {
      const licenceFile = readdirSync(folder).find((file) => /^(licen[cs]e|copying)/i.test(file));
      const text = licenceFile
        ? readFileSync(join(folder, licenceFile), 'utf8').trim()
        : `(no licence file; package.json says ${manifest.license ?? 'nothing'})`;
      return `${name} ${manifest.version} (${manifest.license ?? 'unknown'})\n\n${text}\n`;
    });
  return `Third-party code bundled into the badge-sim command (dist/cli/):\n\n${sections.join('\n---\n\n')}`;
}

/**
 * Runs `badge-sim run` (one catalogue scenario) and `badge-sim stub` (to its first 200 on
 * health) once from dist/, each writing its V8 code cache of the bundle at exit (Q18): what
 * they compiled as they ran, so the installed commands start without compiling it again. Bounded:
 * each at most 60 s.
 */
export async function writeCommandCodeCaches(dist) {
  const { spawn } = await import('node:child_process');
  const { createServer } = await import('node:net');
  const cli = join(dist, 'cli/badge-sim.js');
  const env = { ...process.env, BADGE_SIM_WRITE_CODE_CACHE: '1', NODE_OPTIONS: '' };
  const exited = (child) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      child.once('error', reject);
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        if (code === 0) resolve();
        else
          reject(
            new Error(`badge-sim ${child.spawnargs.slice(2).join(' ')}: exit ${code ?? signal}`),
          );
      });
    });
  const scenario = join(dist, 'scenarios/catalogue/single-acknowledgement.scenario.yaml');
  await exited(spawn(process.execPath, [cli, 'run', scenario], { env, stdio: 'ignore' }));
  const port = await new Promise((resolve, reject) => {
    const server = createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
  const stub = spawn(process.execPath, [cli, 'stub', '--port', String(port), '--quiet'], {
    env,
    stdio: 'ignore',
  });
  const stopped = exited(stub);
  const started = performance.now();
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${port}/_stub/health`).then(
      (answer) => answer.ok,
      () => false,
    );
    if (ok) break;
    if (stub.exitCode !== null || performance.now() - started > 60_000) {
      stub.kill('SIGKILL');
      throw new Error('badge-sim stub: no 200 on /_stub/health');
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  stub.kill('SIGINT');
  await stopped;
}
