/**
 * What `badge-sim repro` does once its options are read: reads the export (and the bodies
 * sent, the fixtures), reproduces it on the virtual clock, searches the alternatives when
 * asked, writes the scenarios asked for and prints the comparison. Exit 0 when the histories
 * match (or the search explains the log), 1 when not, 2 for input it cannot use.
 */
import { accessSync, constants, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Fixtures } from '../fixtures/fixtures.schema.ts';
import { FixtureError, loadFixturesFile } from '../fixtures/load-fixtures.ts';
import {
  ExportError,
  type ExportFile,
  MAX_EXPORT_BYTES,
  readAlertLines,
  readJournalAlerts,
  type SentAlert,
} from '../scenarios/field-bugs/repro/read-export.ts';
import { reproduce } from '../scenarios/field-bugs/repro/reproduce.ts';
import { searchAlternatives } from '../scenarios/field-bugs/repro/search.ts';
import { ScenarioError } from '../scenarios/format/load-scenario.ts';
import { fail } from './cli-errors.ts';
import { type ReproOutcome, reproJson, reproText } from './repro-report.ts';

/** The options of `badge-sim repro`, as commander reads them. */
export interface ReproCommandOptions {
  alerts?: string;
  journal?: string;
  fixtures?: string;
  scenarioOut?: string;
  trace?: string;
  within?: number;
  json?: boolean;
  search?: boolean;
  write?: string;
  pick?: number;
  allRows?: boolean;
}

/** Runs a repro of the export `files`; sets the exit status, or fails (exit 2) saying why. */
export async function runRepro(files: string[], options: ReproCommandOptions): Promise<void> {
  try {
    const outcome = await reproduceExport(files, options);
    process.stdout.write(options.json ? reproJson(outcome) : reproText(outcome, options.allRows));
    const { search, result } = outcome;
    process.exitCode = (search ? search.explanations.length > 0 : result.comparison.match) ? 0 : 1;
  } catch (error) {
    if (
      error instanceof ExportError ||
      error instanceof ScenarioError ||
      error instanceof FixtureError
    )
      fail(error.message);
    // Anything else is a fault of badge-sim, not a difference: never exit 1 for it.
    process.stderr.write(`${(error as Error).stack ?? error}\n`);
    fail(
      `repro failed unexpectedly (${(error as Error).message}); please report it with the export`,
    );
  }
}

/** The export reproduced (and searched), the scenarios asked for written. */
async function reproduceExport(
  files: string[],
  options: ReproCommandOptions,
): Promise<ReproOutcome> {
  const progress = (line: string) => {
    if (!options.json) process.stderr.write(`badge-sim repro: ${line}\n`);
  };
  if (options.scenarioOut) checkWritable('--scenario-out', options.scenarioOut);
  if (options.write) checkWritable('--write', options.write);
  if (options.trace) checkWritable('--trace', options.trace);
  const { exports, sent, fixtures } = readInputs(files, options);
  const toleranceMs = options.within ?? 0;
  const trace = options.trace;
  const result = await reproduce({ exports, sent, fixtures, toleranceMs, progress, trace });
  if (options.scenarioOut) {
    writeFileSync(options.scenarioOut, result.yaml);
    progress(`wrote the inferred scenario to ${options.scenarioOut}`);
  }
  const search = options.search
    ? await searchAlternatives({ exports, sent, fixtures, toleranceMs, progress })
    : undefined;
  const pick = options.pick ?? 1;
  if (
    search &&
    options.write &&
    search.explanations.length > 0 &&
    pick > search.explanations.length
  )
    throw new ExportError(
      `--pick ${pick}: the search found ${search.explanations.length} explanation(s); pick one of 1 to ${search.explanations.length}`,
    );
  const explanation = search?.explanations[pick - 1];
  if (options.write && explanation) {
    writeFileSync(options.write, explanation.yaml);
    progress(`wrote the scenario of explanation ${pick} to ${options.write}`);
  }
  return {
    result,
    search,
    scenarioOut: options.scenarioOut,
    written: options.write,
    pick,
    placeholders: !fixtures,
  };
}

/** The exports, the alert bodies sent (`--alerts`, `--journal`) and the fixtures given. */
function readInputs(
  files: string[],
  options: ReproCommandOptions,
): { exports: ExportFile[]; sent: SentAlert[]; fixtures: Fixtures | undefined } {
  const exports = files.map(readInput);
  const sent: SentAlert[] = [
    ...(options.alerts ? readAlertLines(options.alerts, readInput(options.alerts).text) : []),
    ...(options.journal ? readJournalAlerts(options.journal, readInput(options.journal).text) : []),
  ];
  const fixtures = options.fixtures ? loadFixturesFile(options.fixtures) : undefined;
  return { exports, sent, fixtures };
}

/** A file the command will write: its folder must exist and take it, before any work is done. */
function checkWritable(flag: string, file: string): void {
  const folder = dirname(resolve(file));
  try {
    if (existsSync(file) && statSync(file).isDirectory())
      throw new ExportError(`${flag} ${file}: a folder; give a file name in it`);
    accessSync(folder, constants.W_OK);
  } catch (error) {
    if (error instanceof ExportError) throw error;
    throw new ExportError(
      `${flag} ${file}: cannot write there (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); give a file in a folder that exists and you may write to`,
    );
  }
}

/** A file's text, refused before it is read when it is larger than an export may be. */
function readInput(file: string): ExportFile {
  let size: number;
  try {
    size = statSync(file).size;
  } catch (error) {
    throw new ExportError(
      `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  if (size > MAX_EXPORT_BYTES)
    throw new ExportError(
      `${file}: larger than ${MAX_EXPORT_BYTES / 1024 / 1024} MiB; export a shorter span and repro that`,
    );
  return { file, text: readFileSync(file, 'utf8') };
}
