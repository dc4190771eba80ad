import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, normalize } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { fail } from './cli-errors.ts';
import { COMMANDS } from './commands.ts';
import { INSTALLED_SCHEMA, type InitFile, initFiles } from './init-templates.ts';

interface InitOptions {
  dir: string;
  force?: boolean;
}

/** `badge-sim init`: a project's first scenarios, fixtures, vitest test and CI (decision Y8). */
export function initCommand(): Command {
  return new Command('init')
    .description(COMMANDS.init.description)
    .option(
      '--dir <folder>',
      'the folder for the scenarios, the fixtures and the vitest test, inside this project',
      scenariosFolder,
      'scenarios',
    )
    .option('--force', 'overwrite the files that exist (nothing is written over without it)')
    .addHelpText(
      'after',
      `
Writes, in the current folder (the project):
${initFiles('scenarios')
  .map((file) => `  ${file.path.padEnd(38)}${file.what}`)
  .join('\n')}

Examples:
  badge-sim init                 then: npx badge-sim run scenarios/
  badge-sim init --dir e2e       the scenarios in e2e/ instead
  badge-sim init --force         write the files again over yours
`,
    )
    .action((options: InitOptions) => {
      const project = process.cwd();
      const files = initFiles(options.dir);
      const existing = existingFiles(project, files);
      if (existing.length > 0 && !options.force)
        fail(
          `init: ${existing.join(', ')} ${existing.length === 1 ? 'exists' : 'exist'}: nothing was written. Give --force to overwrite, or --dir another folder.`,
        );
      writeInitFiles(project, files);
      process.stdout.write(nextSteps(project, files, options.dir));
    });
}

/** A folder inside the project, as `--dir` takes it. */
function scenariosFolder(value: string): string {
  const folder = normalize(value).replace(/[/\\]+$/, '');
  if (isAbsolute(folder) || folder === '..' || folder.startsWith('../') || folder === '.')
    throw new InvalidArgumentError(
      '--dir must be a folder inside this project, such as scenarios or test/e2e.',
    );
  return folder;
}

/** The files of `files` that exist in the project already. */
export function existingFiles(project: string, files: readonly InitFile[]): string[] {
  return files.filter((file) => existsSync(join(project, file.path))).map((file) => file.path);
}

/** Writes the files into the project, their folders made as needed. */
export function writeInitFiles(project: string, files: readonly InitFile[]): void {
  for (const file of files) {
    const path = join(project, file.path);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, file.text);
  }
}

/** What was written and what to do next. */
function nextSteps(project: string, files: readonly InitFile[], folder: string): string {
  const steps: [string, string][] = [
    [`npx badge-sim run ${folder}/`, 'run the scenarios (exit 1 if one fails)'],
    [`npx badge-sim run ${folder}/ --watch`, 'again each time a scenario or its fixtures change'],
    [`npx vitest run ${folder}/`, 'the same as vitest tests'],
  ];
  // Run from a checkout or a global install, the package is not where the $schema line says.
  if (!existsSync(join(project, INSTALLED_SCHEMA)))
    steps.unshift([
      'npm install -D badge-sim vitest',
      'so npx, the test and the $schema line find it',
    ]);
  const lines = (rows: [string, string][]) =>
    rows.map(([left, right]) => `  ${left.padEnd(38)}${right}`).join('\n');
  return `badge-sim init: wrote
${lines(files.map((file) => [file.path, file.what]))}

Next:
${lines(steps)}
Editors complete a scenario's fields from ${INSTALLED_SCHEMA}
(the scenario's first line: # yaml-language-server: $schema=…).
`;
}
