/**
 * Decision UI12 at the stream's level: every play, broadcast and speech the stub sends is told,
 * the repeats inside a clock jump each at its own instant, the newest kept for a snapshot (a
 * reloaded page), and a client that missed more than the feed keeps is told how many. The feed
 * is flushed by hand and the clock advanced on the stub's virtual clock: no real-time wait.
 */
import { describe, expect, test } from 'vitest';
import { StubControlClient } from '../../client/control-client.ts';
import { startStub } from '../../index.ts';
import {
  type LiveSnapshot,
  type LiveUpdate,
  STREAM_RECENT_HEARD,
  STREAM_RECENT_PRESENCE,
} from '../../protocol/live-stream.schema.ts';
import { HeardRing, PresenceRing } from '../../server-stub/heard-ring.ts';
import { LiveFeed } from '../../server-stub/live-feed.ts';
import { request, serviceClient } from '../support/http.ts';

const LENA = '350000000000003';

describe('UI12: the plays, broadcasts and speech the stream tells', () => {
  test('an update carries every play since the last message, each at its instant, and a snapshot keeps them', async () => {
    await using stub = await startStub({ seed: 1 });
    const feed = new LiveFeed(stub.core, stub.app.gateway);
    const sent: { name: string; data: string }[] = [];
    feed.subscribe({
      write: (name, data) => sent.push({ name, data }),
      writable: () => true,
      end() {},
    });
    const alert = await serviceClient(stub).alert({
      notification: 'Spill in aisle 4',
      groups: ['Pharmacy'],
      timeout: 600,
    });
    expect(alert.status).toBe(200);
    await stub.core.clock.advanceBy(300_000);
    feed.flush();
    // The feed may also have flushed on its own timer during the advance: all updates together.
    const updates = sent
      .filter((m) => m.name === 'update')
      .map((m) => JSON.parse(m.data) as LiveUpdate);
    const heard = updates.flatMap((u) => u.heard);
    const transcript = stub.core.engine.transcript(LENA).filter((line) => line.type === 'play');
    expect(transcript.length).toBeGreaterThanOrEqual(10);
    const lena = heard.filter((line) => line.device_id === LENA);
    expect(lena.map((line) => [line.kind, line.text, line.at])).toEqual(
      transcript.map((line) => ['play', 'Spill in aisle 4', line.at]),
    );
    expect(updates.map((u) => u.heard_dropped)).toEqual(updates.map(() => 0));
    // A page opened now (or reloaded) gets the same history.
    const snapshot = feed.snapshot() as LiveSnapshot;
    expect(snapshot.heard.filter((line) => line.device_id === LENA)).toEqual(lena);
    // Nothing new: the next message repeats none of it.
    // What comes next is told once, and nothing of before again.
    const told = sent.length;
    const broadcast = await serviceClient(stub).broadcast({
      notification: 'Lunch is served',
      groups: ['Security'],
    });
    expect(broadcast.status).toBe(200);
    feed.flush();
    const later = sent.slice(told).map((m) => JSON.parse(m.data) as LiveUpdate);
    // Security: Rosa Lindqvist and the front desk.
    expect(later.flatMap((u) => u.heard).map((line) => [line.kind, line.text])).toEqual([
      ['broadcast', 'Lunch is served'],
      ['broadcast', 'Lunch is served'],
    ]);
    feed.close();
  });

  test(`the ring keeps the newest ${STREAM_RECENT_HEARD}: a reader further behind is told how many it missed; a reset forgets all`, () => {
    const ring = new HeardRing(3);
    const play = (text: string) =>
      ({ type: 'play', taskId: 't', name: 'n', text, repeat: 0 }) as const;
    ring.add(0, 'd1', play('a'));
    const mark = ring.count;
    for (const text of ['b', 'c', 'd', 'e']) ring.add(1_000, 'd1', play(text));
    const { lines, dropped } = ring.since(mark);
    expect(lines.map((line) => line.text)).toEqual(['c', 'd', 'e']);
    expect(dropped).toBe(1);
    expect(lines[0]).toEqual({
      device_id: 'd1',
      kind: 'play',
      text: 'c',
      task_id: 't',
      at: '1970-01-01T00:00:01.000000Z',
    });
    ring.clear();
    expect(ring.since(mark)).toEqual({ lines: [], dropped: 0 });
    ring.add(2_000, 'd2', play('f'));
    expect(ring.since(0).lines.map((line) => line.text)).toEqual(['f']);
  });
});

