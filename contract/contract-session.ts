import { expect, type TestContext } from 'vitest';
import { fetchTrusting } from '../client/trust.ts';
import type { ContractTarget } from './contract-target.ts';

const USER_AGENT = 'badge-sim-contract/0.1';
const ISO_UTC_FRACTIONAL = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z$/;

interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

/**
 * What the contract suite's tests share: the target (known once the suite starts), requests
 * to each of its interfaces as a client sends them, the alerts it created (cancelled at the
 * end), and the skips of a check the target cannot answer.
 */
export class ContractSession {
  #target: ContractTarget | undefined;
  #fetch: typeof globalThis.fetch = globalThis.fetch;
  readonly created: string[] = [];

  /** The target: read in tests, once `start` has run. */
  get t(): ContractTarget {
    return this.#target!;
  }

  /** Reads the target; the function it gives cancels what the suite created. */
  async start(target: () => ContractTarget | Promise<ContractTarget>) {
    this.#target = await target();
    this.#fetch = fetchTrusting(this.#target.ca);
    return async () => {
      // Leave nothing alerting: cancel what the suite created (an ended one answers 4xx).
      for (const taskId of this.created) await this.api('DELETE', `alerts/${taskId}`);
    };
  }

  readonly send = async (
    url: string,
    method: string,
    headers: Record<string, string>,
    body?: string,
  ): Promise<Answer> => {
    const response = await this.#fetch(url, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {}
    return { status: response.status, headers: response.headers, body: parsed };
  };
  readonly api = (
    method: string,
    path: string,
    body?: unknown,
    authorization: string | null = `${this.t.authScheme} ${this.t.apiKey}`,
  ) =>
    this.send(
      `${this.t.baseUrl}/subscribers/${encodeURIComponent(this.t.subscriberId)}/api/v1/${path}`,
      method,
      {
        ...(authorization === null ? {} : { authorization }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body === undefined ? undefined : JSON.stringify(body),
    );
  readonly token = (form: Record<string, string>) =>
    this.send(
      `${this.t.authUrl}/oauth2/token`,
      'POST',
      { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': USER_AGENT },
      new URLSearchParams(form).toString(),
    );
  readonly tokens = async () => {
    const answer = await this.token({
      grant_type: 'refresh_token',
      client_id: this.t.clientId,
      refresh_token: this.t.refreshToken,
    });
    expect(answer.status, 'the token endpoint refused the refresh token').toBe(200);
    return answer.body as { access_token: string; id_token: string };
  };
  readonly trigger = (
    bearer: string | null,
    options: { userAgent?: string; workflowId?: string } = {},
  ) => {
    const query = new URLSearchParams({
      subscriber_id: this.t.subscriberId,
      user_id: this.t.deviceId ?? '',
    });
    const userAgent = options.userAgent ?? USER_AGENT;
    return this.send(
      `${this.t.apiHost}/ibot/workflow/${encodeURIComponent(options.workflowId ?? this.t.workflowId ?? '')}?${query}`,
      'POST',
      {
        'content-type': 'application/json',
        'user-agent': userAgent,
        ...(bearer === null ? {} : { authorization: `Bearer ${bearer}` }),
      },
      JSON.stringify({ action: 'invoke' }),
    );
  };
  readonly deviceInfo = (bearer: string | null) =>
    this.send(
      `${this.t.apiHost}/${this.t.brandWord}/api/v1/device/${encodeURIComponent(this.t.deviceId ?? '')}?${new URLSearchParams({ subscriber_id: this.t.subscriberId })}`,
      'GET',
      {
        'user-agent': USER_AGENT,
        ...(bearer === null ? {} : { authorization: `Bearer ${bearer}` }),
      },
    );
  readonly alert = async (body: Record<string, unknown>) => {
    const answer = await this.api('POST', 'alerts', { groups: [this.t.group], ...body });
    if (typeof answer.body?.task_id === 'string') this.created.push(answer.body.task_id);
    return answer;
  };
  /**
   * The events of one task, paging with `oldest` from the default window (oldest first on
   * the stub; the original's order is not shown, so every page is searched). Each page is
   * checked against the spec's shape on the way.
   */
  readonly eventsOf = async (taskId: string) => {
    const found: any[] = [];
    const seen = new Set<string>();
    let query = 'events?limit=100';
    for (let page = 0; page < 50; page++) {
      const answer = await this.api('GET', query);
      expect(answer.status).toBe(200);
      expect(Array.isArray(answer.body)).toBe(true);
      for (const event of answer.body) expectEventShape(event);
      const fresh = (answer.body as any[]).filter((e) => !seen.has(e.event_id));
      for (const event of fresh) {
        seen.add(event.event_id);
        if (event.task.id === taskId) found.push(event);
      }
      if (answer.body.length < 100) break;
      if (fresh.length === 0)
        throw new Error(
          `more than 100 events share the timestamp ${answer.body[0].timestamp}: paging with oldest cannot get past them`,
        );
      query = `events?limit=100&oldest=${encodeURIComponent(answer.body.at(-1).timestamp)}`;
    }
    return found;
  };
  readonly needsDevice = (context: TestContext, workflow = false) => {
    if (!this.t.deviceId || (workflow && !this.t.workflowId))
      context.skip(
        `set BADGE_SIM_CONTRACT_DEVICE_ID${workflow ? ' and BADGE_SIM_CONTRACT_WORKFLOW_ID' : ''} to check this`,
      );
  };
  readonly decisionsOnly = (context: TestContext) => {
    if (!this.t.decisions) context.skip('BADGE_SIM_CONTRACT_DECISIONS=skip');
  };
}

/** An analytic event as the spec's Resources table writes it. */
function expectEventShape(event: any): void {
  expect(event).toMatchObject({
    category: expect.any(String),
    content: { type: expect.stringMatching(/^(start|end|acknowledged|timed_out)$/) },
    task: {
      id: expect.any(String),
      name: expect.any(String),
      task_type: {
        major: expect.any(Number),
        minor: expect.any(Number),
        name: expect.any(String),
        namespace: expect.any(String),
      },
    },
    event_id: expect.any(String),
    timestamp: expect.stringMatching(ISO_UTC_FRACTIONAL),
  });
  expect(Number.isInteger(event.task.task_type.major)).toBe(true);
  expect(Number.isInteger(event.task.task_type.minor)).toBe(true);
  // content.device only on acknowledged, content.status only on end.
  expect(Object.hasOwn(event.content, 'device')).toBe(event.content.type === 'acknowledged');
  expect(Object.hasOwn(event.content, 'status')).toBe(event.content.type === 'end');
}
