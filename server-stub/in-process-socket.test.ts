/**
 * The in-process socket pair (decision SP5): what one end sends reaches the other in order and
 * never during the send; closes go behind what was sent and end both sides as ws's closing
 * handshake does; a paused end holds what reaches it and its sender counts it.
 */
import { describe, expect, it } from 'vitest';
import { SOCKET_STATE } from '../protocol/frame-socket.ts';
import { InProcessSocket } from './in-process-socket.ts';

const microtasks = () => new Promise<void>((resolve) => setImmediate(resolve));

function listen(socket: InProcessSocket) {
  const heard: string[] = [];
  socket.on('message', (data, isBinary) =>
    heard.push(`${String(data)}${isBinary ? ' (binary)' : ''}`),
  );
  socket.on('close', (code, reason) => heard.push(`close ${code} ${String(reason)}`));
  return heard;
}

describe('InProcessSocket (SP5)', () => {
  it('opens the badge end after the call, the stub end at once', async () => {
    const [badge, stub] = InProcessSocket.pair();
    expect(stub.readyState).toBe(SOCKET_STATE.OPEN);
    expect(badge.readyState).toBe(SOCKET_STATE.CONNECTING);
    expect(() => badge.send('early')).toThrow(/not open/);
    let opened = false;
    badge.on('open', () => {
      opened = true;
    });
    await microtasks();
    expect(opened).toBe(true);
    expect(badge.readyState).toBe(SOCKET_STATE.OPEN);
  });

  it('delivers text in order, after the send returns, both ways', async () => {
    const [badge, stub] = InProcessSocket.pair();
    await microtasks();
    const atStub = listen(stub);
    const atBadge = listen(badge);
    badge.send('1');
    badge.send('2');
    stub.send('a');
    expect(atStub).toEqual([]);
    await microtasks();
    expect(atStub).toEqual(['1', '2']);
    expect(atBadge).toEqual(['a']);
  });

  it('a close goes behind what was sent, and ends both sides with its code and reason', async () => {
    const [badge, stub] = InProcessSocket.pair();
    await microtasks();
    const atStub = listen(stub);
    const atBadge = listen(badge);
    stub.send('last words');
    stub.close(4001, 'device_claimed');
    expect(stub.readyState).toBe(SOCKET_STATE.CLOSING);
    stub.send('after close');
    await microtasks();
    expect(atBadge).toEqual(['last words', 'close 4001 device_claimed']);
    expect(atStub).toEqual(['close 4001 device_claimed']);
    expect([badge.readyState, stub.readyState]).toEqual([SOCKET_STATE.CLOSED, SOCKET_STATE.CLOSED]);
    badge.close(1000, 'again');
    await microtasks();
    expect(atStub).toHaveLength(1);
  });

  it('terminate ends both sides at once with 1006', async () => {
    const [badge, stub] = InProcessSocket.pair();
    await microtasks();
    const atStub = listen(stub);
    const atBadge = listen(badge);
    badge.terminate();
    expect(badge.readyState).toBe(SOCKET_STATE.CLOSED);
    await microtasks();
    expect(atStub).toEqual(['close 1006 ']);
    expect(atBadge).toEqual(['close 1006 ']);
  });

  it('closing an end that has not opened yet fails the connect with 1006', async () => {
    const [badge, stub] = InProcessSocket.pair();
    const atBadge = listen(badge);
    const atStub = listen(stub);
    let opened = false;
    badge.on('open', () => {
      opened = true;
    });
    badge.close(1000, 'never mind');
    await microtasks();
    expect(opened).toBe(false);
    expect(atBadge).toEqual(['close 1006 ']);
    expect(atStub).toEqual(['close 1006 ']);
  });

  it('a paused end hears nothing more, and its sender counts what waits as bufferedAmount', async () => {
    const [badge, stub] = InProcessSocket.pair();
    await microtasks();
    const atBadge = listen(badge);
    badge.pause();
    stub.send('0123456789');
    stub.send('abc');
    stub.close(4008, 'too slow');
    await microtasks();
    expect(atBadge).toEqual([]);
    expect(stub.bufferedAmount).toBe(13);
    expect(stub.readyState).toBe(SOCKET_STATE.CLOSING);
    // The stub gives up on it (its cut-off grace): both ends close, the silent one unheard.
    const atStub = listen(stub);
    stub.terminate();
    await microtasks();
    expect(atStub).toEqual(['close 1006 ']);
    expect(atBadge).toEqual([]);
  });
});
