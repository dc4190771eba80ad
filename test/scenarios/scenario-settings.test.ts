/**
 * A scenario's `settings:` (decision Y4): the embedded stub starts with them; an external stub
 * that runs with others is an error that says how to start it, and nothing is loaded into it.
 */
import { describe, expect, test } from 'vitest';
import { StubControlClient } from '../../client/control-client.ts';
import { defineScenario } from '../../scenarios/format/load-scenario.ts';
import { runScenario } from '../../scenarios/runner/run-scenario.ts';
import { startStub } from '../../server-stub/start-stub.ts';

const CANCELLED_AS_NORMAL = defineScenario({
  name: 'A cancel ends normal',
  proves: 'With cancel_events end-normal, a DELETE ends the alert with status normal.',
  settings: { cancel_events: 'end-normal' },
  badges: 'none',
  timeline: [
    { at: '0s', alert: { notification: 'Spill', groups: ['Nurses'] }, as: 'spill' },
    { at: '10s', cancel: 'spill' },
  ],
  expect: {
    events: {
      only: true,
      items: [
        { type: 'start', task: 'spill', at: '0s' },
        { type: 'end', task: 'spill', status: 'normal', at: '10s' },
      ],
    },
  },
});

describe('scenario settings', () => {
  test('the embedded stub runs with them: a cancel ends normal', async () => {
    const report = await runScenario(CANCELLED_AS_NORMAL);
    expect(report.failures).toEqual([]);
    // Without the setting the same scenario fails: the end is cancelled.
    const { settings: _, ...scenario } = CANCELLED_AS_NORMAL.scenario;
    const without = await runScenario({ ...CANCELLED_AS_NORMAL, scenario });
    expect(without.passed).toBe(false);
    expect(JSON.stringify(without.failures)).toContain('cancelled');
  });

  test('an external stub with other settings: an error naming the setting and the flag; nothing loaded', async () => {
    const own = {
      accounts: [
        {
          subscriber_id: '900001',
          api_keys: ['own-api-key-1'],
          groups: [{ id: '9001', name: 'Porters', members: ['300000000000001'] }],
          devices: [{ id: '300000000000001', user: 'Own Porter' }],
        },
      ],
    };
    await using stub = await startStub({ fixtures: own });
    const before = await new StubControlClient(stub.url).devices();
    await expect(
      runScenario(CANCELLED_AS_NORMAL, { mode: 'external', stubUrl: stub.url }),
    ).rejects.toThrow(
      `the scenario needs settings.cancel_events end-normal (the stub at ${stub.url} runs end-cancelled): start that stub with --cancel-events end-normal`,
    );
    expect(before.map((d) => d.user)).toEqual(['Own Porter']);
    expect(await new StubControlClient(stub.url).devices()).toEqual(before);
  });

  test('an external stub started with them runs the scenario', async () => {
    await using stub = await startStub({ settings: { cancelEvents: 'end-normal' } });
    const report = await runScenario(CANCELLED_AS_NORMAL, { mode: 'external', stubUrl: stub.url });
    expect(report.failures).toEqual([]);
  });

  test('a setting of the wrong value is refused by the loader, naming it', () => {
    expect(() =>
      defineScenario({
        ...CANCELLED_AS_NORMAL.scenario,
        settings: { cancel_events: 'sometimes' } as never,
      }),
    ).toThrow(/settings\.cancel_events/);
  });
});
