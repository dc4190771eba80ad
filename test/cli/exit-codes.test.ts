/**
 * Exit statuses, the same for every command (issue 31 point 2): 2 for a usage error, 1 for a
 * run that failed, 0 otherwise; and each command's `--help` says so. A script or CI step tells
 * "I called it wrong" from "the scenarios failed" by the status alone.
 */
import { describe, expect, test } from 'vitest';
import { COMMANDS } from '../../cli/commands.ts';
import { runCli } from '../support/cli.ts';

const NAMES = Object.keys(COMMANDS);

const REACHES_A_STUB = `  2  a usage error: a wrong option or argument, an input that cannot be used, a stub that
     cannot be reached or is not a badge-sim stub (the message says which and what to do)`;

/** What each command's --help says exit status 2 is, to the end of the help. */
const USAGE_ERRORS = {
  devices: REACHES_A_STUB,
  run: REACHES_A_STUB,
  env: REACHES_A_STUB,
  analytics: REACHES_A_STUB,
  stub: `  2  a usage error: a wrong option, fixtures, a snapshot, a certificate or --badges it cannot
     use, or an address it cannot listen on (the message says which and what to do)`,
  repro: `  2  a usage error: a wrong option or argument, or an export, --alerts, --journal or
     --fixtures file it cannot read or use (the message says which and what to do)`,
  record: `  2  a usage error: a wrong option or argument, a recording or --fixtures file it cannot read
     or use, or a --to file it cannot write (the message says which and what to do)`,
  'show-trace': `  2  a usage error: a wrong option or argument, a trace it cannot read (truncated, foreign, of
     a newer format: the message says which), an --out it cannot write or a --port it cannot
     listen on`,
  'merge-reports': `  2  a usage error: a wrong option or argument, a report it cannot read or that badge-sim did
     not write, or reports of mixed kinds (the message says which and what to do)`,
  diff: `  2  a usage error: a file it cannot read, or that is not a snapshot this badge-sim reads, or
     two of different kinds (the message names the file and what is wrong)`,
  generate: `  2  a usage error: a wrong or missing option, a --quorum over --devices, more paths than the
     cap, or an --out folder that holds scenario files (give --force) or cannot be written (the
     message says which)`,
  init: `  2  a usage error: a wrong option, a --dir outside the project, or files that exist already:
     nothing is written; give --force to overwrite them, or --dir another folder`,
} satisfies Record<keyof typeof COMMANDS, string>;

describe('a usage error exits 2 in every command and at the top level', () => {
  test.each(NAMES)('badge-sim %s --no-such-option', (name) => {
    const result = runCli([name, '--no-such-option']);
    // (analytics and generate name the option they require first)
    expect(result.stderr).toMatch(
      /^error: (unknown option '--no-such-option'|required option '.+' not specified)$/m,
    );
    expect(result.status).toBe(2);
  });

  test('an unknown command, an unknown option and no command at all', () => {
    const unknown = runCli(['no-such-command']);
    expect(unknown.stderr).toContain("error: unknown command 'no-such-command'");
    expect(unknown.status).toBe(2);
    const option = runCli(['--no-such-option']);
    expect(option.stderr).toContain("error: unknown option '--no-such-option'");
    expect(option.status).toBe(2);
    const nothing = runCli([]);
    expect(nothing.stderr).toContain('Usage: badge-sim');
    expect(nothing.status).toBe(2);
  });

  test('a value an option refuses, and a required option left out (commands that exited 1)', () => {
    const port = runCli(['stub', '--port', 'eighty']);
    expect(port.stderr).toContain(
      "error: option '-p, --port <port>' argument 'eighty' is invalid. --port must be a whole number from 0 to 65535.",
    );
    expect(port.status).toBe(2);
    const missing = runCli(['analytics']);
    expect(missing.stderr).toContain(
      "error: required option '-s, --subscriber-id <id>' not specified",
    );
    expect(missing.status).toBe(2);
    const record = runCli(['record']);
    expect(record.stderr).toContain("error: missing required argument 'recording'");
    expect(record.status).toBe(2);
  });

  test('--help and --version exit 0', () => {
    expect(runCli(['--help']).status).toBe(0);
    expect(runCli(['--version']).status).toBe(0);
    expect(runCli(['help', 'env']).status).toBe(0);
  });
});

describe('--help says what each exit status means', () => {
  test('the top level: the rule for every command', () => {
    const help = runCli(['--help']).stdout;
    expect(help).toContain(
      'Exit status, every command:\n  0  done (run: every scenario passed)\n  1  a run that failed',
    );
    expect(help).toContain('  2  a usage error');
  });

  test.each(NAMES)('badge-sim %s --help', (name) => {
    const help = runCli([name, '--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(
      /\nExit status:\n {2}0 {2}\S.*\n(?: {2}1 {2}\S.*\n)? {2}2 {2}a usage error/,
    );
    // Its usage errors are its own: only a command that reaches a stub names one it cannot reach.
    const usage = help.stdout.slice(help.stdout.indexOf('  2  a usage error:'));
    expect(usage.trimEnd()).toBe(USAGE_ERRORS[name as keyof typeof USAGE_ERRORS]);
  });

  test('run and repro say what 1 means for them', () => {
    expect(runCli(['run', '--help']).stdout).toContain(
      'Exit status:\n  0  every scenario passed\n  1  a scenario failed, or a scenario file could not be loaded\n',
    );
    expect(runCli(['repro', '--help']).stdout).toContain(
      '  1  the histories differ (the first difference is marked >> and said in a sentence)\n',
    );
    expect(runCli(['record', '--help']).stdout).toContain(
      '  1  the scenario made does not load, or does not pass with --check (nothing written)\n',
    );
  });
});
