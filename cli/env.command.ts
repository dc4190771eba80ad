import { Command } from 'commander';
import { COMMANDS } from './commands.ts';
import { checkedControlToken, controlTokenOption } from './control-access.ts';
import { printEnvironments } from './env-listing.ts';

/** `badge-sim env`: the environment listing, as the original command-line tool prints it. */
export function envCommand(): Command {
  return new Command('env')
    .description(COMMANDS.env.description)
    .option('--stub <url>', 'base URL of the stub', 'http://127.0.0.1:8080')
    .addOption(controlTokenOption())
    .option('--json', 'print JSON instead of a table')
    .action(async (options: { stub: string; controlToken?: string; json?: boolean }) => {
      const base = options.stub.replace(/\/+$/, '');
      await printEnvironments(
        base,
        checkedControlToken(options.controlToken),
        options.json === true,
      );
    });
}
