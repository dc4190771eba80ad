/**
 * An embedded run linked to its stub without a socket: badges (decision SP5) and requests
 * (SP6). The same frames and requests reach the same code, so every catalogue scenario reports
 * byte for byte what it reports on the network, and no badge upgrades a connection on the
 * stub's port.
 */
import { afterAll, describe, expect, test } from 'vitest';
import { loadScenarioFile } from '../../scenarios/format/load-scenario.ts';
import { runScenario } from '../../scenarios/runner/run-scenario.ts';
import { findScenarioFiles } from '../../scenarios/runner/run-suite.ts';
import { closeScenarioStubs } from '../../scenarios/runner/scenario-stubs.ts';

afterAll(closeScenarioStubs);

describe('a run linked in process (SP5, SP6)', () => {
  test('every catalogue scenario reports byte for byte what it reports on the network', async () => {
    for (const file of findScenarioFiles([])) {
      const loaded = loadScenarioFile(file);
      const inProcess = JSON.stringify(await runScenario(loaded));
      const onTheNetwork = JSON.stringify(await runScenario(loaded, { link: 'network' }));
      expect(inProcess, file).toBe(onTheNetwork);
    }
  }, 180_000);

  test('an embedded run upgrades no connection: its badges never touch the port', async () => {
    // The upgrades a stub of this process takes, counted on every server it starts.
    const upgrades: string[] = [];
    const { Server } = await import('node:http');
    const emit = Server.prototype.emit as (event: string, ...args: unknown[]) => boolean;
    Server.prototype.emit = function (this: unknown, event: string, ...args: unknown[]) {
      if (event === 'upgrade') upgrades.push(String((args[0] as { url?: string }).url));
      return emit.call(this, event, ...args);
    } as typeof Server.prototype.emit;
    try {
      const loaded = loadScenarioFile(
        findScenarioFiles([]).find((file) => file.endsWith('default-quorum.scenario.yaml'))!,
      );
      const report = await runScenario(loaded);
      expect(report.passed).toBe(true);
      expect(Object.keys(report.actual.heard).length).toBeGreaterThan(0);
      expect(upgrades).toEqual([]);
      await runScenario(loaded, { link: 'network' });
      expect(upgrades.length).toBeGreaterThan(0);
    } finally {
      Server.prototype.emit = emit;
    }
  });
});
