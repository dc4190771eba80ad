/**
 * `badge-sim generate --devices 3 --quorum default,1,2 --with cancel,timeout --out DIR`: the
 * paths of the alert model (model/paths.ts), each written as an ordinary scenario file whose
 * expectations are the model's prediction (scenarios/format/from-model.ts).
 */
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import {
  enumeratePaths,
  FEATURES,
  type Feature,
  MAX_DEVICES,
  MAX_PATHS,
  PathLimitError,
  type QuorumChoice,
} from '../model/paths.ts';
import { generatedConfig, scenarioOf, scenarioYaml } from '../scenarios/format/from-model.ts';
import { fail, integerOption } from './cli-errors.ts';
import { COMMANDS } from './commands.ts';

interface GenerateOptions {
  devices: number;
  quorum?: QuorumChoice[];
  with?: Feature[];
  out: string;
  force?: boolean;
}

export function generateCommand(): Command {
  return (
    new Command('generate')
      .description(COMMANDS.generate.description)
      .requiredOption(
        '--devices <n>',
        `badges in the alerted group, 1 to ${MAX_DEVICES}`,
        integerOption('--devices', 1, MAX_DEVICES),
      )
      .option(
        '--quorum <list>',
        'quorums to try, comma-separated: default (every badge; the default) or a number up to --devices',
        quorumList,
      )
      .option(
        '--with <list>',
        `more paths, comma-separated: ${FEATURES.join(', ')} (default: none)`,
        featureList,
      )
      .requiredOption('--out <dir>', 'the folder to write the scenario files to (made if missing)')
      .option('--force', 'write into a folder that already holds scenario files')
      // A refused option or argument exits 2, as in every command: cli/badge-sim.ts.
      .addHelpText(
        'after',
        `
Paths are capped at ${MAX_PATHS}: past it the command says so and writes nothing.

Examples:
  badge-sim generate --devices 3 --out generated
  badge-sim generate --devices 3 --quorum default,1,2 --with cancel,timeout,offline,same-name --out generated
  badge-sim run generated                                  run them on an embedded stub
  badge-sim run generated --stub http://127.0.0.1:8080     or against a running stub
`,
      )
      .action((options: GenerateOptions) => generate(options))
  );
}

function quorumList(value: string): QuorumChoice[] {
  const items = value.split(',').map((v) => v.trim());
  return items.map((item) => {
    if (item === 'default') return 'default';
    if (!/^\d+$/.test(item) || Number(item) < 1)
      throw new InvalidArgumentError(
        `--quorum takes default or whole numbers from 1, comma-separated, such as default,1,2 (not '${item}').`,
      );
    return Number(item);
  });
}

function featureList(value: string): Feature[] {
  return value.split(',').map((v) => {
    const item = v.trim() as Feature;
    if (!FEATURES.includes(item))
      throw new InvalidArgumentError(
        `--with takes ${FEATURES.join(', ')}, comma-separated (not '${item}').`,
      );
    return item;
  });
}

function generate(options: GenerateOptions): void {
  const quorums = [...new Set(options.quorum ?? ['default' as const])];
  const features = [...new Set(options.with ?? [])];
  const tooBig = quorums.find((q) => q !== 'default' && q > options.devices);
  if (tooBig !== undefined)
    fail(
      `--quorum ${tooBig} is more than --devices ${options.devices}: such an alert can only time out; ask for a quorum up to ${options.devices}.`,
    );
  if (holdsScenarios(options.out) && !options.force)
    fail(
      `--out ${options.out} already holds scenario files: give an empty folder, or --force to write among them.`,
    );
  const started = performance.now();
  let paths: ReturnType<typeof enumeratePaths>;
  try {
    paths = enumeratePaths(
      { devices: options.devices, quorums, features },
      generatedConfig(options.devices),
    );
  } catch (error) {
    if (error instanceof PathLimitError) fail(error.message);
    throw error;
  }
  try {
    mkdirSync(options.out, { recursive: true });
    const width = String(paths.length).length;
    paths.forEach((path, i) => {
      const quorum = path.quorum === 'default' ? 'qdefault' : `q${path.quorum}`;
      const file = `${String(i + 1).padStart(width, '0')}-${path.family}-${quorum}.scenario.yaml`;
      writeFileSync(
        join(options.out, file),
        scenarioYaml(scenarioOf(path, options.devices, i), path.inputs),
      );
    });
  } catch (error) {
    fail(
      `--out ${options.out}: cannot write there (${(error as NodeJS.ErrnoException).code ?? error}).`,
    );
  }
  const ms = Math.round(performance.now() - started);
  console.log(
    `badge-sim generate: ${paths.length} paths (${options.devices} devices, quorum ${quorums.join(',')}${features.length ? `, with ${features.join(',')}` : ''}) written to ${options.out} in ${ms} ms`,
  );
}

function holdsScenarios(dir: string): boolean {
  if (!existsSync(dir)) return false;
  if (!statSync(dir).isDirectory()) fail(`--out ${dir} is a file, not a folder.`);
  return readdirSync(dir).some((name) => name.endsWith('.scenario.yaml'));
}
