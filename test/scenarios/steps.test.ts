/** The timeline's step table: one handler for each action the loader accepts, with its schema. */
import { expect, test } from 'vitest';
import { STEP_ACTIONS } from '../../scenarios/format/load-scenario.ts';
import { STEP_HANDLERS } from '../../scenarios/runner/steps.ts';

test('every step action has one handler, whose schema is the step variant of that action', () => {
  expect([...STEP_HANDLERS.keys()].sort()).toEqual([...STEP_ACTIONS].sort());
  for (const [action, { schema }] of STEP_HANDLERS) {
    expect(schema.required, action).toContain(action);
    expect(Object.keys(schema.properties), action).toContain('at');
  }
});
