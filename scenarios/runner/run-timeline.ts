/** The timeline run: each step at its time, done by its handler, its answer checked. */

import { parseDuration } from '../../protocol/duration.ts';
import { checkResponse, type Failure } from '../checks/expectations.ts';
import { actionOf } from '../format/load-scenario.ts';
import type { Scenario } from '../format/scenario.schema.ts';
import type { StepObserver } from './step-progress.ts';
import { STEP_HANDLERS, type StepContext } from './steps.ts';

/**
 * Each step at its time (repeats unrolled, ties in file order), done by its handler; what a
 * request step got is checked against its `expect`. Returns those checks' failures.
 */
export async function runTimeline(
  scenario: Scenario,
  context: StepContext,
  onStep?: StepObserver,
): Promise<Failure[]> {
  const failures: Failure[] = [];
  const expanded = scenario.timeline.flatMap((step, index) =>
    Array.from({ length: step.repeat?.times ?? 1 }, (_, n) => ({
      step,
      index,
      at: parseDuration(step.at)! + n * (step.repeat ? parseDuration(step.repeat.every)! : 0),
    })),
  );
  expanded.sort((a, b) => a.at - b.at || a.index - b.index);
  for (const { step, index, at } of expanded) {
    await context.advanceTo(context.start + at);
    const path = `timeline[${index}]`;
    const action = actionOf(step);
    const answer = await STEP_HANDLERS.get(action)!.run(step, path, context);
    await context.fleet?.settled();
    const failure =
      answer && step.expect
        ? checkResponse(
            `${path} ${action} answer${step.as ? ` (${step.as})` : ''}`,
            step.expect,
            answer.status,
            answer.body,
          )
        : undefined;
    if (failure) failures.push(failure);
    const [status, mismatch] = [answer?.status, failure?.message];
    onStep?.({ scenario: scenario.name, index, at, action, step, status, mismatch });
  }
  return failures;
}
