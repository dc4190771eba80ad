import type { Fixtures } from '../fixtures/fixtures.schema.ts';
import {
  ENVIRONMENTS,
  type EnvironmentName,
  type EnvironmentSettings,
  type HttpTimeouts,
  type StubSettings,
} from '../protocol/control-api.schema.ts';
import { JOURNAL_LIMIT_DEFAULT, JOURNAL_LIMIT_MAX } from '../protocol/journal.schema.ts';
import { CLIENT_ID_PATTERN } from '../protocol/token-api.schema.ts';

// The shapes are the control API's (`GET /_stub/settings`), declared with it in protocol/.
export type { EnvironmentSettings, HttpTimeouts, StubSettings };

export const DEFAULT_SETTINGS: StubSettings = {
  authScheme: 'ServiceApiKey',
  brandWord: 'service',
  urnWord: 'service',
  unknownFields: 'reject',
  cancelEvents: 'end-cancelled',
  bodyLimit: 1024 * 1024,
  journalLimit: JOURNAL_LIMIT_DEFAULT,
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
  const journalLimit = defined.journalLimit ?? DEFAULT_SETTINGS.journalLimit;
  if (!Number.isInteger(journalLimit) || journalLimit < 1 || journalLimit > JOURNAL_LIMIT_MAX)
    throw new TypeError(
      `badge-sim: settings.journalLimit must be a whole number from 1 to ${JOURNAL_LIMIT_MAX}`,
    );
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
