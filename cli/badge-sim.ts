/**
 * `badge-sim`: one program, one subcommand per job. Each subcommand lives in its own file and
 * registers itself here.
 */
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { analyticsCommand } from './analytics.command.ts';
import { devicesCommand } from './devices.command.ts';
import { envCommand } from './env.command.ts';
import { generateCommand } from './generate.command.ts';
import { mergeReportsCommand } from './merge-reports.command.ts';
import { recordCommand } from './record.command.ts';
import { reproCommand } from './repro.command.ts';
import { runCommand } from './run.command.ts';
import { stubCommand } from './stub.command.ts';

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
  .addCommand(stubCommand())
  .addCommand(devicesCommand())
  .addCommand(runCommand())
  .addCommand(envCommand())
  .addCommand(analyticsCommand())
  .addCommand(reproCommand())
  .addCommand(recordCommand())
  .addCommand(mergeReportsCommand())
  .addCommand(generateCommand());

await program.parseAsync(process.argv);
