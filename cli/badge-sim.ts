/**
 * `badge-sim`: one program, one subcommand per job. Each subcommand lives in its own file and
 * registers itself here.
 */
import { Command } from 'commander';
import { analyticsCommand } from './analytics.command.ts';
import { devicesCommand } from './devices.command.ts';
import { envCommand } from './env.command.ts';
import { runCommand } from './run.command.ts';
import { stubCommand } from './stub.command.ts';

// Output piped into a reader that stops early (`| head`) ends the program quietly.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

const program = new Command('badge-sim')
  .description('Device simulator and test harness for the voice-badge alerting service.')
  .version('0.1.0')
  .showHelpAfterError('(run with --help for usage)')
  .addCommand(stubCommand())
  .addCommand(devicesCommand())
  .addCommand(runCommand())
  .addCommand(envCommand())
  .addCommand(analyticsCommand());

await program.parseAsync(process.argv);
