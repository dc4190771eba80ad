/**
 * How `badge-sim <name>` loads the command it runs: its module, and what that imports, only
 * then (decision Q15). Apart from the table of commands.ts, which the command files read for
 * their descriptions, so that no command imports the module that loads it.
 */
import type { Command } from 'commander';
import type { CommandName } from './commands.ts';

const LOADERS: Record<CommandName, () => Promise<Command>> = {
  stub: async () => (await import('./stub.command.ts')).stubCommand(),
  devices: async () => (await import('./devices.command.ts')).devicesCommand(),
  run: async () => (await import('./run.command.ts')).runCommand(),
  env: async () => (await import('./env.command.ts')).envCommand(),
  analytics: async () => (await import('./analytics.command.ts')).analyticsCommand(),
  repro: async () => (await import('./repro.command.ts')).reproCommand(),
  record: async () => (await import('./record.command.ts')).recordCommand(),
  'show-trace': async () => (await import('./show-trace.command.ts')).showTraceCommand(),
  'merge-reports': async () => (await import('./merge-reports.command.ts')).mergeReportsCommand(),
  diff: async () => (await import('./diff.command.ts')).diffCommand(),
  generate: async () => (await import('./generate.command.ts')).generateCommand(),
  init: async () => (await import('./init.command.ts')).initCommand(),
};

/** The command with its options and action. */
export function loadCommand(name: CommandName): Promise<Command> {
  return LOADERS[name]();
}
