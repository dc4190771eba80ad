/**
 * The workflow-trigger and device-info steps of a scenario. With `auth: valid` they go
 * through the package's TriggerClient, so a scenario exercises the same token handling an
 * integration uses (cache, refresh on 401, retry once); the other credentials are sent as
 * raw requests. Every request to oauth2/token is counted for `expect.token_requests`.
 */
import { readBody, ServiceError } from '../../client/service-client.ts';
import { TokenError, TriggerClient } from '../../client/trigger-client.ts';
import type { FixtureAccount } from '../../fixtures/fixtures.schema.ts';
import type { EnvironmentName } from '../../server-stub/engine/tokens.ts';
import type { EnvironmentSettings } from '../../server-stub/settings.ts';
import { ScenarioError } from '../format/load-scenario.ts';
import type { Bearer } from '../format/step.schema.ts';

export interface StepAnswer {
  status: number;
  body: unknown;
  /** The answer's headers, when the step kept them (a retry reads `Retry-After`). */
  headers?: Headers;
}

const USER_AGENT = 'badge-sim-scenario/0.1';

export class TriggerSteps {
  #tokenRequests = 0;
  #lastApiStatus = 0;
  readonly #clients = new Map<EnvironmentName, TriggerClient>();

  constructor(
    private readonly stubUrl: string,
    private readonly account: FixtureAccount,
    private readonly source: string,
    /** The stub's environments (GET /_stub/settings): prefixes and client ids. */
    private readonly environments: Record<EnvironmentName, EnvironmentSettings>,
    /** How requests are sent (the runner's loopback fetch to a stub in this process). */
    private readonly send: typeof fetch = fetch,
  ) {}

  /** Requests to oauth2/token so far: the first token of each environment and each refresh. */
  get tokenRequests(): number {
    return this.#tokenRequests;
  }

  /** POST ibot/workflow/{id}. */
  async invokeWorkflow(
    environment: EnvironmentName,
    auth: Bearer,
    workflow: {
      id: string;
      userId: string;
      targets?: string[];
      actionArgs?: Record<string, unknown>;
    },
  ): Promise<StepAnswer> {
    const body = {
      action: 'invoke' as const,
      ...(workflow.actionArgs === undefined ? {} : { action_args: workflow.actionArgs }),
      ...(workflow.targets === undefined ? {} : { target_device_ids: workflow.targets }),
    };
    if (auth === 'valid') {
      const client = await this.#client(environment);
      return this.#answerOf(() => client.invokeWorkflow(workflow.id, workflow.userId, body));
    }
    const query = new URLSearchParams({
      subscriber_id: this.account.subscriber_id,
      user_id: workflow.userId,
    });
    return this.#raw(
      environment,
      auth,
      'POST',
      `/ibot/workflow/${encodeURIComponent(workflow.id)}?${query}`,
      body,
    );
  }

  /** GET service/api/v1/device/{id}. */
  async deviceInfo(
    environment: EnvironmentName,
    auth: Bearer,
    deviceId: string,
    brandWord: string,
  ): Promise<StepAnswer> {
    if (auth === 'valid') {
      const client = await this.#client(environment);
      return this.#answerOf(() => client.deviceInfo(deviceId, brandWord));
    }
    const query = new URLSearchParams({ subscriber_id: this.account.subscriber_id });
    return this.#raw(
      environment,
      auth,
      'GET',
      `/${brandWord}/api/v1/device/${encodeURIComponent(deviceId)}?${query}`,
    );
  }

  #refreshToken(environment: EnvironmentName): string {
    const token = this.account.refresh_tokens?.find(
      (t) => (t.environment ?? 'pro') === environment,
    )?.token;
    if (!token)
      throw new ScenarioError(
        `badge-sim: ${this.source}: account ${this.account.subscriber_id} has no refresh token for ${environment}: add one under refresh_tokens in the fixtures`,
      );
    return token;
  }

  /** A fetch that counts the scenario's trips to oauth2/token and keeps the last API status. */
  readonly #countingFetch: typeof fetch = async (input, init) => {
    const toTokenEndpoint = String(input).endsWith('/oauth2/token');
    if (toTokenEndpoint) this.#tokenRequests += 1;
    const response = await this.send(input, init);
    if (!toTokenEndpoint) this.#lastApiStatus = response.status;
    return response;
  };

  /** A client call as a step's answer: its value with the status it came with, or the refusal. */
  async #answerOf(call: () => Promise<unknown>): Promise<StepAnswer> {
    try {
      const body = await call();
      return { status: this.#lastApiStatus, body };
    } catch (error) {
      if (error instanceof ServiceError || error instanceof TokenError)
        return { status: error.status, body: error.body };
      throw error;
    }
  }

  async #client(environment: EnvironmentName): Promise<TriggerClient> {
    let client = this.#clients.get(environment);
    if (!client) {
      const settings = this.environments[environment];
      const host = `${this.stubUrl}${settings.prefix}`;
      client = new TriggerClient({
        apiHost: host,
        authUrl: host,
        clientId: settings.sdkClientId,
        refreshToken: this.#refreshToken(environment),
        subscriberId: this.account.subscriber_id,
        userAgent: USER_AGENT,
        fetch: this.#countingFetch,
      });
      this.#clients.set(environment, client);
    }
    return client;
  }

  /**
   * Fresh tokens of an environment straight from oauth2/token, for the id_token and
   * other-environment steps: TriggerClient never hands its tokens out, by design.
   */
  async #tokens(environment: EnvironmentName): Promise<{ access_token: string; id_token: string }> {
    const settings = this.environments[environment];
    const response = await this.#countingFetch(`${this.stubUrl}${settings.prefix}/oauth2/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'user-agent': USER_AGENT,
      },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        client_id: settings.sdkClientId,
        refresh_token: this.#refreshToken(environment),
      }).toString(),
    });
    if (!response.ok)
      throw new ScenarioError(
        `badge-sim: ${this.source}: the stub refused the ${environment} refresh token of account ${this.account.subscriber_id} (${response.status})`,
      );
    return (await response.json()) as { access_token: string; id_token: string };
  }

  async #raw(
    environment: EnvironmentName,
    auth: Exclude<Bearer, 'valid'>,
    method: string,
    path: string,
    body?: unknown,
  ): Promise<StepAnswer> {
    const headers: Record<string, string> = { 'user-agent': USER_AGENT };
    if (auth === 'id_token')
      headers.authorization = `Bearer ${(await this.#tokens(environment)).id_token}`;
    if (auth === 'other-environment') {
      const other = environment === 'pro' ? 'qa' : 'pro';
      headers.authorization = `Bearer ${(await this.#tokens(other)).access_token}`;
    }
    if (body !== undefined) headers['content-type'] = 'application/json';
    const settings = this.environments[environment];
    const response = await this.send(`${this.stubUrl}${settings.prefix}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: await readBody(response) };
  }
}
