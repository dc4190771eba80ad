/**
 * The contract suite against an embedded stub on a real port, pointed at it through the
 * same environment variables a team sets for the original service; and how the target's
 * variables are checked.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  ContractConfigError,
  contractSuite,
  contractTargetFromEnv,
  defaultFixturesContractEnv,
} from '../../contract/index.ts';
import { type StubHandle, startStub } from '../../server-stub/start-stub.ts';
import { seedEvents } from '../support/http.ts';

let stub: StubHandle;
beforeAll(async () => {
  stub = await startStub();
  await seedEvents(stub.url);
});
afterAll(() => stub.close());

contractSuite('an embedded stub', () =>
  contractTargetFromEnv(defaultFixturesContractEnv(stub.url)),
);

describe('the contract target from the environment', () => {
  test('missing variables are named with what they are', () => {
    expect(() => contractTargetFromEnv({ BADGE_SIM_CONTRACT_BASE_URL: 'http://x' })).toThrow(
      new ContractConfigError(
        'badge-sim contract: set BADGE_SIM_CONTRACT_SUBSCRIBER_ID, BADGE_SIM_CONTRACT_API_KEY, BADGE_SIM_CONTRACT_REFRESH_TOKEN (the subscriber id (required); an API key of that account (required); a refresh token of that account (required))',
      ),
    );
  });

  test('a URL that is not one, and an unknown decisions word, are refused', () => {
    const env = defaultFixturesContractEnv('http://127.0.0.1:1');
    expect(() =>
      contractTargetFromEnv({ ...env, BADGE_SIM_CONTRACT_BASE_URL: 'localhost:8080' }),
    ).toThrow(/BADGE_SIM_CONTRACT_BASE_URL must be an http\(s\) URL/);
    expect(() => contractTargetFromEnv({ ...env, BADGE_SIM_CONTRACT_DECISIONS: 'maybe' })).toThrow(
      /BADGE_SIM_CONTRACT_DECISIONS must be check or skip/,
    );
  });

  test('the API host and auth URL default to the base URL; secrets are not in an error', () => {
    const target = contractTargetFromEnv({
      ...defaultFixturesContractEnv('http://127.0.0.1:8080/'),
      BADGE_SIM_CONTRACT_AUTH_URL: 'https://auth.example.test',
    });
    expect(target).toMatchObject({
      baseUrl: 'http://127.0.0.1:8080',
      apiHost: 'http://127.0.0.1:8080',
      authUrl: 'https://auth.example.test',
      decisions: true,
    });
    let message = '';
    try {
      contractTargetFromEnv({
        ...defaultFixturesContractEnv('nope'),
        BADGE_SIM_CONTRACT_API_KEY: 'secret-key',
      });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).not.toContain('secret-key');
    expect(message).not.toContain('demo-refresh-token');
  });
});
