/**
 * Embedded stubs kept from one scenario to the next (decision SP1): each scenario still starts
 * from a clean world, so a run on a kept stub reports byte for byte what a run on a new stub
 * reports, whatever ran before it on that stub.
 */
import { afterAll, describe, expect, test } from 'vitest';
import {
  defineScenario,
  type LoadedScenario,
  loadScenarioFile,
} from '../../scenarios/format/load-scenario.ts';
import { runScenario } from '../../scenarios/runner/run-scenario.ts';
import { findScenarioFiles } from '../../scenarios/runner/run-suite.ts';
import { closeScenarioStubs, scenarioStubCounts } from '../../scenarios/runner/scenario-stubs.ts';

/** Fails on purpose: its failure names the request journal's entries by their ids. */
const JOURNAL_IDS = defineScenario({
  name: 'Journal ids in a failure',
  proves: 'A failed requests: expectation names journal entries by id, from #1 in every run.',
  seed: 5,
  badges: 'none',
  timeline: [
    { at: '0s', alert: { notification: 'One', groups: ['Nurses'] } },
    { at: '1s', events: {} },
  ],
  expect: { requests: [{ method: 'POST', path: '**/alerts', status: 500 }] },
});

/** On generated fixtures: made once, shared by every run, copied by the stub. */
const GENERATED = defineScenario({
  name: 'Generated fixtures',
  proves: 'A scenario on generated fixtures reports the same on a kept stub.',
  fixtures: { generate: { seed: 7, devicesPerAccount: 3 } },
  badges: 'none',
  timeline: [{ at: '0s', events: {}, expect: { status: 200, count: 0 } }],
  expect: {},
});

const suite: LoadedScenario[] = [
  ...findScenarioFiles([]).map((file) => loadScenarioFile(file)),
  JOURNAL_IDS,
  GENERATED,
];
const reportOf = async (loaded: LoadedScenario) => JSON.stringify(await runScenario(loaded));

afterAll(closeScenarioStubs);

describe('a kept stub', () => {
  test('every catalogue scenario reports byte for byte what it reports on a new stub, in any order', async () => {
    const fresh = new Map<string, string>();
    for (const loaded of suite) {
      await closeScenarioStubs();
      fresh.set(loaded.source + loaded.scenario.name, await reportOf(loaded));
    }
    expect(fresh.get(JOURNAL_IDS.source + JOURNAL_IDS.scenario.name)).toContain('#1 POST');

    const before = scenarioStubCounts();
    // Backwards, then forwards: each scenario runs after other ones than before.
    for (const loaded of [...suite].reverse().concat(suite))
      expect(await reportOf(loaded), loaded.source).toBe(
        fresh.get(loaded.source + loaded.scenario.name),
      );
    const after = scenarioStubCounts();
    // One stub a set of settings the catalogue uses, the rest renewed.
    expect(after.started - before.started).toBeLessThanOrEqual(3);
    expect(after.renewed - before.renewed).toBeGreaterThan(2 * suite.length - 4);
  }, 180_000);
});
