/**
 * Every type a user of `badge-sim/testcontainers` sees (`badge-sim-container.ts` re-exports
 * them all): the builder's options and what the started container tells. Types shared with
 * the main entry point are the same declarations, exported from both.
 */
export type { CaPem } from '../client/trust.ts';
export type { Fixtures } from '../fixtures/fixtures.schema.ts';
export type { EnvironmentName, StubSettings } from '../protocol/control-api.schema.ts';
export type { ContainerClockMode } from './badge-sim-container.ts';
