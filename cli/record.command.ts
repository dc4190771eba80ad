/**
 * `badge-sim record <recording> --to <scenario.yaml>`: a session recording (`badge-sim stub
 * --record`, `GET /_stub/recording`) turned into a scenario that replays it and expects what
 * was observed (scenarios/field-bugs/recording/from-recording.ts).
 */
import { closeSync, openSync, readSync, writeFileSync } from 'node:fs';
import { Command } from 'commander';
import { FixtureError, loadFixturesFile } from '../fixtures/load-fixtures.ts';
import { TRACE_ONLY_KINDS } from '../protocol/recording.schema.ts';
import {
  RECORDING_FILE_MAX_CHARS,
  RecordingError,
  readRecording,
  scenarioFromRecording,
} from '../scenarios/field-bugs/recording/from-recording.ts';
import {
  type LoadedScenario,
  loadScenarioText,
  ScenarioError,
} from '../scenarios/format/load-scenario.ts';
import { fail } from './cli-errors.ts';
import { COMMANDS } from './commands.ts';

interface RecordOptions {
  to?: string;
  fixtures?: string;
  name?: string;
  check?: boolean;
  allFixtures?: boolean;
}

export function recordCommand(): Command {
  return new Command('record')
    .description(COMMANDS.record.description)
    .argument(
      '<recording>',
      'the recording: JSON lines as --record writes them, or the JSON of GET /_stub/recording',
    )
    .option('--to <file>', 'write the scenario here (default: standard output)')
    .option(
      '-f, --fixtures <file>',
      "fixtures to use instead of the recorded ones (the recording replaces keys and tokens by stand-ins; give your fixtures to keep your software's keys)",
    )
    .option(
      '--all-fixtures',
      'keep every account, group, device and workflow of the fixtures; by default the scenario keeps what the session touched: the badges that ran, the groups its alerts and broadcasts named with their members, the devices its events name (and another account when a step needs its key)',
    )
    .option('--name <name>', 'the scenario\'s name (default: "Recorded session <recording>")')
    .option(
      '--check',
      'run the scenario (embedded, on the virtual clock) before writing it: if it does not pass, write nothing and exit 1',
    )
    .addHelpText(
      'after',
      `
Examples:
  badge-sim stub --clock virtual --record session.jsonl     record while your software and badges run
  badge-sim record session.jsonl --to bug.scenario.yaml     then make a scenario of it
  badge-sim record session.jsonl --to bug.scenario.yaml --check   and run it before writing it
  badge-sim run bug.scenario.yaml                           and replay it: a regression test
  curl -X POST http://127.0.0.1:8080/_stub/recording                 without --record: start one,
  curl -s http://127.0.0.1:8080/_stub/recording > s.json             later save it,
  badge-sim record s.json --to bug.scenario.yaml                    and make a scenario of it
`,
    )
    .action(async (file: string, options: RecordOptions) => {
      const fixtures = options.fixtures === undefined ? undefined : readFixtures(options.fixtures);
      let made: ReturnType<typeof scenarioFromRecording>;
      try {
        const { records, notes } = readRecording(await recordingText(file), file);
        made = scenarioFromRecording(records, {
          file,
          name: options.name,
          fixtures,
          notes,
          allFixtures: options.allFixtures === true,
        });
      } catch (error) {
        if (error instanceof RecordingError) fail(error.message.replace(/^badge-sim: /, ''));
        throw error;
      }
      for (const note of made.notes) console.error(`badge-sim record: note: ${note}`);
      // Nothing is written, to the file or standard output, that does not load (and pass, with
      // --check): a scenario the runner refuses is this command's bug, not the user's to mend.
      const loaded = loadMade(made.yaml, options.to ?? 'the scenario');
      if (options.check) await checkMade(loaded);
      if (options.to === undefined) {
        process.stdout.write(made.yaml);
        return;
      }
      try {
        writeFileSync(options.to, made.yaml);
      } catch (error) {
        fail(
          `--to ${options.to}: cannot write it (${(error as NodeJS.ErrnoException).code ?? error}).`,
        );
      }
      const { timeline, expect } = made.scenario;
      const events = expect.events && 'items' in expect.events ? expect.events.items.length : 0;
      console.log(
        `badge-sim record: wrote ${options.to}: ${timeline.length} steps, ${events} events expected${options.check ? ', and it passed when run' : ''}. Run it: badge-sim run ${options.to}`,
      );
    });
}

