// The file-length half of `npm run lint`'s size check (issue 30, point 5): no source file past
// 400 lines, counted as `wc -l` does; function lengths are biome's (biome.function-lengths.jsonc).
// A file that long holds several things: split it by what its parts are. Benches and scripts
// are source (they are read too); tests and generated files are not held. Run from the
// repository's root: it reads the files below the working directory.
import { readFileSync } from 'node:fs';
import { glob } from 'tinyglobby';

const MAX_LINES = 400;

// The allowlist: files past 400 lines when the check came, each at its length then; a listed
// file may only shrink (growing past its allowance fails too) and leaves the list once it fits.
// Empty since issue 30 split every file past 400 lines; a file may be listed here only while a
// split is under way, and only shrink.
const ALLOWANCES = {};

const SOURCES = ['**/*.{ts,mts,cts,js,mjs,cjs,css}'];
const NOT_SOURCES = [
  '**/node_modules/**',
  'dist/**',
  'coverage/**',
  'reports/**',
  'test/**',
  '**/*.test.{ts,mts}',
  '**/*.generated.ts',
  '**/*.prebuilt.ts',
];

/** The allowance of `path`, if it is listed (own keys only: a path is whatever the tree holds). */
function allowanceOf(path) {
  return Object.hasOwn(ALLOWANCES, path) ? ALLOWANCES[path] : undefined;
}

/** Lines as `wc -l` counts them: newlines. */
function lineCount(path) {
  const text = readFileSync(path, 'utf8');
  let lines = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lines++;
  return lines;
}

const files = await glob(SOURCES, { ignore: NOT_SOURCES, dot: false });
const problems = [];
for (const path of files.sort()) {
  const lines = lineCount(path);
  const allowance = allowanceOf(path);
  if (allowance === undefined && lines > MAX_LINES)
    problems.push(`${path}: ${lines} lines, past ${MAX_LINES}: split it by what its parts are`);
  else if (allowance !== undefined && lines > allowance)
    problems.push(
      `${path}: ${lines} lines, past its allowance of ${allowance} in scripts/check-file-lengths.mjs (a listed file may only shrink)`,
    );
}
if (problems.length > 0) {
  console.error(`file lengths: ${problems.length} file(s) too long\n${problems.join('\n')}`);
  process.exit(1);
}
console.log(`file lengths: ${files.length} source files, none past its limit`);
