/**
 * badge-sim's public entry point: what a test suite imports. The functions, classes and
 * constants are here; every type is in `public-types.ts`.
 */

export { StubControlClient } from './client/control-client.ts';
export { PagingError, ServiceClient, ServiceError } from './client/service-client.ts';
export { TokenError, TriggerClient } from './client/trigger-client.ts';
export { fetchTrusting } from './client/trust.ts';
export { SystemClock, VirtualClock } from './clock/clock.ts';
export { generateFixtures } from './fixtures/generate-fixtures.ts';
export { DEFAULT_FIXTURES_FILE, loadFixturesFile } from './fixtures/load-fixtures.ts';
export { CONTROL_TOKEN_HEADER } from './protocol/control-api.schema.ts';
export type * from './public-types.ts';
export {
  defineScenario,
  loadScenarioFile,
  ScenarioError,
} from './scenarios/format/load-scenario.ts';
export { RunCoverage } from './scenarios/runner/coverage.ts';
export { runScenario } from './scenarios/runner/run-scenario.ts';
export { findScenarioFiles, runSuite } from './scenarios/runner/run-suite.ts';
export { TlsSetupError } from './server-stub/tls.ts';
export { BadgeCoverage, badgeTransitions } from './simulator/badge-coverage.ts';
export { startFleet, waitForStub } from './simulator/fleet.ts';
export { HttpStubConnection } from './stub-connection/http-stub-connection.ts';
export { InProcessStubConnection } from './stub-connection/in-process-stub-connection.ts';

import {
  type StartStubOptions,
  type StubHandle,
  startStub as startServer,
} from './server-stub/start-stub.ts';

/**
 * Starts a stub listening on a real port; with `badges`, virtual badges in this process too
 * (the simulator, loaded only then). Composed here, at the top of the layers, so that the
 * server never imports the simulator (docs/architecture.md, "Layers").
 */
export function startStub(options: StartStubOptions = {}): Promise<StubHandle> {
  return startServer(options, async (stub, which, snapshot) =>
    (await import('./simulator/stub-badges.ts')).runStubBadges(stub, which, snapshot),
  );
}
