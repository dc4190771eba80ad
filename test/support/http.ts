/** Small helpers for tests that talk to a real stub over HTTP. */
import { once } from 'node:events';
import { createServer } from 'node:net';
import type { StubHandle } from '../../server-stub/start-stub.ts';

export const RIVERSIDE = { id: '100001', key: 'demo-api-key-riverside-0001' } as const;
export const HARBOUR = { id: '100002', key: 'demo-api-key-harbour-0002' } as const;

export interface JsonResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

/** Sends a request and reads the body as JSON when there is one. */
export async function request<T = any>(
  url: string,
  init: {
    method?: string;
    headers?: Record<string, string>;
    body?: unknown;
    rawBody?: string;
  } = {},
): Promise<JsonResponse<T>> {
  const headers: Record<string, string> = { ...init.headers };
  let body: string | undefined = init.rawBody;
  if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(url, { method: init.method ?? 'GET', headers, body });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    // The live stream's snapshot (`?once=true`) is an event stream, kept as its text.
    body: (response.headers.get('content-type')?.startsWith('text/event-stream')
      ? text
      : text
        ? JSON.parse(text)
        : undefined) as T,
  };
}

/** A client of one account of the service API on a stub. */
export function serviceClient(stub: StubHandle, account: { id: string; key: string } = RIVERSIDE) {
  const base = `${stub.url}/subscribers/${account.id}/api/v1`;
  const auth = { authorization: `ServiceApiKey ${account.key}` };
  return {
    base,
    alert: (body: unknown) => request(`${base}/alerts`, { method: 'POST', headers: auth, body }),
    cancel: (taskId: string) =>
      request(`${base}/alerts/${taskId}`, { method: 'DELETE', headers: auth }),
    broadcast: (body: unknown) =>
      request(`${base}/broadcasts`, { method: 'POST', headers: auth, body }),
    events: (query = '') => request<any[]>(`${base}/events${query}`, { headers: auth }),
  };
}

/** The control API of a stub. */
export function controlClient(stub: StubHandle) {
  const base = stub.controlUrl;
  return {
    advance: (by: string | number) =>
      request(`${base}/clock/advance`, { method: 'POST', body: { by } }),
    tap: (deviceId: string) => request(`${base}/devices/${deviceId}/tap`, { method: 'POST' }),
    transcript: (deviceId: string) => request<any[]>(`${base}/devices/${deviceId}/transcript`),
    tasks: () => request<any[]>(`${base}/tasks`),
    devices: () => request<any[]>(`${base}/devices`),
    task: (taskId: string) => request(`${base}/tasks/${taskId}`),
    reset: () => request(`${base}/reset`, { method: 'POST' }),
  };
}

/**
 * Fills an account with at least `count` analytic events (one `start` per alert) over real
 * HTTP, a millisecond apart on a virtual clock, so that the contract suite's 100-event limit
 * has more than 100 to cut.
 */
export async function seedEvents(
  baseUrl: string,
  account: { id: string; key: string } = RIVERSIDE,
  count = 120,
  /** The control token of a stub whose control API is locked (the container's). */
  controlToken?: string,
): Promise<void> {
  for (let i = 0; i < count; i++) {
    const res = await request(`${baseUrl}/subscribers/${account.id}/api/v1/alerts`, {
      method: 'POST',
      headers: { authorization: `ServiceApiKey ${account.key}` },
      body: { notification: `Seed ${i}`, groups: ['Pharmacy'], timeout: 600 },
    });
    if (res.status !== 200) throw new Error(`seeding events: POST alerts answered ${res.status}`);
    // One millisecond apart on the stub's clock: paging with `oldest` can only get past 100
    // events that do not all share one instant.
    const advanced = await request(`${baseUrl}/_stub/clock/advance`, {
      method: 'POST',
      headers: controlToken === undefined ? {} : { 'x-badge-sim-control-token': controlToken },
      body: { by: 1 },
    });
    if (advanced.status !== 200)
      throw new Error(`seeding events: POST /_stub/clock/advance answered ${advanced.status}`);
  }
}

/** A port nothing listens on now, for a stub (or a container) that starts on it. */
export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}
