import type { Fixtures } from '../fixtures/fixtures.schema.ts';
import { CLIENT_ID_PATTERN } from '../protocol/token-api.schema.ts';
import type { CancelEvents } from './engine/alert-engine.ts';
import { ENVIRONMENTS, type EnvironmentName } from './engine/tokens.ts';

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
  /** The brand word in the device path (`/<brand>/api/v1/device/…`). */
  brandWord: string;
  /**
   * The word in group URNs (`urn:<word>-resource:…`): the original uses a shorter word there
   * than in its paths. The brand word when not given.
   */
  urnWord: string;
  /** Fields the spec does not list in a body: refused with 400 (`reject`) or dropped (`ignore`). */
  unknownFields: 'reject' | 'ignore';
  /** Events a DELETE produces. */
  cancelEvents: CancelEvents;
  /** Largest request body accepted, in bytes; larger gets 413. */
  bodyLimit: number;
  /**
   * The environments of the token, trigger and device interface. Client ids: these settings
   * win over the fixtures' `client_ids`, which win over the defaults.
   */
  environments: Record<EnvironmentName, EnvironmentSettings>;
  /**
   * A client id that is no client of any environment at a token endpoint: refused with 401
   * `invalid_client` (`refuse`), or accepted (`accept`). Another environment's client id is
   * refused either way.
   */
  unknownClientIds: 'refuse' | 'accept';
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
  urnWord: 'service',
  unknownFields: 'reject',
  cancelEvents: 'end-cancelled',
  bodyLimit: 1024 * 1024,
  environments: {
    pro: { prefix: '', cliClientId: 'badge-sim-pro-cli', sdkClientId: 'badge-sim-pro-sdk' },
    qa: { prefix: '/qa', cliClientId: 'badge-sim-qa-cli', sdkClientId: 'badge-sim-qa-sdk' },
  },
  unknownClientIds: 'refuse',
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

/**
 * What `startStub` and `StubCore` take: any setting may be left out, an environment given in
 * part (`{ environments: { pro: { sdkClientId: 'x' } } }`). A setting given as undefined
 * counts as not given.
 */
export type StubSettingsInput = Given<Omit<StubSettings, 'environments' | 'httpTimeouts'>> & {
  environments?: { [E in EnvironmentName]?: Given<EnvironmentSettings> | undefined } | undefined;
  httpTimeouts?: Partial<HttpTimeouts> | undefined;
};
type Given<T> = { [K in keyof T]?: T[K] | undefined };

const CLIENT_ID = new RegExp(CLIENT_ID_PATTERN);
const URN_WORD = /^[A-Za-z0-9_-]+$/;

/**
 * The settings in effect: the given ones over the fixtures' client ids over the defaults; the
 * URN word is the brand word unless given. Run again when fixtures are loaded. Throws a
 * TypeError naming the setting for a client id or URN word that cannot be one.
 */
export function resolveSettings(given: StubSettingsInput, fixtures: Fixtures): StubSettings {
  const defined = withoutUndefined(given);
  for (const name of Object.keys(defined.environments ?? {})) {
    if (!(ENVIRONMENTS as readonly string[]).includes(name))
      throw new TypeError(
        `badge-sim: settings.environments.${name} is not an environment (${ENVIRONMENTS.join(', ')})`,
      );
  }
  const environments = Object.fromEntries(
    ENVIRONMENTS.map((name) => {
      const fromFixtures = fixtures.client_ids?.[name];
      const environment: EnvironmentSettings = {
        ...DEFAULT_SETTINGS.environments[name],
        ...(fromFixtures?.cli === undefined ? {} : { cliClientId: fromFixtures.cli }),
        ...(fromFixtures?.sdk === undefined ? {} : { sdkClientId: fromFixtures.sdk }),
        ...withoutUndefined(defined.environments?.[name] ?? {}),
      };
      for (const kind of ['cliClientId', 'sdkClientId'] as const) {
        if (typeof environment[kind] !== 'string' || !CLIENT_ID.test(environment[kind]))
          throw new TypeError(
            `badge-sim: settings.environments.${name}.${kind} must be 1 to 128 visible ASCII characters, no spaces`,
          );
      }
      return [name, environment];
    }),
  ) as Record<EnvironmentName, EnvironmentSettings>;
  const brandWord = defined.brandWord ?? DEFAULT_SETTINGS.brandWord;
  const urnWord = defined.urnWord ?? brandWord;
  if (typeof urnWord !== 'string' || !URN_WORD.test(urnWord))
    throw new TypeError('badge-sim: settings.urnWord must be letters, digits, - or _');
  return {
    ...DEFAULT_SETTINGS,
    ...(defined as Partial<StubSettings>),
    brandWord,
    urnWord,
    environments,
    httpTimeouts: {
      ...DEFAULT_SETTINGS.httpTimeouts,
      ...withoutUndefined(defined.httpTimeouts ?? {}),
    },
  };
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
