/**
 * Every type a user of `badge-sim/vitest` sees (`scenarios/vitest.ts` re-exports them all):
 * the test fixtures, the matchers' expectations and options, and the scenario run options.
 * Types shared with the main entry point are the same declarations, exported from both.
 */
export type { JournalEntry, RequestMatcher } from '../protocol/journal.schema.ts';
export type { AnalyticEvent } from '../protocol/service-api.schema.ts';
export type { StubHandle } from '../server-stub/start-stub.ts';
export type { FleetHandle } from '../simulator/fleet-options.ts';
export type { EventMatcher } from './format/expectations.schema.ts';
export type { RunMode, RunOptions } from './runner/run-scenario.ts';
export type {
  BadgeFixtures,
  EventSequenceOptions,
  JournalSource,
  ScenarioTestsOptions,
} from './vitest.ts';
export type { BadgeTestTrace } from './vitest-trace.ts';
