/**
 * badge-sim as a user installs it, for `npm run bench:startup`: this checkout packed by
 * `npm pack` (its prepack builds dist/) from a copy, so the repository's own dist/ is never
 * rewritten, and the tarball installed into a throwaway consumer project.
 */
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Not packed: left out of the copy the package is built from. */
const NOT_COPIED = new Set(['node_modules', 'dist', '.git', 'test', 'bench', 'examples']);

export interface InstalledPackage {
  /** The consumer project: `node_modules/.bin/badge-sim` is the command a user runs. */
  consumer: string;
  /** The installed package's folder (dist/, bin/, the Dockerfile). */
  installed: string;
  bin: string;
  /** How it was installed, for the report. */
  how: string;
}

/** Runs a command to its end within `timeoutMs`; throws with its output when it fails. */
function runOrThrow(command: string, args: string[], cwd: string, timeoutMs: number): string {
  const started = performance.now();
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: timeoutMs });
  if (result.error) throw new Error(`${command} ${args.join(' ')}: ${result.error.message}`);
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} exited ${result.status}:\n${result.stdout}\n${result.stderr}`,
    );
  }
  process.stderr.write(
    `${command} ${args[0]}: ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
  );
  return result.stdout;
}

/** The folders and files `npm run build` reads: a dist/ older than any of them is stale. */
const BUILD_INPUTS = [
  'bin',
  'cli',
  'client',
  'container',
  'contract',
  'dashboard',
  'fixtures',
  'model',
  'protocol',
  'scenarios',
  'scripts',
  'server-stub',
  'simulator',
  'index.ts',
  'public-types.ts',
  'package.json',
  'tsconfig.json',
  'tsconfig.build.json',
];

function newestMtime(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce(
    (newest, name) => Math.max(newest, newestMtime(join(path, name))),
    stat.mtimeMs,
  );
}

/** Whether this checkout's dist/ was built after its last change (CI builds it first). */
export function distIsFresh(): boolean {
  const built = join(ROOT, 'dist/cli/badge-sim.js');
  if (!existsSync(built)) return false;
  const inputs = BUILD_INPUTS.filter((name) => existsSync(join(ROOT, name)));
  return statSync(built).mtimeMs > Math.max(...inputs.map((name) => newestMtime(join(ROOT, name))));
}

/**
 * Packs a copy of the checkout into `work`; the tarball's path. With `reuseDist`, its dist/ is
 * packed as it is (`npm pack --ignore-scripts`) instead of built again (about a minute here).
 */
export function packCheckout(work: string, reuseDist = false): string {
  const source = join(work, 'source');
  cpSync(ROOT, source, {
    recursive: true,
    filter: (path) => {
      const top = relative(ROOT, path).split('/')[0]!;
      return !NOT_COPIED.has(top) || (reuseDist && top === 'dist');
    },
  });
  symlinkSync(join(ROOT, 'node_modules'), join(source, 'node_modules'), 'dir');
  const out = runOrThrow(
    'npm',
    [
      'pack',
      '--json',
      '--pack-destination',
      work,
      '--loglevel=error',
      ...(reuseDist ? ['--ignore-scripts'] : []),
    ],
    source,
    300_000,
  );
  // prepack's own output comes first; npm's JSON report is the last thing printed.
  const report = JSON.parse(out.slice(out.lastIndexOf('\n[\n') + 1))[0] as { filename: string };
  return join(work, report.filename);
}

/**
 * Installs the tarball into `work/consumer`. `registry`: `npm install <tarball>`, its
 * dependencies from the npm registry as a user gets them; otherwise (quick, or no registry)
 * the tarball unpacked where npm puts it, its dependencies found in this checkout's
 * node_modules (linked one folder up, where Node's lookup reaches them).
 */
export function installTarball(work: string, tarball: string, registry: boolean): InstalledPackage {
  const consumer = join(work, 'consumer');
  const installed = join(consumer, 'node_modules', 'badge-sim');
  const bin = join(consumer, 'node_modules', '.bin', 'badge-sim');
  mkdirSync(consumer, { recursive: true });
  writeFileSync(
    join(consumer, 'package.json'),
    JSON.stringify({ name: 'startup-bench-consumer', private: true, type: 'module' }),
  );
  if (registry) {
    try {
      runOrThrow(
        'npm',
        ['install', tarball, '--no-audit', '--no-fund', '--no-update-notifier', '--loglevel=error'],
        consumer,
        300_000,
      );
      return {
        consumer,
        installed,
        bin,
        how: 'npm install <tarball> (dependencies from the registry)',
      };
    } catch (error) {
      process.stderr.write(`npm install failed, linking this checkout's dependencies: ${error}\n`);
    }
  }
  mkdirSync(installed, { recursive: true });
  runOrThrow('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1'], work, 60_000);
  symlinkSync(join(ROOT, 'node_modules'), join(work, 'node_modules'), 'dir');
  mkdirSync(join(consumer, 'node_modules', '.bin'), { recursive: true });
  symlinkSync('../badge-sim/bin/badge-sim.js', bin);
  return {
    consumer,
    installed,
    bin,
    how: "the tarball unpacked into node_modules, dependencies from this checkout's node_modules",
  };
}

/** An installed consumer project given by BENCH_STARTUP_PACKAGE (its folder). */
export function givenPackage(consumer: string): InstalledPackage {
  const bin = join(consumer, 'node_modules', '.bin', 'badge-sim');
  if (!existsSync(bin)) {
    throw new Error(`BENCH_STARTUP_PACKAGE=${consumer}: no node_modules/.bin/badge-sim there`);
  }
  return {
    consumer,
    installed: join(consumer, 'node_modules', 'badge-sim'),
    bin,
    how: `given (BENCH_STARTUP_PACKAGE=${consumer})`,
  };
}