describe('UI17: each badge going offline and coming back, told and kept', () => {
  const KAI = '350000000000101';

  test('an update carries each offline and online change at its instant, a state report none; a snapshot keeps them', async () => {
    await using stub = await startStub({ badges: 'Dock Crew', seed: 1 });
    // The stub's own feed: it heard the badges connect when the stub started.
    const feed = stub.app.feed;
    const sent: { name: string; data: string }[] = [];
    const unsubscribe = feed.subscribe({
      write: (name, data) => sent.push({ name, data }),
      writable: () => true,
      end() {},
    });
    // Connected at the start: each said hello at 0:00.
    expect(feed.snapshot().presence.map((line) => [line.online, line.at])).toEqual([
      [true, '2026-01-01T00:00:00.000000Z'],
      [true, '2026-01-01T00:00:00.000000Z'],
    ]);
    const control = new StubControlClient(stub.url);
    const awaitKai = (online: boolean) =>
      request(`${stub.controlUrl}/devices/${KAI}/await?online=${online}&timeout=10s`);
    await stub.core.clock.advanceBy(30_000);
    await control.takeOffline(KAI);
    expect((await awaitKai(false)).status).toBe(200);
    await stub.core.clock.advanceBy(30_000);
    await control.bringBack(KAI);
    expect((await awaitKai(true)).status).toBe(200);
    // An alert: the badges report their states (playing), which are no offline or online change.
    await serviceClient(stub, { id: '100002', key: 'demo-api-key-harbour-0002' }).alert({
      notification: 'Forklift',
      groups: ['Dock Crew'],
    });
    await expect.poll(() => stub.app.gateway.liveState(KAI).state).toBe('playing');
    feed.flush();
    const updates = sent
      .filter((m) => m.name === 'update')
      .map((m) => JSON.parse(m.data) as LiveUpdate);
    const told = updates.flatMap((u) => u.presence);
    expect(told).toEqual([
      { device_id: KAI, online: false, at: '2026-01-01T00:00:30.000000Z' },
      { device_id: KAI, online: true, at: '2026-01-01T00:01:00.000000Z' },
    ]);
    expect(updates.map((u) => u.presence_dropped)).toEqual(updates.map(() => 0));
    const snapshot = feed.snapshot() as LiveSnapshot;
    expect(snapshot.presence.slice(2)).toEqual(told);
    expect(snapshot.presence_dropped).toBe(0);
    expect(snapshot.heard_dropped).toBe(0);
    // A reset forgets them.
    await control.reset();
    expect(feed.snapshot().presence).toEqual([]);
    unsubscribe();
  });

  test(`the ring keeps the newest ${STREAM_RECENT_PRESENCE}; a snapshot says how many older ones it let go since the last reset`, () => {
    const ring = new PresenceRing(2);
    ring.add(0, 'd1', true);
    ring.add(1_000, 'd1', false);
    ring.add(2_000, 'd1', true);
    expect(ring.since(0)).toEqual({
      lines: [
        { device_id: 'd1', online: false, at: '1970-01-01T00:00:01.000000Z' },
        { device_id: 'd1', online: true, at: '1970-01-01T00:00:02.000000Z' },
      ],
      dropped: 1,
    });
    expect(ring.dropped).toBe(1);
    ring.clear();
    expect(ring.dropped).toBe(0);
    ring.add(3_000, 'd2', false);
    expect(ring.dropped).toBe(0);
    expect(ring.since(0).lines).toHaveLength(1);
  });
});
