/**
 * `badge-sim run --trace on|off|retain-on-failure` and `--trace-dir` (TR8): Playwright's words
 * and default (`retain-on-failure` when `CI` is set, else `off`); each trace kept is counted
 * and the count said on stderr once the run is over.
 */
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Command } from 'commander';
import type { RunTraceOptions } from '../scenarios/runner/run-trace.ts';
import { choiceOption } from './cli-errors.ts';

const TRACE_MODES = ['on', 'off', 'retain-on-failure'] as const;
export type TraceMode = (typeof TRACE_MODES)[number];

/** The folder traces go to when `--trace-dir` is not given and there is no `--output`. */
const DEFAULT_TRACE_DIR = 'badge-sim-traces';

/** What `--trace` asks of the runner, and what the run says of the traces once over. */
export interface RunTracing {
  /** Spread into the runner's options: `trace`, or nothing when traces are off. */
  readonly options: { trace?: RunTraceOptions };
  /** Says on stderr which traces were written (nothing with `quiet`, or when none was). */
  say(): void;
}

/** The runner's `trace` option for the command's options (none when traces are off). */
export function runTracing(options: {
  trace?: TraceMode;
  traceDir?: string;
  output?: string;
  stub?: string;
  quiet?: boolean;
}): RunTracing {
  const mode = options.trace ?? (process.env.CI ? 'retain-on-failure' : 'off');
  if (mode === 'off') return { options: {}, say: () => {} };
  if (options.stub) {
    // Said only to who asked: CI's default gives nothing to say on every run against a stub.
    if (options.trace === undefined) return { options: {}, say: () => {} };
    process.stderr.write(
      `badge-sim run: --trace: traces are written for scenarios whose stub runs in this process; the stub at ${options.stub} runs in another (no trace written)\n`,
    );
    return { options: {}, say: () => {} };
  }
  // The folder of --output only when it is there: a trace must not make the folder a report
  // could not be written to (its error would be lost).
  const besideOutput = options.output && existsSync(dirname(options.output));
  const dir = options.traceDir ?? (besideOutput ? dirname(options.output!) : DEFAULT_TRACE_DIR);
  const kept: string[] = [];
  return {
    options: { trace: { keep: mode, dir, onKept: (file) => kept.push(file) } },
    say() {
      if (options.quiet || kept.length === 0) return;
      process.stderr.write(
        `badge-sim run: ${kept.length} trace${kept.length === 1 ? '' : 's'} written (--trace ${mode}):\n${kept.map((file) => `  ${file}\n`).join('')}`,
      );
    },
  };
}

/** `--trace` and `--trace-dir`, added to the run command. */
export function withTraceOptions(command: Command): Command {
  return command
    .option(
      '--trace <mode>',
      `write each scenario's trace (gzip JSON lines: the stub's records, each badge's transitions, each step, the verdict): ${TRACE_MODES.join(', ')} (default: retain-on-failure when CI is set, else off)`,
      choiceOption('--trace', TRACE_MODES),
    )
    .option(
      '--trace-dir <dir>',
      'where traces go (default: the folder of --output when it exists, else ./badge-sim-traces)',
    );
}
