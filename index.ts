/**
 * badge-sim's public entry point: what a test suite imports. The functions, classes and
 * constants are here; every type is in `public-types.ts`.
 */

export { StubControlClient } from './client/control-client.ts';
export { PagingError, ServiceClient, ServiceError } from './client/service-client.ts';
export { TokenError, TriggerClient } from './client/trigger-client.ts';
export { fetchTrusting } from './client/trust.ts';
export { generateFixtures } from './fixtures/generate-fixtures.ts';
export { DEFAULT_FIXTURES_FILE, loadFixturesFile } from './fixtures/load-fixtures.ts';
export { SystemClock, VirtualClock } from './protocol/clock.ts';
export { CONTROL_TOKEN_HEADER } from './protocol/control-api.schema.ts';
export type * from './public-types.ts';
export { RunCoverage } from './scenarios/coverage.ts';
export { defineScenario, loadScenarioFile, ScenarioError } from './scenarios/load-scenario.ts';
export { runScenario } from './scenarios/run-scenario.ts';
export { findScenarioFiles, runSuite } from './scenarios/run-suite.ts';
export { startStub } from './server-stub/start-stub.ts';
export { TlsSetupError } from './server-stub/tls.ts';
export { BadgeCoverage, badgeTransitions } from './simulator/badge-coverage.ts';
export { startFleet, waitForStub } from './simulator/fleet.ts';
export { HttpStubConnection } from './simulator/http-stub-connection.ts';
export { InProcessStubConnection } from './simulator/in-process-stub-connection.ts';
