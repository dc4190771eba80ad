import { Command } from 'commander';
import { fail } from './cli-errors.ts';
import { COMMANDS } from './commands.ts';

/**
 * `badge-sim diff A B`: how two worlds differ, in words (decisions WS31–WS34). Loads the
 * snapshot checks and the diff only in its action, so `--help` loads neither (Q15).
 */
export function diffCommand(): Command {
  return new Command('diff')
    .description(COMMANDS.diff.description)
    .argument('<a>', 'a snapshot file: GET /_stub/snapshot saved, or fleet.snapshot() as JSON')
    .argument('<b>', 'another of the same kind')
    .option('--json', 'print the differences as JSON, for machines')
    .addHelpText(
      'after',
      `
Compares the instants, the tasks (added, removed, changed: state, acknowledgements, devices
pending), each account's events (those only in one, counted, the first 3 quoted), the
devices (online, battery), the badges (machine state, clip, battery) and the seeded
generators (ids, fault and behaviour draws): a line a difference.

Examples:
  curl -s http://127.0.0.1:8080/_stub/snapshot > before.json   (and later, after.json)
  badge-sim diff before.json after.json
  badge-sim diff fleet-a.json fleet-b.json --json
`,
    )
    .action(async (a: string, b: string, options: { json?: boolean }) => {
      const { DiffUsageError, diffFiles, diffText } = await import('./run-diff.ts');
      try {
        const diff = diffFiles(a, b);
        process.stdout.write(options.json ? `${JSON.stringify(diff, null, 2)}\n` : diffText(diff));
        process.exitCode = diff.same ? 0 : 1;
      } catch (error) {
        if (error instanceof DiffUsageError) fail(error.message);
        throw error;
      }
    });
}
