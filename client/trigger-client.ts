/**
 * A client of the workflow-trigger and device-info interface, with the token handling the
 * spec's Authentication section describes: it caches the access token, gets a new one only
 * when a call answers 401, retries that call once, and never loops. Like the original's
 * clients it validates each new token (`oauth2/validate`) and keeps the user it was issued
 * to. Every request carries a User-Agent (the firewall wants one). Tokens never appear in its
 * error messages.
 */

import { ownValue } from '../input/own.ts';
import type { DeviceInfo } from '../protocol/device-info.schema.ts';
import type { TokenValidation } from '../protocol/token-api.schema.ts';
import { readBody, ServiceError } from './service-client.ts';
import { type CaPem, fetchTrusting } from './trust.ts';

export interface TriggerClientOptions {
  /** `{api_host}`: the stub URL for pro, the stub URL + `/qa` for qa. */
  apiHost: string;
  /** `{auth_url}`. */
  authUrl: string;
  /** The SDK client id of the environment. */
  clientId: string;
  /** Never expires; must not be shared. */
  refreshToken: string;
  subscriberId: string;
  userAgent?: string;
  /** PEM of a CA to trust besides Node's: an `https://` stub's own (`StubHandle.tls.caPem`). */
  ca?: CaPem;
  /** For tests that count requests (it then decides what to trust; `ca` is not used). */
  fetch?: typeof fetch;
}

/**
 * The token endpoint refused to give an access token, or oauth2/validate refused the one it
 * gave: the error, never the token.
 */
export class TokenError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    endpoint: 'token' | 'validate' = 'token',
  ) {
    // OAuth bodies say `error`/`error_description`; the stub's own say `code`/`message`.
    const text = (key: string) =>
      ownValue(body, key) !== undefined ? String(ownValue(body, key)) : undefined;
    const detail = text('error_description') ?? text('message');
    const said = detail === undefined ? '' : `: ${detail}`;
    super(
      endpoint === 'token'
        ? `badge-sim client: the token endpoint answered ${status} ${text('error') ?? 'error'}${said} (check the refresh token and the client id)`
        : `badge-sim client: oauth2/validate refused the new access token with ${status}${said} (are the auth URL and the API host of one environment?)`,
    );
    this.name = 'TokenError';
  }
}

/** The device-info answer: its one schema is protocol/device-info.schema.ts. */
export type { DeviceInfo } from '../protocol/device-info.schema.ts';

export class TriggerClient {
  readonly #options: Required<Omit<TriggerClientOptions, 'fetch' | 'ca'>>;
  readonly #fetch: typeof fetch;
  #accessToken: string | undefined;
  #userId: string | undefined;

  constructor({ ca, fetch: givenFetch, ...options }: TriggerClientOptions) {
    this.#options = {
      userAgent: 'badge-sim-client/0.1',
      ...options,
      apiHost: options.apiHost.replace(/\/+$/, ''),
      authUrl: options.authUrl.replace(/\/+$/, ''),
    };
    this.#fetch = givenFetch ?? fetchTrusting(ca);
  }

  /** POST ibot/workflow/{id}: invokes an HTTP workflow for a device (user_id). */
  invokeWorkflow(
    workflowId: string,
    userId: string,
    body: {
      action?: 'invoke';
      action_args?: Record<string, unknown>;
      target_device_ids?: string[];
    } = {},
  ): Promise<{ status: string; invocation_id: string }> {
    const query = new URLSearchParams({
      subscriber_id: this.#options.subscriberId,
      user_id: userId,
    });
    return this.#call(
      'POST',
      `/ibot/workflow/${encodeURIComponent(workflowId)}?${query}`,
      { action: 'invoke', ...body },
      `POST workflow ${workflowId}`,
    );
  }

  /** GET service/api/v1/device/{id}. */
  deviceInfo(deviceId: string, brandWord = 'service'): Promise<DeviceInfo> {
    const query = new URLSearchParams({ subscriber_id: this.#options.subscriberId });
    return this.#call(
      'GET',
      `/${brandWord}/api/v1/device/${encodeURIComponent(deviceId)}?${query}`,
      undefined,
      `GET device ${deviceId}`,
    );
  }

  /**
   * The user the refresh token was issued to, as oauth2/validate said after the last refresh;
   * undefined before the first.
   */
  get userId(): string | undefined {
    return this.#userId;
  }

  /**
   * Exchanges the refresh token for a new access token, validates it (as the original's
   * clients do after every refresh) and caches it with its user.
   */
  async refresh(): Promise<void> {
    await this.#refresh();
  }

  /**
   * GET oauth2/validate: the cached access token's user, client, scopes and whole seconds
   * left (a new token, validated, when none is cached). An expired token is not refreshed
   * here: the refusal throws TokenError, and the next call refreshes.
   */
  async validate(): Promise<TokenValidation> {
    if (!this.#accessToken) return this.#refresh();
    return this.#validate(this.#accessToken);
  }

  async #refresh(): Promise<TokenValidation> {
    const response = await this.#fetch(`${this.#options.authUrl}/oauth2/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'user-agent': this.#options.userAgent,
      },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        client_id: this.#options.clientId,
        refresh_token: this.#options.refreshToken,
      }).toString(),
    });
    const body = await readBody(response);
    this.#accessToken = undefined;
    this.#userId = undefined;
    if (!response.ok) throw new TokenError(response.status, body);
    const accessToken = (body as { access_token: string }).access_token;
    const validation = await this.#validate(accessToken);
    this.#accessToken = accessToken;
    this.#userId = validation.userid;
    return validation;
  }

  async #validate(accessToken: string): Promise<TokenValidation> {
    const response = await this.#fetch(`${this.#options.authUrl}/oauth2/validate`, {
      headers: {
        authorization: `Bearer ${accessToken}`,
        'user-agent': this.#options.userAgent,
      },
    });
    const body = await readBody(response);
    if (!response.ok) throw new TokenError(response.status, body, 'validate');
    return body as TokenValidation;
  }

  async #call<T>(method: string, path: string, body: unknown, what: string): Promise<T> {
    if (!this.#accessToken) await this.refresh();
    let response = await this.#send(method, path, body);
    if (response.status === 401) {
      // The cached token expired or was refused: one new token, one retry, never a loop.
      await this.refresh();
      response = await this.#send(method, path, body);
    }
    const answer = await readBody(response);
    if (!response.ok) throw new ServiceError(response.status, answer, what);
    return answer as T;
  }

  #send(method: string, path: string, body: unknown): Promise<Response> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.#accessToken}`,
      'user-agent': this.#options.userAgent,
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    return this.#fetch(`${this.#options.apiHost}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }
}
