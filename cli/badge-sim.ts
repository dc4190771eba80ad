/**
 * `badge-sim`: one program, one subcommand per job. Each subcommand lives in its own file,
 * listed in commands.ts and loaded by command-loaders.ts; only the one the arguments ask for is loaded, so `--version`,
 * `--help` and each command start without loading what the others use.
 */
import { readFileSync } from 'node:fs';
import { Command, Help } from 'commander';
import { COMMANDS, type CommandName, commandAskedFor } from './commands.ts';
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
const asked = commandAskedFor(process.argv.slice(2));
for (const [name, entry] of Object.entries(COMMANDS)) {
  program.addCommand(
    name === asked
      ? await (await import('./command-loaders.ts')).loadCommand(name)
      : new Command(name).description(entry.description),
  );
}

await program.parseAsync(process.argv);
