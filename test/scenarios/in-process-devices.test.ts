/**
 * Badges linked to their embedded stub without a socket (decision SP5): the same frames reach
 * the same gateway and badge code, so every catalogue scenario reports byte for byte what it
 * reports with its badges on WebSocket, and no badge upgrades a connection on the stub's port.
 */
import { afterAll, describe, expect, test } from 'vitest';
import { loadScenarioFile } from '../../scenarios/load-scenario.ts';
import { runScenario } from '../../scenarios/run-scenario.ts';
import { findScenarioFiles } from '../../scenarios/run-suite.ts';
import { closeScenarioStubs } from '../../scenarios/scenario-stubs.ts';

afterAll(closeScenarioStubs);

describe('badges linked in process (SP5)', () => {
  test('every catalogue scenario reports byte for byte what it reports with its badges on WebSocket', async () => {
    for (const file of findScenarioFiles([])) {
      const loaded = loadScenarioFile(file);
      const inProcess = JSON.stringify(await runScenario(loaded));
      const overWebSocket = JSON.stringify(await runScenario(loaded, { deviceLink: 'websocket' }));
      expect(inProcess, file).toBe(overWebSocket);
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
      await runScenario(loaded, { deviceLink: 'websocket' });
      expect(upgrades.length).toBeGreaterThan(0);
    } finally {
      Server.prototype.emit = emit;
    }
  });
});
