/**
 * The contract suite against a stub that serves HTTPS only, pointed at it as at the original:
 * `https://` URLs, and the CA file the stub hands out (BADGE_SIM_CONTRACT_CA_FILE).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { fetchTrusting } from '../../client/trust.ts';
import {
  ContractConfigError,
  contractSuite,
  contractTargetFromEnv,
  defaultFixturesContractEnv,
} from '../../contract/index.ts';
import { type StubHandle, startStub } from '../../server-stub/start-stub.ts';

let stub: StubHandle;
beforeAll(async () => {
  stub = await startStub({ tls: true });
  // The 100-event limit needs more than 100 events, a millisecond apart.
  const send = fetchTrusting(stub.tls!.caPem);
  for (let i = 0; i < 105; i++) {
    await send(`${stub.url}/subscribers/100001/api/v1/alerts`, {
      method: 'POST',
      headers: {
        authorization: 'ServiceApiKey demo-api-key-riverside-0001',
        'content-type': 'application/json',
      },
      body: JSON.stringify({ notification: `Seed ${i}`, groups: ['Pharmacy'], timeout: 600 }),
    });
    await stub.core.clock.advanceBy(1);
  }
});
afterAll(() => stub.close());

contractSuite('a stub over https://', () =>
  contractTargetFromEnv({
    ...defaultFixturesContractEnv(stub.url),
    BADGE_SIM_CONTRACT_CA_FILE: stub.tls!.caFile!,
  }),
);

describe('BADGE_SIM_CONTRACT_CA_FILE', () => {
  test('a file that cannot be read, or holds no certificate, is named', () => {
    const env = defaultFixturesContractEnv('https://127.0.0.1:1');
    expect(() =>
      contractTargetFromEnv({ ...env, BADGE_SIM_CONTRACT_CA_FILE: '/no/such/ca.pem' }),
    ).toThrow(
      new ContractConfigError(
        'badge-sim contract: BADGE_SIM_CONTRACT_CA_FILE /no/such/ca.pem cannot be read (ENOENT)',
      ),
    );
    expect(() =>
      contractTargetFromEnv({ ...env, BADGE_SIM_CONTRACT_CA_FILE: import.meta.filename }),
    ).toThrow(/holds no PEM certificate/);
  });
});
