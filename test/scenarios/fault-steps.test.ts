/**
 * Scenario steps for faults: `fault:` and `clear_fault:` on the timeline, and a request
 * step's `retry:` honouring Retry-After on the stub's clock.
 */
import { describe, expect, test } from 'vitest';
import { defineScenario, loadScenarioFile } from '../../scenarios/format/load-scenario.ts';
import { runScenario } from '../../scenarios/runner/run-scenario.ts';

const OUTAGE = {
  at: '0s',
  fault: {
    match: { method: 'POST', path: '/subscribers/*/api/v1/alerts' },
    action: { status: 503, retry_after: 5 },
    when: { times: 3 },
  },
} as const;

describe('fault steps', () => {
  test('the catalogue scenario: a retrying client gets its alert at the third try, 10 s in', async () => {
    const report = await runScenario(
      loadScenarioFile('scenarios/catalogue/client-retries-after-503.scenario.yaml'),
    );
    expect(report.failures).toEqual([]);
    expect(report.passed).toBe(true);
  });

  test('retries run out: expect sees the last answer, a 503, and no task was created', async () => {
    const report = await runScenario(
      defineScenario({
        name: 'Retries run out',
        proves: 'Two retries under three 503s end on a 503.',
        badges: 'none',
        timeline: [
          OUTAGE,
          {
            at: '0s',
            alert: { notification: 'x', groups: ['Nurses'] },
            retry: { times: 2, on: [503] },
            expect: { status: 503, body: { code: 'fault_injected' } },
          },
          { at: '11s', events: {}, expect: { status: 200, count: 0 } },
        ],
        expect: { events: { only: true, items: [] } },
      }),
    );
    expect(report.failures).toEqual([]);
  });

  test('without retry the first 503 is the answer; clear_fault all lets the next one through', async () => {
    const report = await runScenario(
      defineScenario({
        name: 'No retry',
        proves: 'A step without retry takes the 503.',
        badges: 'none',
        timeline: [
          OUTAGE,
          { at: '0s', alert: { notification: 'x', groups: ['Nurses'] }, expect: { status: 503 } },
          { at: '1s', clear_fault: 'all' },
          {
            at: '2s',
            alert: { notification: 'x', groups: ['Nurses'] },
            as: 'later',
            expect: { status: 200 },
          },
        ],
        expect: { events: [{ type: 'start', task: 'later', at: '2s' }] },
      }),
    );
    expect(report.failures).toEqual([]);
  });

  test('a fault the stub refuses fails the run with the step and the field', async () => {
    const run = runScenario(
      defineScenario({
        name: 'Bad fault',
        proves: 'A refused fault names its field.',
        badges: 'none',
        timeline: [{ at: '0s', fault: { match: { path: '/a*b' }, action: { status: 503 } } }],
        expect: {},
      }),
    );
    await expect(run).rejects.toThrow(/timeline\[0\]\.fault: .*"field":"match\.path"/);
  });

  test('clear_fault of a name no earlier step has is refused when the scenario loads', () => {
    expect(() =>
      defineScenario({
        name: 'x',
        proves: 'x',
        timeline: [{ at: '0s', clear_fault: 'nothing' }],
        expect: {},
      }),
    ).toThrow("timeline[0].clear_fault: no earlier step is named 'nothing'");
  });
});
