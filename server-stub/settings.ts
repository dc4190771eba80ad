import type { CancelEvents } from './engine/alert-engine.ts';
import type { EnvironmentName } from './engine/tokens.ts';

/** What the command-line tool's environment listing shows of one environment. */
export interface EnvironmentSettings {
  /** Path prefix on the stub's port: `{api_host}` and `{auth_url}` are the stub URL plus it. */
  prefix: string;
  cliClientId: string;
  sdkClientId: string;
}

/**
 * How long the HTTP server waits on a client, in ms (docs/decisions.md I9). A WebSocket
 * badge, once upgraded, is not subject to them.
 */
export interface HttpTimeouts {
  /** From connecting to the end of the request headers. */
  headersMs: number;
  /** From connecting (or the start of a request) to the end of its body. */
  requestMs: number;
  /** How long a keep-alive connection waits for its next request. */
  keepAliveMs: number;
  /**
   * How long an answer may make no progress because the client does not read it; then the
   * connection is dropped (an answer the handler is still working on is never cut).
   */
  stalledAnswerMs: number;
}

/**
 * Choices a team can change to match what they observe of the original service. The defaults
 * are the decisions in docs/decisions.md.
 */
export interface StubSettings {
  /** Scheme word of `Authorization: <scheme> <API_KEY>` (docs/architecture.md, decision 8). */
  authScheme: string;
  /** The brand word in group URNs (`urn:<brand>-resource:…`) and the device path. */
  brandWord: string;
  /** Fields the spec does not list in a body: refused with 400 (`reject`) or dropped (`ignore`). */
  unknownFields: 'reject' | 'ignore';
  /** Events a DELETE produces. */
  cancelEvents: CancelEvents;
  /** Largest request body accepted, in bytes; larger gets 413. */
  bodyLimit: number;
  /** The environments of the token, trigger and device interface. */
  environments: Record<EnvironmentName, EnvironmentSettings>;
  /**
   * Real time, in ms, a virtual clock waits for one badge's `handled` before it goes on
   * without it and counts the badge unresponsive (docs/device-protocol.md, "Time").
   */
  badgeAnswerTimeoutMs: number;
  /**
   * Bytes the stub queues for one badge that does not read what it is sent; past it the
   * connection is closed (4008) and the badge counts offline.
   */
  badgeMaxQueuedBytes: number;
  /** Error frames the stub answers one connection's bad frames with in a second; past it, 4009. */
  badgeMaxBadFramesPerSecond: number;
  /** Transport timeouts of the HTTP server (not of upgraded WebSocket connections). */
  httpTimeouts: HttpTimeouts;
}

export const DEFAULT_SETTINGS: StubSettings = {
  authScheme: 'ServiceApiKey',
  brandWord: 'service',
  unknownFields: 'reject',
  cancelEvents: 'end-cancelled',
  bodyLimit: 1024 * 1024,
  environments: {
    pro: { prefix: '', cliClientId: 'badge-sim-pro-cli', sdkClientId: 'badge-sim-pro-sdk' },
    qa: { prefix: '/qa', cliClientId: 'badge-sim-qa-cli', sdkClientId: 'badge-sim-qa-sdk' },
  },
  badgeAnswerTimeoutMs: 2_000,
  badgeMaxQueuedBytes: 1024 * 1024,
  badgeMaxBadFramesPerSecond: 20,
  httpTimeouts: {
    headersMs: 10_000,
    requestMs: 30_000,
    keepAliveMs: 5_000,
    stalledAnswerMs: 30_000,
  },
};
