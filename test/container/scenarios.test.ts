/**
 * The scenario catalogue in external mode against the container: badges in this process
 * connect to it over WebSocket and the runner moves its clock through the control API.
 */
import { afterAll, describe, expect, inject, test } from 'vitest';
import { StubControlClient } from '../../client/control-client.ts';
import { DEFAULT_FIXTURES_FILE, loadFixturesFile } from '../../fixtures/load-fixtures.ts';
import { loadScenarioFile } from '../../scenarios/format/load-scenario.ts';
import { formatReport } from '../../scenarios/reports/console.reporter.ts';
import { runScenario } from '../../scenarios/runner/run-scenario.ts';
import { findScenarioFiles } from '../../scenarios/runner/run-suite.ts';

const files = findScenarioFiles(['scenarios/catalogue']);

describe('the scenario catalogue against the container (external mode)', () => {
  const passed: string[] = [];
  // The CI log lists what passed against the container (vitest shows only slow tests by name).
  afterAll(async () => {
    // Scenarios load their own fixtures: leave the shared container with the default ones.
    await new StubControlClient(inject('badgeSimUrl'), {
      controlToken: inject('badgeSimControlToken'),
    }).loadFixtures(loadFixturesFile(DEFAULT_FIXTURES_FILE));
    console.log(
      `${passed.length} of ${files.length} scenarios passed against the container:\n${passed.map((name) => `  ✓ ${name}`).join('\n')}`,
    );
  });

  test.each(files)('%s', async (file) => {
    const report = await runScenario(loadScenarioFile(file), {
      mode: 'external',
      stubUrl: inject('badgeSimUrl'),
      controlToken: inject('badgeSimControlToken'),
    });
    if (report.passed) passed.push(report.name);
    // The console report lays expected and actual side by side when it fails.
    expect(report.passed, formatReport(report)).toBe(true);
  });
});
