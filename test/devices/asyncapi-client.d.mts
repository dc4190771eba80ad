// The types of asyncapi-client.mjs, for the TypeScript test that drives it.
export interface DocumentBadge {
  /** The next frame of that type the stub sends (kept if it came before it was asked for). */
  next(type: string): Promise<any>;
  /** Sends a frame, numbered (but `handled`) and checked against the document's required fields. */
  send(frame: { type: string } & Record<string, unknown>): void;
  close(): void;
}

export function connectBadge(
  document: unknown,
  options: { deviceId: string; key: string; tls?: object },
): Promise<DocumentBadge>;
