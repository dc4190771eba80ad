/**
 * What a scenario's parts say of each other, checked once its shape is: the names steps give
 * (`as`) and what refers to them, steps in time order and none inside a jump, the duration.
 */

import { withSuggestion } from '../../input/nearest-word.ts';
import { hasOwn } from '../../input/own.ts';
import { formatDuration, parseDuration } from '../../protocol/duration.ts';
import { ACCESS_TOKEN_LIFETIME_MS } from '../../server-stub/engine/tokens.ts';
import type { Scenario } from './scenario.schema.ts';
import { ScenarioError } from './scenario-error.ts';
import type { Step } from './step.schema.ts';

/** A jump of the clock: the step that made it, where it starts and ends (ms). */
interface Jump {
  index: number;
  at: number;
  end: number;
}

/** The timeline's order and names, then the expectations' and the duration's references. */
export function checkReferences(scenario: Scenario): void {
  const { names, last, jump } = checkTimeline(scenario.timeline);
  checkNamedTasks(scenario, names);
  checkDuration(scenario, last, jump);
}

/**
 * Each step's name, references, time and durations; returns the names given, the time of
 * the last step and the last jump.
 */
function checkTimeline(timeline: Step[]): {
  names: Set<string>;
  last: number;
  jump: Jump | undefined;
} {
  // A name given with `as` is what `task:` and `cancel:` refer to: check them now.
  const names = new Set<string>();
  let last = 0;
  let jump: Jump | undefined;
  timeline.forEach((step, i) => {
    checkStepNames(step, `timeline[${i}]`, names);
    checkFaultWords(step, `timeline[${i}]`);
    const at = duration(step.at, `timeline[${i}].at`);
    if (step.repeat) duration(step.repeat.every, `timeline[${i}].repeat.every`);
    checkStepTime(step, i, at, last, jump);
    const by = hasOwn(step, 'jump')
      ? duration(step.jump, `timeline[${i}].jump`)
      : hasOwn(step, 'expire_tokens')
        ? ACCESS_TOKEN_LIFETIME_MS
        : 0;
    if (by > 0) {
      const from = Math.max(at, jump?.end ?? 0);
      jump = { index: i, at, end: from + by };
    }
    last = at;
  });
  return { names, last, jump };
}

/** The step's `as` (a new name, added to `names`), what it clears, and its request's path. */
function checkStepNames(step: Step, path: string, names: Set<string>): void {
  if (step.as) {
    if (names.has(step.as))
      throw new ScenarioError(
        `${path}.as '${step.as}' is already the name of an earlier step`,
        `${path}.as`,
      );
    names.add(step.as);
  }
  if (hasOwn(step, 'clear_fault') && step.clear_fault !== 'all' && !names.has(step.clear_fault))
    throw new ScenarioError(
      withSuggestion(
        `${path}.clear_fault: no earlier step is named '${step.clear_fault}' (write all for every fault)`,
        step.clear_fault,
        [...names],
        'steps named so far',
        true,
      ),
      `${path}.clear_fault`,
    );
  // A request step stays under the service API: `..`, plain or percent-encoded, would
  // reach other paths (the token endpoint, whose answer would then land in a report).
  if (hasOwn(step, 'request') && /\.\.|%2e/i.test(step.request.path))
    throw new ScenarioError(
      `${path}.request.path '${step.request.path}' must stay under /subscribers/{id}/api/v1/: no '..'`,
      `${path}.request.path`,
    );
}

/** A step comes after the one above it, and not inside a jump (it would run at its end). */
function checkStepTime(
  step: Step,
  i: number,
  at: number,
  last: number,
  jump: Jump | undefined,
): void {
  if (at < last) {
    throw new ScenarioError(
      `timeline[${i}].at ${step.at} is before the step above it: steps go in time order`,
      `timeline[${i}].at`,
    );
  }
  // A jump moves the clock on: a later step inside it would silently run at its end.
  if (jump && at > jump.at && at < jump.end) {
    throw new ScenarioError(
      `timeline[${i}].at ${step.at} falls inside the jump of timeline[${jump.index}] (${formatDuration(jump.at)} → ${formatDuration(jump.end)}): write at: ${formatDuration(jump.at)} to run right after it, or ${formatDuration(jump.end)} or later`,
      `timeline[${i}].at`,
    );
  }
}

/** The tasks and events' tasks the expectations name are steps' names. */
function checkNamedTasks(scenario: Scenario, names: Set<string>): void {
  const tasks = Object.keys(scenario.expect.tasks ?? {});
  for (const name of tasks) {
    if (!names.has(name))
      throw new ScenarioError(
        withSuggestion(
          `expect.tasks.${name}: no step is named '${name}' (as: ${name})`,
          name,
          [...names],
          'steps named',
          true,
        ),
        `expect.tasks.${name}`,
      );
  }
  const items =
    scenario.expect.events === undefined
      ? []
      : Array.isArray(scenario.expect.events)
        ? scenario.expect.events
        : scenario.expect.events.items;
  const itemsPath = Array.isArray(scenario.expect.events) ? 'expect.events' : 'expect.events.items';
  items.forEach((item, i) => {
    if (item.task && !names.has(item.task)) {
      throw new ScenarioError(
        withSuggestion(
          `${itemsPath}[${i}].task: no step is named '${item.task}'`,
          item.task,
          [...names],
          'steps named',
          true,
        ),
        `${itemsPath}[${i}].task`,
      );
    }
  });
}

/** The duration ends neither inside a jump nor before the last step. */
function checkDuration(scenario: Scenario, last: number, jump: Jump | undefined): void {
  const length =
    scenario.duration === undefined ? undefined : duration(scenario.duration, 'duration');
  if (length !== undefined && jump && length > jump.at && length < jump.end) {
    throw new ScenarioError(
      `duration ${scenario.duration} ends inside the jump of timeline[${jump.index}] (${formatDuration(jump.at)} → ${formatDuration(jump.end)}): write ${formatDuration(jump.end)} or later, or leave it out`,
      'duration',
    );
  }
  if (length !== undefined && length < last) {
    throw new ScenarioError(
      `duration ${scenario.duration} ends before the last step (${scenario.timeline.at(-1)?.at})`,
      'duration',
    );
  }
}

/**
 * A duration the schema's pattern let through, in ms; too long (over 3650 days) or not whole
 * milliseconds (`0.5ms`) is refused.
 */
function duration(text: string, path: string): number {
  const ms = parseDuration(text);
  if (ms === undefined) {
    throw new ScenarioError(
      `${path} '${text}' is not a duration of whole milliseconds up to 3650 days`,
      path,
    );
  }
  return ms;
}

/**
 * A tap step's fault words go together only one way: a lost tap is neither delayed nor
 * duplicated, and a gap is between copies; a drop lasts a duration in bounds.
 */
function checkFaultWords(step: Step, path: string): void {
  if (hasOwn(step, 'drop')) duration(step.for, `${path}.for`);
  if (!hasOwn(step, 'tap')) return;
  if (step.delay !== undefined) duration(step.delay, `${path}.delay`);
  if (step.gap !== undefined) duration(step.gap, `${path}.gap`);
  if (step.lost && (step.delay !== undefined || step.duplicate !== undefined))
    throw new ScenarioError(
      `${path}.lost: a lost tap never leaves, so it is neither delayed nor duplicated: give lost alone`,
      `${path}.lost`,
    );
  if (step.gap !== undefined && step.duplicate === undefined)
    throw new ScenarioError(
      `${path}.gap is the time between the copies of a duplicated tap: give duplicate too`,
      `${path}.gap`,
    );
}