/** What a made scenario's failure says last: nothing was written, and where to report it. */
const NOTHING_WRITTEN =
  'nothing written (a recording as the stub wrote it always makes one that loads and passes: if not, please report it with the recording).';

/** The made scenario loaded as the runner will load it; if it does not load, exit 1 with why. */
function loadMade(yaml: string, name: string): LoadedScenario {
  try {
    return loadScenarioText(yaml, name);
  } catch (error) {
    if (!(error instanceof ScenarioError)) throw error;
    console.error(
      `badge-sim record: the scenario made does not load: ${error.message.replace(/^badge-sim: /, '')}; ${NOTHING_WRITTEN}`,
    );
    process.exit(1);
  }
}

/** Runs the made scenario (embedded, virtual clock); if it fails, exit 1 with its failures. */
async function checkMade(loaded: LoadedScenario): Promise<void> {
  const [{ runScenario }, { formatFailure }] = await Promise.all([
    import('../scenarios/runner/run-scenario.ts'),
    import('../scenarios/reports/console.reporter.ts'),
  ]);
  const report = await runScenario(loaded);
  if (report.passed) return;
  console.error(
    [
      'badge-sim record: the scenario made does not pass when run (--check):',
      ...report.failures.map(formatFailure),
      `badge-sim record: ${NOTHING_WRITTEN}`,
    ].join('\n'),
  );
  process.exit(1);
}

function readFixtures(file: string) {
  try {
    return loadFixturesFile(file);
  } catch (error) {
    if (error instanceof FixtureError) fail(error.message.replace(/^badge-sim: /, ''));
    throw error;
  }
}

/** The recording's text, up to RECORDING_FILE_MAX_CHARS (a device such as /dev/zero never ends). */
/**
 * The recording's text; of a trace (gzip), its records as JSON lines, the header and the kinds
 * only a trace holds left out (TR3): a trace and a recording are one history.
 */
async function recordingText(file: string): Promise<string> {
  if (!startsWithGzip(file)) return readRecordingFile(file);
  const { readTrace, TraceError } = await import('../input/read-trace.ts');
  try {
    const { records } = readTrace(file);
    const kept = records.filter((r) => !TRACE_ONLY_KINDS.includes(r.kind));
    return kept.map((record) => JSON.stringify(record)).join('\n');
  } catch (error) {
    if (error instanceof TraceError) fail(error.message.replace(/^badge-sim: /, ''));
    throw error;
  }
}

/** Whether `file` opens with gzip's magic bytes (a file that cannot be read: no). */
function startsWithGzip(file: string): boolean {
  try {
    const fd = openSync(file, 'r');
    const head = Buffer.alloc(2);
    const read = readSync(fd, head, 0, 2, 0);
    closeSync(fd);
    return read === 2 && head[0] === 0x1f && head[1] === 0x8b;
  } catch {
    return false;
  }
}

function readRecordingFile(file: string): string {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    fail(`${file}: cannot read it (${code === 'ENOENT' ? 'no such file' : code}).`);
  }
  try {
    const chunks: Buffer[] = [];
    let length = 0;
    const buffer = Buffer.alloc(1024 * 1024);
    for (;;) {
      const read = readSync(fd, buffer, 0, buffer.length, null);
      if (read === 0) break;
      chunks.push(Buffer.from(buffer.subarray(0, read)));
      length += read;
      if (length > RECORDING_FILE_MAX_CHARS)
        fail(
          `${file}: over ${RECORDING_FILE_MAX_CHARS / 1024 / 1024} MiB: not a recording this command reads.`,
        );
    }
    return Buffer.concat(chunks).toString('utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EISDIR') fail(`${file}: it is a folder, not a recording.`);
    throw error;
  } finally {
    closeSync(fd);
  }
}
