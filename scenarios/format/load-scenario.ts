/**
 * Reading scenarios: YAML files for QA, `defineScenario(...)` for developers. Both go through
 * the same check, and every error names the file, the line and the field.
 */

import { readFileSync } from 'node:fs';
import Type from 'typebox';
import { deviceFaultProblem } from '../../fixtures/device-faults.ts';
import { flakyEveryProblem } from '../../fixtures/flaky-every.ts';
import { checkFixtures, FixtureError } from '../../fixtures/load-fixtures.ts';
import { nearestWord } from '../../input/nearest-word.ts';
import { hasOwn } from '../../input/own.ts';
import {
  describeError,
  parseYaml,
  type YamlSource,
  YamlSyntaxError,
} from '../../input/yaml-source.ts';
import { type ValidateFunction, validatorOf } from '../../protocol/validator.ts';
import { decisionRow } from './decision-rows.ts';
import { fixturesFileOf, withFixturesFile } from './fixtures-file.ts';
import {
  type FromSnapshot,
  readFromSnapshot,
  snapshotFileOf,
  withSnapshotFixtures,
} from './from-snapshot.ts';
import { Scenario } from './scenario.schema.ts';
import { ScenarioError } from './scenario-error.ts';
import { checkReferences } from './scenario-references.ts';
import { Step } from './step.schema.ts';

// A scenario that cannot be used: thrown by the checks of each part, caught by every reader.
export { ScenarioError } from './scenario-error.ts';

/** A checked scenario and where it came from. */
export interface LoadedScenario {
  scenario: Scenario;
  /** The file, or `<code>` for `defineScenario`. */
  source: string;
  /** The fixtures file it names (`fixtures: { file }`), absolute, read into `scenario`. */
  fixturesFile?: string;
  /** The world snapshot it starts from (`from:`), read and checked when loaded (WS21). */
  from?: FromSnapshot;
  /**
   * Where the thing at a path (`badges.group`, `timeline[2].tap`) is written, as
   * `file:line:column`, for errors found when the scenario runs (a group or a device the
   * fixtures lack). The file is read again only then: a loaded scenario keeps no YAML tree.
   */
  where?: (path: string) => string;
}

/** The action keys of a step: exactly one per step. */
export const STEP_ACTIONS = [
  'alert',
  'broadcast',
  'cancel',
  'events',
  'request',
  'workflow',
  'device_info',
  'expire_tokens',
  'tap',
  'offline',
  'vanish',
  'online',
  'drop',
  'battery',
  'move',
  'jump',
  'fault',
  'clear_fault',
  'snapshot',
] as const;
export type StepAction = (typeof STEP_ACTIONS)[number];

/** Every field some step may have: its action and the fields that go with it. */
const STEP_FIELDS: ReadonlySet<string> = new Set([
  ...STEP_ACTIONS,
  ...Step.anyOf.flatMap((v: { properties: Record<string, unknown> }) => Object.keys(v.properties)),
]);

/** The scenario with its steps left to `validateStep`, for precise errors. */
const validateShell: ValidateFunction = validatorOf({
  ...Scenario,
  properties: { ...Scenario.properties, timeline: Type.Array(Type.Object({})) },
});
const stepValidators = new Map<StepAction, ValidateFunction>(
  STEP_ACTIONS.map((action) => {
    const variant = Step.anyOf.find(
      (v: { properties: Record<string, unknown> }) => action in v.properties,
    );
    return [action, validatorOf(variant!)];
  }),
);

/** Reads a `*.scenario.yaml` file. */
export function loadScenarioFile(file: string): LoadedScenario {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ScenarioError(`badge-sim: cannot read scenario ${file}: ${(error as Error).message}`);
  }
  return loadScenarioText(text, file);
}

/** Reads a scenario's YAML text, as the file `file` would be read (before it is written, say). */
export function loadScenarioText(text: string, file: string): LoadedScenario {
  let source: ReturnType<typeof parseYaml>;
  try {
    source = parseYaml(text, file);
  } catch (error) {
    if (error instanceof YamlSyntaxError) throw new ScenarioError(error.message);
    throw error;
  }
  try {
    return {
      ...withFilesRead(checkScenario(source.value), file),
      source: file,
      where: (path) => placeIn(file, parseYaml(text, file), path),
    };
  } catch (error) {
    if (!(error instanceof ScenarioError || error instanceof FixtureError)) throw error;
    throw new ScenarioError(
      `badge-sim: ${placeIn(file, source, error.path)}: ${error.message}`,
      error.path,
    );
  }
}

/** `file:line:column` of a path in a parsed file, or the file alone. */
function placeIn(file: string, source: YamlSource, path: string): string {
  const at = source.positionOf(path);
  return at ? `${file}:${at.line}:${at.col}` : file;
}

