/**
 * `badge-sim generate`'s suite for 3 badges (every quorum and feature) against the container,
 * as CI runs it: the model and the image's stub must agree on every path.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, test } from 'vitest';
import { StubControlClient } from '../../client/control-client.ts';
import { DEFAULT_FIXTURES_FILE, loadFixturesFile } from '../../fixtures/load-fixtures.ts';
import { findScenarioFiles, runSuite } from '../../scenarios/runner/run-suite.ts';
import { runCli } from '../support/cli.ts';
import { GENERATE_3_BADGES } from '../support/generated-suite.ts';

describe('the generated 3-badge suite against the container (external mode)', () => {
  afterAll(async () => {
    // Scenarios load their own fixtures: leave the shared container with the default ones.
    await new StubControlClient(inject('badgeSimUrl'), {
      controlToken: inject('badgeSimControlToken'),
    }).loadFixtures(loadFixturesFile(DEFAULT_FIXTURES_FILE));
  });

  test('every generated scenario passes', { timeout: 300_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'badge-sim-generate-'));
    const generated = runCli(['generate', ...GENERATE_3_BADGES, '--out', dir]);
    expect(generated.status, generated.stderr).toBe(0);
    const files = findScenarioFiles([dir]);
    const started = performance.now();
    const summary = await runSuite(files, {
      reporters: [],
      mode: 'external',
      stubUrl: inject('badgeSimUrl'),
      controlToken: inject('badgeSimControlToken'),
    });
    const failed = summary.reports.filter((r) => !r.passed);
    expect(failed.map((r) => `${r.source}: ${JSON.stringify(r.failures[0])}`)).toEqual([]);
    expect(summary.passed).toBe(files.length);
    console.log(
      `badge-sim generate: ${files.length} generated scenarios passed against the container in ${Math.round(performance.now() - started)} ms`,
    );
  });
});
