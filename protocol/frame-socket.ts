/**
 * What the device gateway and a badge's link use of a WebSocket: a ws `WebSocket`, or one end
 * of an in-process pair (`server-stub/in-process-socket.ts`, decision SP5) when the badges run
 * in the stub's own process. Text frames only; the constants are ws's.
 */
export interface FrameSocket {
  readonly readyState: number;
  /** Bytes sent and not yet taken by the other side. */
  readonly bufferedAmount: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  /** Ends at once, without the closing handshake (the other side sees 1006). */
  terminate(): void;
  /** Stops reading: what the other side sends is held, never delivered. */
  pause(): void;
  on(event: 'open', listener: () => void): this;
  on(event: 'message', listener: (data: { toString(): string }, isBinary: boolean) => void): this;
  on(event: 'close', listener: (code: number, reason: { toString(): string }) => void): this;
  on(event: 'error', listener: (error: Error) => void): this;
  once(event: 'close', listener: () => void): this;
  removeAllListeners(event: 'message'): this;
}

export const SOCKET_STATE = { CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3 } as const;
