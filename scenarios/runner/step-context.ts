/** What the step handlers work with: the stub, the badges, the clients, the names given. */

import type { StubControlClient } from '../../client/control-client.ts';
import { ServiceClient } from '../../client/service-client.ts';
import type { StubSettings } from '../../protocol/control-api.schema.ts';
import type { FleetHandle } from '../../simulator/fleet-options.ts';
import type { StubConnection } from '../../stub-connection/stub-connection.ts';
import type { RunMode } from './rerun-command.ts';
import type { ScenarioAccount } from './scenario-account.ts';
import type { StepContext } from './steps.ts';
import { TriggerSteps } from './trigger-steps.ts';

export function stepContext(
  mode: RunMode,
  source: string,
  start: number,
  account: ScenarioAccount,
  connection: StubConnection,
  send: typeof fetch,
  fleet: FleetHandle | undefined,
  settings: StubSettings,
  control: () => StubControlClient,
): StepContext {
  const now = () => connection.now();
  let controlClient: StubControlClient | undefined;
  return {
    source,
    start,
    connection,
    control: () => {
      controlClient ??= control();
      return controlClient;
    },
    fleet,
    client: new ServiceClient({
      baseUrl: connection.url,
      subscriberId: account.fixture.subscriber_id,
      apiKey: account.fixture.api_keys[0]!,
      authScheme: settings.authScheme,
      fetch: send,
    }),
    trigger: new TriggerSteps(connection.url, account.fixture, source, settings.environments, send),
    brandWord: settings.brandWord,
    taskIds: new Map(),
    invocationIds: new Map(),
    faultIds: new Map(),
    authHeader: (auth) =>
      auth === 'none'
        ? null
        : auth === 'wrong'
          ? `${settings.authScheme} not-a-key-of-this-stub`
          : auth === 'other-account'
            ? `${settings.authScheme} ${account.other?.api_keys[0] ?? 'no-other-account'}`
            : undefined,
    resolve: account.resolve,
    resolveAny: account.resolveAny,
    now,
    async advanceTo(time) {
      const by = time - (await now());
      if (by <= 0) return;
      if (mode === 'realtime') await new Promise((resolve) => setTimeout(resolve, by));
      else if (fleet) await fleet.advanceBy(by);
      else await connection.advance(by);
    },
  };
}
