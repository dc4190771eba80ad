/**
 * What `badge-sim show-trace` runs once its options are read: the trace (or recording) read,
 * its page made, then written to `--out` or served until Ctrl+C (TV5). A file that cannot be
 * read, an `--out` that cannot be written or a port it cannot listen on is a ShowTraceError
 * (or the reader's error) whose message says what is wrong: the command prints it, exit 2.
 */
import { writeFileSync } from 'node:fs';
import { servePage } from './serve-trace-page.ts';
import { renderTracePage } from './trace-page.ts';
import { tracePageData } from './trace-page-data.ts';

/** A usage error of the command: the message says what to fix. */
export class ShowTraceError extends Error {
  override name = 'ShowTraceError';
}

export interface ShowTraceOptions {
  out?: string;
  port: number;
}

export async function runShowTrace(file: string, options: ShowTraceOptions): Promise<void> {
  const data = await tracePageData(file);
  const html = renderTracePage(data);
  const what = `${data.records.length} records of ${file}`;
  if (options.out !== undefined) {
    try {
      writeFileSync(options.out, html);
    } catch (error) {
      throw new ShowTraceError(
        `badge-sim: show-trace --out ${options.out}: cannot write it (${(error as NodeJS.ErrnoException).code ?? String(error)}): give a file path in a folder you can write`,
      );
    }
    process.stderr.write(`badge-sim show-trace: wrote ${options.out} (${what})\n`);
    return;
  }
  const served = await servePage(html, options.port).catch((error: NodeJS.ErrnoException) => {
    throw new ShowTraceError(
      `badge-sim: show-trace --port ${options.port}: cannot listen on 127.0.0.1:${options.port} (${error.code ?? String(error)}): give another port, or 0 for any free one`,
    );
  });
  process.stdout.write(`badge-sim show-trace: ${what} at ${served.url} (Ctrl+C stops)\n`);
  const stop = () => {
    void served.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
