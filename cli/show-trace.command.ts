/**
 * `badge-sim show-trace <trace>`: the trace viewer (issue 33, TV1–TV5). Only its options here:
 * the reader, the page and the server load in its action (decision Q15).
 */
import { Command } from 'commander';
import { fail, integerOption } from './cli-errors.ts';
import { COMMANDS } from './commands.ts';

export function showTraceCommand(): Command {
  return new Command('show-trace')
    .description(COMMANDS['show-trace'].description)
    .argument(
      '<trace>',
      'a trace (run --trace, stub --trace: gzip JSON lines) or a session recording (stub --record)',
    )
    .option(
      '--out <file>',
      'write the page to this file (one self-contained HTML file) instead of serving it',
    )
    .option(
      '--port <port>',
      'the port to serve the page on, on 127.0.0.1 (0: any free one)',
      integerOption('--port', 0, 65535),
      0,
    )
    .addHelpText(
      'after',
      `
In the page: a lane per badge and per alert on one time axis; ← and → step from record to
record, Home and End go to the first and last, a click on the lanes puts the cursor there, a
drag pans, the wheel (or + and -) zooms, 0 fits. At the cursor: each badge's state and what
it says or hears, each alert's acknowledgements, pending badges, next repeat and time left,
and the record in full. A failed scenario's trace opens on its first difference.

Examples:
  badge-sim run --trace on --trace-dir traces            write one trace a scenario
  badge-sim show-trace traces/x--y.trace.gz              open one in the browser
  badge-sim show-trace session.trace.gz --out page.html  or write the page to a file`,
    )
    .action(async (trace: string, options: { out?: string; port: number }) => {
      const { runShowTrace, ShowTraceError } = await import('./show-trace/run-show-trace.ts');
      const { TraceError } = await import('../input/read-trace.ts');
      try {
        await runShowTrace(trace, options);
      } catch (error) {
        // Usage errors (the file, --out, --port) are one line, exit 2; anything else a crash.
        const { RecordingError } = await import(
          '../scenarios/field-bugs/recording/read-recording.ts'
        );
        const usage = [ShowTraceError, TraceError, RecordingError];
        if (usage.some((kind) => error instanceof kind)) fail((error as Error).message);
        throw error;
      }
    });
}
