/**
 * `badge-sim`: one program, one subcommand per job. Each subcommand lives in its own file,
 * listed in commands.ts and loaded by command-loaders.ts; only the one the arguments ask for is loaded, so `--version`,
 * `--help` and each command start without loading what the others use.
 */
import { readFileSync } from 'node:fs';
import { Command, Help } from 'commander';
import { COMMANDS, type CommandEntry, type CommandName, commandAskedFor } from './commands.ts';
import { printCrashesWithSourceLines } from './crash-trace.ts';

printCrashesWithSourceLines();

// Output piped into a reader that stops early (`| head`) ends the program quietly.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

// The version of the package this is: its manifest found by the package's own name (the
// `./package.json` export), the same from the sources and from dist/, in a checkout, an
// installed package and the image. Read, not imported: JSON modules warn on some Node 20s.
const manifestUrl = new URL(import.meta.resolve('badge-sim/package.json'));
const { version } = JSON.parse(readFileSync(manifestUrl, 'utf8')) as { version: string };

/**
 * What exit status 2 says of a command that reaches a stub (and, at the top level, of them
 * all); a command that neither starts nor reaches one says its own (`exitStatus.usage`).
 */
const STUB_USAGE_ERRORS =
  'a wrong option or argument, an input that cannot be used, a stub that cannot be reached or is not a badge-sim stub (the message says which and what to do)';

/** The last lines of a `--help`: exit status 2, wrapped under its number. */
function usageErrorHelp(what: string): string {
  const lines: string[] = [];
  let line = '';
  for (const word of `2  a usage error: ${what}`.split(' ')) {
    if (line !== '' && line.length + word.length > 91) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  lines.push(line);
  return `${lines.map((text, i) => (i === 0 ? '  ' : '     ') + text).join('\n')}\n`;
}

const program = new Command('badge-sim')
  .description('Device simulator and test harness for the voice-badge alerting service.')
  .version(version)
  .showHelpAfterError('(run with --help for usage)')
  // The commands not loaded are listed from the table (commands.ts), as if they were.
  .configureHelp({
    subcommandTerm(this: Help, command: Command) {
      const entry = Object.hasOwn(COMMANDS, command.name())
        ? COMMANDS[command.name() as CommandName]
        : undefined;
      return entry?.term ?? Help.prototype.subcommandTerm.call(this, command);
    },
  });
program.addHelpText(
  'after',
  `
Exit status, every command:
  0  done (run: every scenario passed)
  1  a run that failed: scenarios (run), histories that differ (repro), a fleet whose stub
     stayed away (devices), a made scenario that fails (record); each command's --help says
     which
${usageErrorHelp(`${STUB_USAGE_ERRORS}; each command's --help says its own`)}`,
);
const asked = commandAskedFor(process.argv.slice(2));
for (const [name, entry] of Object.entries(COMMANDS)) {
  program.addCommand(
    name === asked
      ? withExitStatusHelp(await (await import('./command-loaders.ts')).loadCommand(name), entry)
      : new Command(name).description(entry.description),
  );
}
exitUsageErrorsWith2(program);

await program.parseAsync(process.argv);

/**
 * Exit statuses are the same for every command (issue 31): 0 done, 1 a run that failed (the
 * command's own `process.exitCode`), 2 a usage error. commander exits 1 when it refuses an
 * option, an argument or a command; here, for the top level and every command at once, it
 * exits 2 as `fail` (cli-errors.ts) does for the refusals the commands make themselves.
 */
function exitUsageErrorsWith2(command: Command): void {
  command.exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : 2));
  for (const subcommand of command.commands) exitUsageErrorsWith2(subcommand);
}

/** The command, its `--help` ending with what each exit status means for it. */
function withExitStatusHelp(command: Command, entry: CommandEntry): Command {
  const { done = 'done', failed, usage = STUB_USAGE_ERRORS } = entry.exitStatus ?? {};
  return command.addHelpText(
    'after',
    `
Exit status:
  0  ${done}
${failed ? `  1  ${failed}\n` : ''}${usageErrorHelp(usage)}`,
  );
}