/** A scenario written in TypeScript: typed by the model, checked like a file. */
export function defineScenario(scenario: Scenario): LoadedScenario {
  try {
    return { ...withFilesRead(checkScenario(structuredClone(scenario))), source: '<code>' };
  } catch (error) {
    if (error instanceof ScenarioError || error instanceof FixtureError) {
      throw new ScenarioError(
        `badge-sim: scenario '${scenario.name}': ${error.message}`,
        error.path,
      );
    }
    throw error;
  }
}

/** The scenario with the files it names read in: its fixtures file, its `from:` snapshot. */
function withFilesRead(
  scenario: Scenario,
  file?: string,
): Pick<LoadedScenario, 'scenario' | 'fixturesFile' | 'from'> {
  const snapshotFile = snapshotFileOf(scenario, file);
  if (snapshotFile) {
    // Refused beside fixtures: the snapshot holds the fixtures it runs on.
    const from = readFromSnapshot(scenario, snapshotFile);
    return { scenario: withSnapshotFixtures(scenario, from), from };
  }
  const fixturesFile = fixturesFileOf(scenario, file);
  if (!fixturesFile) return { scenario };
  return { scenario: withFixturesFile(scenario, fixturesFile), fixturesFile };
}

/** Checks a scenario document: shape, steps, fixtures, and what refers to what. */
export function checkScenario(input: unknown): Scenario {
  if (!validateShell(input)) {
    const { path, message } = describeError(validateShell.errors!, '', {
      schema: validateShell.schema as object,
      data: input,
    });
    throw new ScenarioError(message, path);
  }
  const scenario = input as Scenario;
  scenario.decisions?.forEach((id, i) => {
    if (!decisionRow(id))
      throw new ScenarioError(
        `decisions[${i}]: '${id}' is no row of docs/decisions.md (ids such as L1, D3; see the Decisions table of the README)`,
        `decisions[${i}]`,
      );
  });
  scenario.timeline.forEach((step, i) => {
    checkStep(step, `timeline[${i}]`);
  });
  if (typeof scenario.fixtures === 'object' && hasOwn(scenario.fixtures, 'accounts')) {
    try {
      checkFixtures(scenario.fixtures);
    } catch (error) {
      if (error instanceof FixtureError)
        throw new ScenarioError(`fixtures.${error.message}`, `fixtures.${error.path}`);
      throw error;
    }
  }
  // A flaky badge drops at most once a second (I18), and device faults are whole: the same
  // checks as fixtures and fleets.
  for (const [ref, behaviour] of Object.entries(scenario.behaviours ?? {})) {
    const every = behaviour?.flaky?.every;
    const problem = every === undefined ? undefined : flakyEveryProblem(every);
    if (problem)
      throw new ScenarioError(
        `behaviours.${ref}.flaky.every ${problem}`,
        `behaviours.${ref}.flaky.every`,
      );
    const fault = deviceFaultProblem(behaviour);
    if (fault)
      throw new ScenarioError(
        `behaviours.${ref}.${fault.path} ${fault.message}`,
        `behaviours.${ref}.${fault.path}`,
      );
  }
  checkReferences(scenario);
  return scenario;
}

/** The action of a step. */
export function actionOf(step: Step): StepAction {
  return STEP_ACTIONS.find((action) => Object.hasOwn(step, action))!;
}

function checkStep(step: unknown, path: string): void {
  const keys = step && typeof step === 'object' ? Object.keys(step) : [];
  const actions = STEP_ACTIONS.filter((action) => keys.includes(action));
  // A misspelt action (`alrt`) is what to name, not the list of the eighteen there are.
  const unknown = keys.find((key) => !STEP_FIELDS.has(key));
  const nearest = unknown === undefined ? undefined : nearestWord(unknown, STEP_FIELDS);
  if (actions.length === 0 && unknown !== undefined && nearest !== undefined) {
    throw new ScenarioError(
      `${path}.${unknown} is no step kind or field of a step: did you mean ${nearest}?`,
      `${path}.${unknown}`,
    );
  }
  if (actions.length !== 1) {
    throw new ScenarioError(
      actions.length === 0
        ? `${path} needs one action: ${STEP_ACTIONS.join(', ')} (it has: ${keys.join(', ') || 'nothing'})`
        : `${path} has ${actions.join(' and ')}: one action a step`,
      path,
    );
  }
  const validate = stepValidators.get(actions[0]!)!;
  if (!validate(step)) {
    const { path: at, message } = describeError(validate.errors!, path, {
      schema: validate.schema as object,
      data: step,
    });
    throw new ScenarioError(message, at);
  }
}
