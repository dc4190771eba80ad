/**
 * Every type a user of `badge-sim` sees, in one place: the options they pass, the handles and
 * answers they get back, and the types those mention. `index.ts` re-exports it all. A type
 * that the declarations of an entry point reach must be exported from one of these files
 * (test/package/types.test.ts walks the published `.d.ts` files to check); whatever is not
 * here is internal and may change without notice.
 */

// Clients of the stub's three interfaces, and what they send and answer.
export type {
  JournalFilter,
  LiveMessage,
  StubControlClientOptions,
  WaitForEventOptions,
} from './client/control-client.ts';
export type { RawResponse, ServiceClientOptions } from './client/service-client.ts';
export type { SnapshotOptions } from './client/snapshot-query.ts';
export type { DeviceInfo, TriggerClientOptions } from './client/trigger-client.ts';
export type { CaPem } from './client/trust.ts';
// Clocks.
export type { Clock, ClockMode, ClockState, SettleHook, TimerId } from './clock/clock.ts';
// Fixtures: the accounts, groups and devices a stub serves.
export type {
  BatteryDrain,
  DropMidPlay,
  FixtureBehaviour,
  Fixtures,
  TapFaults,
  TapRule,
} from './fixtures/fixtures.schema.ts';
export type { GenerateOptions } from './fixtures/generate-fixtures.ts';
// The alert model's history, as `run --coverage` reads a run (RunCoverage.addHistory).
export type { Sent } from './model/lifecycle-state.ts';
export type { ServiceHistory } from './model/observe.ts';
export type {
  AwaitedEvent,
  ClockAdvanced,
  ClockView,
  DeviceAwaited,
  DeviceFacts,
  DeviceView,
  DeviceWant,
  GenerateRequest,
  Health,
  RefreshTokenRequest,
  Revoked,
  Settled,
  TapResult,
  TaskView,
  TranscriptEntryView,
} from './protocol/control-api.schema.ts';
export type { BatteryStatus, Location, StubFrame } from './protocol/device-frames.schema.ts';
export type {
  FaultAction,
  FaultMatch,
  FaultRequest,
  FaultsCleared,
  FaultView,
  FaultWhen,
} from './protocol/faults.schema.ts';
export type {
  AppliedFaultView,
  JournalCleared,
  JournalEntry,
  JournalPage,
  JournalQuery,
  RequestMatcher,
} from './protocol/journal.schema.ts';
export type {
  DeviceSwitched,
  LiveDevice,
  LiveEvent,
  LiveHeard,
  LiveSnapshot,
  LiveTask,
  LiveUpdate,
} from './protocol/live-stream.schema.ts';
export type {
  Recording,
  RecordingCleared,
  RecordKind,
  RecordLine,
} from './protocol/recording.schema.ts';
export type {
  AlertRequest,
  AnalyticEvent,
  BroadcastRequest,
  ErrorBody,
} from './protocol/service-api.schema.ts';
export type { WorldSnapshot } from './protocol/snapshot.schema.ts';
export type { TokenValidation } from './protocol/token-api.schema.ts';
export type { ActualHeard, Failure } from './scenarios/checks/expectations.ts';
export type { DecisionRow } from './scenarios/format/decision-rows.ts';
export type { FromSnapshot } from './scenarios/format/from-snapshot.ts';
export type { LoadedScenario } from './scenarios/format/load-scenario.ts';
export type { EventMatcher, Scenario, Step } from './scenarios/format/scenario.schema.ts';
// Scenarios: the file model, running one or a suite, and what comes out.
export type { CoverageReport, DecisionCoverageReport } from './scenarios/runner/coverage.ts';
export type { Reporter, RunSummary } from './scenarios/runner/reporter.ts';
export type {
  BadgeLane,
  RunMode,
  RunOptions,
  ScenarioReport,
} from './scenarios/runner/run-scenario.ts';
export type { SuiteOptions } from './scenarios/runner/run-suite.ts';
export type { RunTraceOptions } from './scenarios/runner/run-trace.ts';
export type { StepObserver, StepProgress } from './scenarios/runner/step-progress.ts';
// The stub: how to start it, its settings, the handle.
export type { CancelEvents } from './server-stub/engine/alert-engine.ts';
export type { EnvironmentName } from './server-stub/engine/tokens.ts';
export type {
  EnvironmentSettings,
  HttpTimeouts,
  StubSettings,
  StubSettingsInput,
} from './server-stub/settings.ts';
export type { StartStubOptions, StubHandle } from './server-stub/start-stub.ts';
export type { WorkflowInvocation } from './server-stub/stub-core.ts';
export type { StubTlsInfo, StubTlsOptions } from './server-stub/tls.ts';
// Virtual badges and the fleet.
export type {
  Badge,
  BadgeActivity,
  BadgeStatus,
  HeardEntry,
  TapCounts,
} from './simulator/badge.ts';
export type { TransitionCoverageReport } from './simulator/badge-coverage.ts';
export type { Behaviour } from './simulator/behaviours.ts';
export type { TapFate } from './simulator/device-faults.ts';
export type { FleetActivityCounts } from './simulator/fleet-activity.ts';
export type {
  FleetHandle,
  FleetKept,
  FleetOptions,
  FleetSummary,
  WorkerFleetOptions,
} from './simulator/fleet-options.ts';
export type { WorkerFleetHandle } from './simulator/fleet-workers.ts';
export type { FleetSnapshot } from './simulator/snapshot/fleet-snapshot.ts';
export type { TextToSpeech, TtsName } from './simulator/tts/text-to-speech.ts';
// One way to talk to a stub, in this process or another (docs/architecture.md, principle 9).
export type { HttpStubConnectionOptions } from './stub-connection/http-stub-connection.ts';
export type {
  BadgeClock,
  StubConnection,
  StubTarget,
  WakeMessenger,
} from './stub-connection/stub-connection.ts';
