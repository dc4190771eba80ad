/**
 * How the page talks to the stub that served it: the control API with the control token in
 * its header (never in a URL, which request logs print), and the live stream read with
 * `fetch` (EventSource cannot send a header). The token comes from the page's form or a
 * `#token=` fragment (a fragment never reaches the server) and is kept in sessionStorage.
 */
import { EventStreamParser } from '../protocol/event-stream.ts';
import type { LiveSnapshot, LiveUpdate } from '../protocol/live-stream.schema.ts';

export const CONTROL = '/_stub';
const HEADER = 'X-Badge-Sim-Control-Token';
const STORE = 'badge-sim-control-token';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

export function controlToken(): string | undefined {
  const fragment = new URLSearchParams(location.hash.slice(1)).get('token');
  if (fragment !== null) {
    sessionStorage.setItem(STORE, fragment);
    history.replaceState(null, '', location.pathname + location.search);
  }
  return sessionStorage.getItem(STORE) ?? undefined;
}

export function setControlToken(token: string): void {
  sessionStorage.setItem(STORE, token);
}

function controlHeaders(): Record<string, string> {
  const token = controlToken();
  return token === undefined ? {} : { [HEADER]: token };
}

/** Sends a JSON request; answers the JSON body, or throws ApiError with the stub's message. */
export async function send<T>(
  path: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<T> {
  const headers: Record<string, string> = {
    ...(path.startsWith(CONTROL) ? controlHeaders() : {}),
    ...init.headers,
  };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(path, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  const body = readJson(text);
  if (!response.ok)
    throw new ApiError(response.status, body?.message ?? response.statusText, body?.code);
  return body as T;
}

/** A body as JSON, or undefined when it is empty or not JSON (a proxy's error page). */
function readJson(text: string): { message?: string; code?: string } | undefined {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

export type StreamMessage =
  | { name: 'snapshot'; data: LiveSnapshot }
  | { name: 'update'; data: LiveUpdate };

/**
 * Reads the live stream until it ends or `signal` aborts, giving each message to `onMessage`.
 * Throws ApiError when the stub refuses it (a wrong token: 401).
 */
export async function readStream(
  onMessage: (message: StreamMessage) => void,
  signal: AbortSignal,
): Promise<void> {
  const response = await fetch(`${CONTROL}/stream`, { headers: controlHeaders(), signal });
  if (!response.ok || !response.body) {
    const body = readJson(await response.text());
    throw new ApiError(response.status, body?.message ?? response.statusText, body?.code);
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  const parser = new EventStreamParser();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    for (const { name, data } of parser.push(value)) {
      if (name === 'snapshot' || name === 'update')
        onMessage({ name, data: JSON.parse(data) } as StreamMessage);
    }
  }
}
