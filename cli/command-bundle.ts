/**
 * How the installed `badge-sim run` and `badge-sim stub` load their code (issue 28: start-up;
 * decision Q18): both are in one CommonJS bundle (`dist/cli/commands.cjs`, written by
 * scripts/bundle-cli.mjs), compiled through `vm.Script` with the V8 code cache the build wrote
 * for that command (`commands.cjs.<command>.cache`) after running it once. Node 20 has no
 * compile cache for ES modules, and parsing and compiling the code of fastify, Ajv, the
 * prebuilt validators, YAML and the rest is some 40 % of the CPU of a one-scenario run. V8
 * refuses a cache made by another Node version or with other V8 flags: the code is then
 * compiled as any module is. Nothing is written at run time. From the sources it is not used.
 */
import { isAscii } from 'node:buffer';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';

/** Set by the build when it runs a command once to write its code cache. */
const WRITE_CACHE_VARIABLE = 'BADGE_SIM_WRITE_CODE_CACHE';

/** The bundle compiled, with the code cache of `command` when there is one V8 takes. */
export function compileCommandBundle(
  bundleUrl: URL,
  command: string,
): { script: Script; cacheFile: string; cached: boolean } {
  const file = fileURLToPath(bundleUrl);
  const cacheFile = `${file}.${command}.cache`;
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    // No cache (a build without one): compiled as any module is.
  }
  // The wrapper on a line of its own (lineOffset -1): stack frames keep the bundle's lines, and
  // its file URL, so the crash trace (Q13) maps them through the bundle's source map.
  const script = new Script(
    `(function (exports, require, module, __filename, __dirname) {\n${bundleText(file)}\n})`,
    { filename: bundleUrl.href, lineOffset: -1, cachedData },
  );
  return { script, cacheFile, cached: cachedData !== undefined && !script.cachedDataRejected };
}

/**
 * The bundle's text. esbuild writes it in ASCII (the build checks, scripts/bundle-cli.mjs), and
 * ASCII bytes are the same text read as Latin-1, which Node copies as they are, where UTF-8 is
 * decoded: some 20 ms of the 5 MiB on each start. A bundle that is not ASCII is read as UTF-8.
 */
function bundleText(file: string): string {
  const bytes = readFileSync(file);
  return isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}

/** The exports of the commands' CommonJS bundle, run once, compiled for `command`. */
export function loadCommandBundle(bundleUrl: URL, command: string): Record<string, unknown> {
  const { script, cacheFile } = compileCommandBundle(bundleUrl, command);
  const file = fileURLToPath(bundleUrl);
  const module = { exports: {} as Record<string, unknown> };
  const run = script.runInThisContext() as (...args: unknown[]) => void;
  run(module.exports, createRequire(file), module, file, fileURLToPath(new URL('.', bundleUrl)));
  if (process.env[WRITE_CACHE_VARIABLE] === '1') {
    // At exit: the cache then holds what the command compiled as it ran, not only its top level.
    process.once('exit', () => writeFileSync(cacheFile, script.createCachedData()));
  }
  return module.exports;
}
