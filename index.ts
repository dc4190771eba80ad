/** badge-sim's public entry point: what a test suite imports. */

export { StubControlClient, type StubControlClientOptions } from './client/control-client.ts';
export {
  PagingError,
  ServiceClient,
  type ServiceClientOptions,
  ServiceError,
} from './client/service-client.ts';
export {
  type DeviceInfo,
  TokenError,
  TriggerClient,
  type TriggerClientOptions,
} from './client/trigger-client.ts';
export { type CaPem, fetchTrusting } from './client/trust.ts';
export type { Fixtures } from './fixtures/fixtures.schema.ts';
export { generateFixtures } from './fixtures/generate-fixtures.ts';
export { DEFAULT_FIXTURES_FILE, loadFixturesFile } from './fixtures/load-fixtures.ts';
export { type Clock, type ClockMode, SystemClock, VirtualClock } from './protocol/clock.ts';
export { CONTROL_TOKEN_HEADER } from './protocol/control-api.schema.ts';
export type {
  AlertRequest,
  AnalyticEvent,
  BroadcastRequest,
  ErrorBody,
} from './protocol/service-api.schema.ts';
export type { TokenValidation } from './protocol/token-api.schema.ts';
export {
  defineScenario,
  type LoadedScenario,
  loadScenarioFile,
  ScenarioError,
} from './scenarios/load-scenario.ts';
export {
  type RunMode,
  type RunOptions,
  runScenario,
  type ScenarioReport,
} from './scenarios/run-scenario.ts';
export { findScenarioFiles, runSuite } from './scenarios/run-suite.ts';
export type { Scenario } from './scenarios/scenario.schema.ts';
export type { StubSettings, StubSettingsInput } from './server-stub/settings.ts';
export { type StartStubOptions, type StubHandle, startStub } from './server-stub/start-stub.ts';
export { type StubTlsInfo, type StubTlsOptions, TlsSetupError } from './server-stub/tls.ts';
export type { Badge, BadgeStatus, HeardEntry } from './simulator/badge.ts';
export type { Behaviour } from './simulator/behaviours.ts';
export {
  type FleetHandle,
  type FleetOptions,
  type FleetSummary,
  startFleet,
  waitForStub,
} from './simulator/fleet.ts';
export type { TextToSpeech, TtsName } from './simulator/tts/text-to-speech.ts';
