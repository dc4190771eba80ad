/**
 * The vitest integration as a user writes it: the catalogue as tests, the stub and fleet
 * fixtures, and the event matcher.
 */
import { describe, expect } from 'vitest';
import { CATALOGUE_DIR } from '../../scenarios/runner/run-suite.ts';
import { badgeTest, scenarioTests } from '../../scenarios/vitest.ts';
import { serviceClient } from '../support/http.ts';

// Every scenario of the built-in catalogue, one test each.
scenarioTests(CATALOGUE_DIR);

describe('fixtures and matchers', () => {
  badgeTest(
    'a hand-written test gets a stub and a connected fleet, and matches events',
    async ({ stub, fleet }) => {
      expect(fleet.connectedCount()).toBe(8);
      const api = serviceClient(stub);
      const { body } = await api.alert({
        notification: 'Code blue',
        groups: ['Nurses'],
        quorum: 1,
      });
      await fleet.advanceBy(10_000);
      fleet.badge('350000000000002').tap();
      await fleet.settled();
      const events = (await api.events()).body;
      expect(events).toMatchEventSequence(
        [
          { type: 'start', task: 'code', at: '0s' },
          { type: 'acknowledged', device: 'Ben Okafor', at: '10s' },
          { type: 'end', status: 'normal' },
        ],
        { only: true, tasks: { code: body.task_id } },
      );
      expect(events).not.toMatchEventSequence([{ type: 'timed_out' }]);
    },
  );

  badgeTest('the matcher explains a mismatch as timelines', async ({ stub }) => {
    const api = serviceClient(stub);
    await api.alert({ notification: 'x', groups: ['Security'], timeout: 60 });
    await stub.core.clock.advanceBy(60_000);
    const events = (await api.events()).body;
    let message = '';
    try {
      expect(events).toMatchEventSequence([
        { type: 'start' },
        { type: 'end', status: 'cancelled' },
      ]);
    } catch (error) {
      message = String((error as Error).message);
    }
    expect(message).toContain('events do not match');
    expect(message).toContain('expected event 2 (any time  end status=cancelled)');
    expect(message).toContain('+60s      timed_out');
  });
});
