/**
 * `badge-sim` loads only the command it runs (issue 28: start-up; decision Q15). The top
 * level lists every command from cli/commands.ts without loading any, so that table must say
 * what each command says of itself; and `--version`, `--help` and a command's `--help` must
 * not load what they do not use (the stub, the simulator, the scenarios).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Help } from 'commander';
import { afterAll, describe, expect, test } from 'vitest';
import { loadCommand } from '../../cli/command-loaders.ts';
import { COMMANDS, type CommandName, commandAskedFor } from '../../cli/commands.ts';
import { BIN } from '../support/cli.ts';
import { REPO } from '../support/packed-package.ts';

const work = mkdtempSync(join(tmpdir(), 'badge-sim-commands-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A module hook that notes every file the process loads (its URL) in `log`. */
const LOGGER = join(work, 'log-loads.mjs');
writeFileSync(
  LOGGER,
  `import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(\`
import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  appendFileSync(process.env.BADGE_SIM_LOG_LOADS, url + '\\\\n');
  return next(url, context);
}\`));
`,
);

/** The files of this repository (relative) and the packages a command line loads. */
function loaded(args: string[]): { own: string[]; packages: Set<string>; stdout: string } {
  const log = join(work, `loads-${args.join('-')}.txt`);
  writeFileSync(log, '');
  const ran = spawnSync(process.execPath, ['--import', pathToFileURL(LOGGER).href, BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, BADGE_SIM_LOG_LOADS: log, NO_COLOR: '1' },
    timeout: 60_000,
  });
  expect(ran.status, ran.stderr).toBe(0);
  const urls = readFileSync(log, 'utf8').split('\n').filter(Boolean);
  const root = pathToFileURL(REPO).href;
  const own = urls
    .filter((url) => url.startsWith(root) && !url.includes('/node_modules/'))
    .map((url) => url.slice(root.length));
  const packages = new Set(
    urls.flatMap((url) => {
      const name = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1];
      return name ? [name] : [];
    }),
  );
  return { own, packages, stdout: ran.stdout };
}

/** Packages the runner itself brings in a checkout (the sources run through tsx). */
const LOADER = new Set(['tsx', 'esbuild']);

describe('the top level lists the commands from a table, loading none', () => {
  test("each command's term and description in the table are the command's own", async () => {
    const help = new Help();
    for (const [name, entry] of Object.entries(COMMANDS)) {
      const command = await loadCommand(name as CommandName);
      expect(command.name()).toBe(name);
      expect(command.description()).toBe(entry.description);
      expect(help.subcommandTerm(command)).toBe(entry.term);
    }
  });

  test('the command asked for is the first word, or the one after help', () => {
    expect(commandAskedFor(['stub', '--port', '0'])).toBe('stub');
    expect(commandAskedFor(['--version'])).toBeUndefined();
    expect(commandAskedFor(['help', 'run'])).toBe('run');
    expect(commandAskedFor(['stubb'])).toBeUndefined();
  });

  test('badge-sim --version and --help load only the command table and commander', () => {
    for (const args of [['--version'], ['--help']]) {
      const { own, packages, stdout } = loaded(args);
      expect(stdout).not.toBe('');
      expect(own.filter((file) => !file.startsWith('bin/')).sort()).toEqual([
        'cli/badge-sim.ts',
        'cli/commands.ts',
        'cli/crash-trace.ts',
      ]);
      expect([...packages].filter((name) => !LOADER.has(name))).toEqual(['commander']);
    }
    // The table lists every command all the same.
    const { stdout } = loaded(['--help']);
    for (const entry of Object.values(COMMANDS)) expect(stdout).toContain(entry.term);
  }, 120_000);

  test("a command's --help loads its options, not the server, the badges or the scenarios", () => {
    const run = loaded(['run', '--help']);
    expect(run.stdout).toContain('Usage: badge-sim run');
    expect(
      run.own.filter((file) => /^(server-stub|simulator|scenarios|model)\//.test(file)),
    ).toEqual([]);
    for (const name of ['fastify', 'ajv', 'ws', 'xstate', '@faker-js/faker', 'fast-xml-parser'])
      expect(run.packages.has(name), `run --help loaded ${name}`).toBe(false);

    const stub = loaded(['stub', '--help']);
    expect(stub.stdout).toContain('Usage: badge-sim stub');
    // Its option bounds come from the settings and the gateway's module; not the server itself.
    for (const file of [
      'server-stub/app.ts',
      'server-stub/start-stub.ts',
      'server-stub/stub-core.ts',
    ])
      expect(stub.own).not.toContain(file);
    expect(stub.own.filter((file) => /^(simulator|scenarios|model)\//.test(file))).toEqual([]);
    for (const name of ['fastify', '@fastify/swagger', 'xstate', 'node-forge'])
      expect(stub.packages.has(name), `stub --help loaded ${name}`).toBe(false);

    // Its help names the export's and the search's bounds; the runner loads only to run.
    const repro = loaded(['repro', '--help']);
    expect(repro.stdout).toContain('Usage: badge-sim repro');
    expect(repro.own.filter((file) => /^(server-stub|simulator|model)\//.test(file))).toEqual([]);
    expect(repro.own.filter((file) => /^scenarios\/(runner|reports)\//.test(file))).toEqual([]);
    for (const name of ['fastify', 'ws', 'xstate'])
      expect(repro.packages.has(name), `repro --help loaded ${name}`).toBe(false);

    // The snapshot checks and the diff load only to compare.
    const diff = loaded(['diff', '--help']);
    expect(diff.stdout).toContain('Usage: badge-sim diff');
    expect(
      diff.own.filter((file) => /^(server-stub|simulator|scenarios|model)\//.test(file)),
    ).toEqual([]);
    expect(diff.own).not.toContain('cli/run-diff.ts');
    for (const name of ['ajv', 'fastify', 'xstate'])
      expect(diff.packages.has(name), `diff --help loaded ${name}`).toBe(false);
    // The viewer's reader, page and server load in its action only.
    const show = loaded(['show-trace', '--help']);
    expect(show.stdout).toContain('Usage: badge-sim show-trace');
    expect(
      show.own.filter((file) =>
        /^(server-stub|simulator|scenarios|model|cli\/show-trace)\/|^input\/(read-trace|trace-instant)/.test(
          file,
        ),
      ),
    ).toEqual([]);
  }, 120_000);
});
