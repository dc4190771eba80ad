/** A scenario against a stub in another process that is not there says so, as a ScenarioError. */
import { createServer } from 'node:net';
import { expect, test } from 'vitest';
import { loadScenarioFile, ScenarioError } from '../../scenarios/format/load-scenario.ts';
import { runScenario } from '../../scenarios/runner/run-scenario.ts';

test('external mode against a port where no stub listens: "the stub at … is unreachable"', async () => {
  // A port that was free a moment ago: nothing listens there now.
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  const scenario = loadScenarioFile('scenarios/catalogue/single-acknowledgement.scenario.yaml');
  const run = runScenario(scenario, { mode: 'external', stubUrl: `http://127.0.0.1:${port}` });
  await expect(run).rejects.toThrow(ScenarioError);
  await expect(run).rejects.toThrow(
    new RegExp(
      `^badge-sim: the stub at http://127\\.0\\.0\\.1:${port} is unreachable \\(ECONNREFUSED\\)$`,
    ),
  );
});
