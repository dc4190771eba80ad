import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { Command } from 'commander';
import { createConsoleReporter } from '../scenarios/reports/console.reporter.ts';
import { pageData, renderHtmlReport } from '../scenarios/reports/html.reporter.ts';
import { createJsonReporter } from '../scenarios/reports/json.reporter.ts';
import { createJunitReporter } from '../scenarios/reports/junit.reporter.ts';
import {
  MergeError,
  mergeHtmlReports,
  mergeJsonReports,
  mergeJunitReports,
  type ReportFile,
  type ReportKind,
  reportKind,
} from '../scenarios/reports/merge-reports.ts';
import type { RunSummary } from '../scenarios/runner/reporter.ts';
import { choiceOption, fail } from './cli-errors.ts';
import { COMMANDS } from './commands.ts';

const OUTPUTS = ['json', 'junit', 'html', 'console'] as const;
type Output = (typeof OUTPUTS)[number];

/** A report larger than this is not one badge-sim wrote for a shard. */
const MAX_REPORT_BYTES = 256 * 1024 * 1024;

interface MergeOptions {
  reporter?: Output;
  output?: string;
}

/** `badge-sim merge-reports`: the reports of a sharded run's shards as one (decision SH2). */
export function mergeReportsCommand(): Command {
  return (
    new Command('merge-reports')
      // A refused option or argument exits 2, as in every command: cli/badge-sim.ts.
      .description(COMMANDS['merge-reports'].description)
      .argument('<report...>', 'the shards’ reports: all JSON, all JUnit XML, or all HTML')
      .option(
        '-r, --reporter <kind>',
        `what to write: ${OUTPUTS.join(', ')} (default: the kind of the inputs; JSON reports can be written as any)`,
        choiceOption('--reporter', OUTPUTS),
      )
      .option('-o, --output <file>', 'where the merged report goes (default: standard output)')
      .addHelpText(
        'after',
        `
Scenarios come in the order an unsharded run gives them (by file), so the merged JSON of
every shard equals the JSON of the whole suite run at once (wall times aside in JUnit and
HTML). Exit 0 when merged (failed scenarios included: the shards' runs said so), 2 when a
report cannot be read or the kinds are mixed.

Examples:
  badge-sim run --shard 1/3 --reporter json -o shard-1.json   (on each of three machines)
  badge-sim merge-reports shard-1.json shard-2.json shard-3.json -o suite.json
  badge-sim merge-reports shard-*.json --reporter junit -o junit.xml
  badge-sim merge-reports shard-*.json --reporter html -o report.html
  badge-sim merge-reports shard-*.xml -o junit.xml
`,
      )
      .action((files: string[], options: MergeOptions) => {
        try {
          const reports = files.map(readReport);
          const kinds = new Set(reports.map(reportKind));
          if (kinds.size > 1)
            throw new MergeError(
              `the reports are of different kinds (${[...kinds].join(', ')}): merge one kind at a time`,
            );
          const kind = [...kinds][0]!;
          const output = options.reporter ?? kind;
          const text = merged(kind, output, reports);
          if (text !== undefined) {
            if (options.output) writeFileSync(options.output, text);
            else process.stdout.write(text);
          }
          process.stderr.write(
            `badge-sim merge-reports: merged ${reports.length} ${kind} report(s)\n`,
          );
        } catch (error) {
          if (error instanceof MergeError) fail(error.message);
          // Whatever else a report makes go wrong is still a report that cannot be merged: exit
          // 2, never 1 (which says scenarios failed).
          fail(
            `cannot merge the reports (${(error as Error).message}): are they badge-sim reports of one run, unedited?`,
          );
        }
      })
  );
}

/** Something the merged report leaves out, said on stderr (CV5). */
function warn(message: string): void {
  process.stderr.write(`badge-sim merge-reports: ${message}\n`);
}

/** The merged report as `output`; undefined for the console, which writes itself. */
function merged(kind: ReportKind, output: Output, reports: ReportFile[]): string | undefined {
  if (kind === 'json') return written(mergeJsonReports(reports, warn), output);
  if (output !== kind)
    throw new MergeError(
      `${kind} reports merge into ${kind} only: merge the shards' JSON reports (--reporter json) to write ${output}`,
    );
  return kind === 'junit' ? mergeJunitReports(reports) : mergeHtmlReports(reports, warn);
}

/** A merged run written by the reporter `output` (no wall times: the shards kept their own). */
function written(summary: RunSummary, output: Output): string | undefined {
  if (output === 'json') return createJsonReporter().onEnd!(summary);
  if (output === 'junit') return createJunitReporter().onEnd!(summary);
  if (output === 'html') return renderHtmlReport(pageData(summary, new Map(), 0));
  const console = createConsoleReporter(process.stdout);
  console.onStart?.(summary.reports.length);
  for (const report of summary.reports) console.onScenarioEnd?.(report, 0);
  for (const error of summary.loadErrors) console.onLoadError?.(error.source, error.message);
  console.onEnd?.(summary);
  return undefined;
}

function readReport(file: string): ReportFile {
  let size: number;
  try {
    size = statSync(file).size;
  } catch (error) {
    throw new MergeError(
      `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  if (size > MAX_REPORT_BYTES)
    throw new MergeError(
      `${file}: larger than ${MAX_REPORT_BYTES / 1024 / 1024} MiB: not a shard's report`,
    );
  return { file, text: readFileSync(file, 'utf8') };
}
