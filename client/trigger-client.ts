/**
 * A client of the workflow-trigger and device-info interface, with the token handling the
 * spec's Authentication section describes: it caches the access token, gets a new one only
 * when a call answers 401, retries that call once, and never loops. Every request carries a
 * User-Agent (the firewall wants one). Tokens never appear in its error messages.
 */

import { ownValue } from '../protocol/own.ts';
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

/** The token endpoint refused to give an access token: the OAuth error, never the token. */
export class TokenError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    const error = ownValue(body, 'error') !== undefined ? String(ownValue(body, 'error')) : 'error';
    const description =
      ownValue(body, 'error_description') !== undefined
        ? `: ${String(ownValue(body, 'error_description'))}`
        : '';
    super(
      `badge-sim client: the token endpoint answered ${status} ${error}${description} (check the refresh token and the client id)`,
    );
    this.name = 'TokenError';
  }
}

export interface DeviceInfo {
  device_id: string;
  device_name: string;
  device_label: string;
  device_status: 'online' | 'offline';
  last_connect_timestamp: string | null;
  device_details: {
    location: {
      lat: number;
      long: number;
      address: string | null;
      accuracy: number | null;
      timestamp: string | null;
    } | null;
    device_info: {
      battery_level: number | null;
      battery_status: string | null;
      app_version: string | null;
      state: string | null;
    };
  };
  groups: { group_id: string; name: string }[];
}

export class TriggerClient {
  readonly #options: Required<Omit<TriggerClientOptions, 'fetch' | 'ca'>>;
  readonly #fetch: typeof fetch;
  #accessToken: string | undefined;

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

  /** Exchanges the refresh token for a new access token, and caches it. */
  async refresh(): Promise<void> {
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
    if (!response.ok) {
      this.#accessToken = undefined;
      throw new TokenError(response.status, body);
    }
    this.#accessToken = (body as { access_token: string }).access_token;
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
