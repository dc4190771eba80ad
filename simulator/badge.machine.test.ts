/**
 * The badge machine on its own: a fake `io` records what it does to the world and runs the clip
 * timers on a virtual clock, and every time asserted is in ms since the badge started.
 */
import { describe, expect, it } from 'vitest';
import { type TimerId, VirtualClock } from '../clock/clock.ts';
import type { BadgeStateName } from '../protocol/device-frames.schema.ts';
import type { BadgeEmitted, BadgeEvent, BadgeIo } from './badge.machine.ts';
import { BadgeRunner } from './badge-runner.ts';

type Frame = Parameters<BadgeIo['send']>[0];

/** One badge machine on a virtual clock, with a recording io. */
function startBadge(input: { batteryLevel?: number } = {}) {
  const clock = new VirtualClock();
  const t0 = clock.now();
  const at = () => clock.now() - t0;
  const opened: number[] = [];
  const closed: number[] = [];
  const sent: { at: number; frame: Frame }[] = [];
  const spoken: { at: number; text: string }[] = [];
  const emitted: { at: number; event: BadgeEmitted }[] = [];
  let clipTimer: TimerId | undefined;
  const io: BadgeIo = {
    open: () => opened.push(at()),
    close: () => closed.push(at()),
    send: (frame) => sent.push({ at: at(), frame }),
    speakAloud: (text) => spoken.push({ at: at(), text }),
    startClipTimer: (durationMs, ended) => {
      clipTimer = clock.setTimer(durationMs, ended);
    },
    stopClipTimer: () => clock.clearTimer(clipTimer),
  };
  // The runner the simulator's badges use (decision SC4): these tests are of what ships.
  const runner = new BadgeRunner({ deviceId: '350000000000001', io, ...input }, (event) =>
    emitted.push({ at: at(), event }),
  );

  const badge = {
    clock,
    runner,
    opened,
    closed,
    sent,
    spoken,
    emitted,
    at,
    send: (event: BadgeEvent) => runner.send(event),
    value: () => runner.snapshot.value,
    context: () => runner.snapshot.context,
    advanceBy: (ms: number) => clock.advanceBy(ms),
    /** `state@ms` for every state report sent. */
    reports: () =>
      sent.flatMap(({ at, frame }) => (frame.type === 'state' ? [`${frame.state}@${at}`] : [])),
    /** The task ids of every button frame sent. */
    buttons: () => sent.flatMap(({ frame }) => (frame.type === 'button' ? [frame.task_id] : [])),
    /** `kind:task#repeat@ms` for every clip started. */
    started: () =>
      emitted.flatMap(({ at, event }) =>
        event.type === 'clipStarted'
          ? [
              `${event.clip.kind}:${event.clip.taskId}${event.clip.repeat === undefined ? '' : `#${event.clip.repeat}`}@${at}`,
            ]
          : [],
      ),
    /** Every stateChanged emitted, in order. */
    states: () =>
      emitted.flatMap(({ event }) => (event.type === 'stateChanged' ? [event.state] : [])),
    play: (taskId: string, durationMs: number, repeat = 0, text = `Alert ${taskId}`) =>
      runner.send({ type: 'PLAY', taskId, name: `Name ${taskId}`, text, repeat, durationMs }),
    speak: (taskId: string, durationMs: number, text = `Speech ${taskId}`, cause = 'on_ack') =>
      runner.send({ type: 'SPEAK', taskId, text, cause, durationMs }),
    broadcast: (taskId: string, durationMs: number, text = `Broadcast ${taskId}`) =>
      runner.send({ type: 'BROADCAST', taskId, text, durationMs }),
    /** Empties the records, so a test sees only what follows. */
    forget: () => {
      for (const list of [opened, closed, sent, spoken, emitted]) list.length = 0;
    },
  };
  return badge;
}

type TestBadge = ReturnType<typeof startBadge>;

/** A badge already connected and idle, its records emptied. */
function onlineBadge(input: { batteryLevel?: number } = {}): TestBadge {
  const badge = startBadge(input);
  badge.send({ type: 'CONNECT' });
  badge.send({ type: 'CONNECTED', user: 'Ada Lovelace' });
  expect(badge.value()).toEqual({ online: 'idle' });
  badge.forget();
  return badge;
}

const online = (state: BadgeStateName) => ({ online: state });

describe('connection', () => {
  it('starts offline and touches nothing until told to connect', () => {
    const badge = startBadge();
    expect(badge.value()).toBe('offline');
    expect(badge.states()).toEqual(['offline']);
    expect(badge.opened).toEqual([]);
    expect(badge.sent).toEqual([]);
    expect(badge.context()).toMatchObject({
      deviceId: '350000000000001',
      user: null,
      open: [],
      queue: [],
      current: null,
      batteryLevel: 100,
      batteryStatus: 'discharging',
      location: null,
    });
  });

  it('offline → connecting opens the connection → online (idle) on CONNECTED', () => {
    const badge = startBadge();
    badge.send({ type: 'CONNECT' });
    expect(badge.value()).toBe('connecting');
    expect(badge.opened).toEqual([0]);
    expect(badge.states()).toEqual(['offline', 'connecting']);
    expect(badge.sent).toEqual([]);

    badge.send({ type: 'CONNECTED', user: 'Ada Lovelace' });
    expect(badge.value()).toEqual(online('idle'));
    expect(badge.context().user).toBe('Ada Lovelace');
    expect(badge.reports()).toEqual(['idle@0']);
    expect(badge.states()).toEqual(['offline', 'connecting', 'idle']);
    expect(badge.opened).toEqual([0]);
  });

  it('CONNECT while connecting or online opens nothing more', () => {
    const badge = startBadge();
    badge.send({ type: 'CONNECT' });
    badge.send({ type: 'CONNECT' });
    badge.send({ type: 'CONNECTED', user: 'Ada' });
    badge.send({ type: 'CONNECT' });
    expect(badge.opened).toEqual([0]);
    expect(badge.value()).toEqual(online('idle'));
  });

  it('DISCONNECTED while connecting → offline without closing anything', () => {
    const badge = startBadge();
    badge.send({ type: 'CONNECT' });
    badge.send({ type: 'DISCONNECTED' });
    expect(badge.value()).toBe('offline');
    expect(badge.closed).toEqual([]);
    expect(badge.states()).toEqual(['offline', 'connecting', 'offline']);
  });

  it('GO_OFFLINE while connecting → offline and closes the connection', () => {
    const badge = startBadge();
    badge.send({ type: 'CONNECT' });
    badge.send({ type: 'GO_OFFLINE' });
    expect(badge.value()).toBe('offline');
    expect(badge.closed).toEqual([0]);
  });

  it('DISCONNECTED while playing → offline: audio and open alerts cleared, the clip timer dropped', async () => {
    const badge = onlineBadge();
    badge.play('A', 4_000);
    badge.play('B', 3_000);
    badge.speak('A', 1_000);
    await badge.advanceBy(1_000);
    expect(badge.context().queue).toHaveLength(2);

    badge.send({ type: 'DISCONNECTED' });
    expect(badge.value()).toBe('offline');
    expect(badge.context()).toMatchObject({ open: [], queue: [], current: null });
    expect(badge.closed).toEqual([]);
    expect(badge.states()).toEqual(['playing', 'offline']);

    const sentBefore = badge.sent.length;
    await badge.advanceBy(60_000);
    expect(badge.sent).toHaveLength(sentBefore);
    expect(badge.started()).toEqual(['alert:A#0@0']);
    expect(badge.clock.state.pendingTimers).toBe(0);
  });

  it('DISCONNECTED while awaiting-ack → offline with the open alert forgotten', async () => {
    const badge = onlineBadge();
    badge.play('A', 2_000);
    await badge.advanceBy(2_000);
    expect(badge.value()).toEqual(online('awaiting-ack'));
    badge.send({ type: 'DISCONNECTED' });
    expect(badge.value()).toBe('offline');
    expect(badge.context().open).toEqual([]);
  });

  it('GO_OFFLINE while playing → offline, closes the connection, clears everything', async () => {
    const badge = onlineBadge();
    badge.play('A', 4_000);
    badge.play('B', 4_000);
    await badge.advanceBy(500);
    badge.send({ type: 'GO_OFFLINE' });
    expect(badge.value()).toBe('offline');
    expect(badge.closed).toEqual([500]);
    expect(badge.context()).toMatchObject({ open: [], queue: [], current: null });
    await badge.advanceBy(60_000);
    expect(badge.started()).toEqual(['alert:A#0@0']);
    expect(badge.reports()).toEqual(['playing@0']);
  });

  it('comes back empty after a reconnect: nothing of before plays and a tap sends nothing', async () => {
    const badge = onlineBadge();
    badge.play('A', 4_000);
    badge.send({ type: 'GO_OFFLINE' });
    badge.send({ type: 'CONNECT' });
    expect(badge.opened).toEqual([0]);
    badge.send({ type: 'CONNECTED', user: 'Ada' });
    expect(badge.value()).toEqual(online('idle'));
    badge.send({ type: 'TAP' });
    await badge.advanceBy(10_000);
    expect(badge.buttons()).toEqual([]);
    expect(badge.started()).toEqual(['alert:A#0@0']);
  });
});

describe('alerts', () => {
  it('PLAY in idle → playing: clipStarted, a playing report, the text said aloud', () => {
    const badge = onlineBadge();
    badge.play('A', 4_000, 0, 'Fire in hall B');
    expect(badge.value()).toEqual(online('playing'));
    expect(badge.emitted.map((e) => e.event)).toEqual([
      {
        type: 'clipStarted',
        clip: { kind: 'alert', taskId: 'A', text: 'Fire in hall B', repeat: 0, durationMs: 4_000 },
      },
      { type: 'stateChanged', state: 'playing' },
    ]);
    expect(badge.sent).toEqual([{ at: 0, frame: { type: 'state', state: 'playing' } }]);
    expect(badge.spoken).toEqual([{ at: 0, text: 'Fire in hall B' }]);
    expect(badge.context().open).toEqual([{ taskId: 'A', name: 'Name A', text: 'Fire in hall B' }]);
    expect(badge.context().current).toMatchObject({ kind: 'alert', taskId: 'A' });
  });

  it('plays for exactly its duration, then → awaiting-ack with a report', async () => {
    const badge = onlineBadge();
    badge.play('A', 4_000);
    await badge.advanceBy(3_999);
    expect(badge.value()).toEqual(online('playing'));
    await badge.advanceBy(1);
    expect(badge.value()).toEqual(online('awaiting-ack'));
    expect(badge.reports()).toEqual(['playing@0', 'awaiting-ack@4000']);
    expect(badge.context().current).toBeNull();
    expect(badge.context().open.map((a) => a.taskId)).toEqual(['A']);
  });

  it('a repeat PLAY while awaiting-ack plays again, then awaits again', async () => {
    const badge = onlineBadge();
    badge.play('A', 4_000);
    await badge.advanceBy(30_000);
    badge.play('A', 4_000, 1);
    expect(badge.value()).toEqual(online('playing'));
    await badge.advanceBy(4_000);
    expect(badge.value()).toEqual(online('awaiting-ack'));
    expect(badge.started()).toEqual(['alert:A#0@0', 'alert:A#1@30000']);
    expect(badge.reports()).toEqual([
      'playing@0',
      'awaiting-ack@4000',
      'playing@30000',
      'awaiting-ack@34000',
    ]);
    expect(badge.context().open).toHaveLength(1);
  });

  it('two alerts back to back: the second starts when the first ends, each for its own duration', async () => {
    const badge = onlineBadge();
    badge.play('A', 4_000);
    badge.play('B', 3_000);
    expect(badge.started()).toEqual(['alert:A#0@0']);
    expect(badge.context().queue.map((c) => c.taskId)).toEqual(['B']);

    await badge.advanceBy(3_999);
    expect(badge.started()).toEqual(['alert:A#0@0']);
    await badge.advanceBy(1);
    expect(badge.started()).toEqual(['alert:A#0@0', 'alert:B#0@4000']);
    expect(badge.value()).toEqual(online('playing'));

    await badge.advanceBy(2_999);
    expect(badge.value()).toEqual(online('playing'));
    await badge.advanceBy(1);
    expect(badge.value()).toEqual(online('awaiting-ack'));
    expect(badge.reports()).toEqual(['playing@0', 'playing@4000', 'awaiting-ack@7000']);
    expect(badge.spoken.map((s) => `${s.text}@${s.at}`)).toEqual(['Alert A@0', 'Alert B@4000']);
  });

  it('plays every kind of clip in arrival order, one after another', async () => {
    const badge = onlineBadge();
    badge.play('A', 2_000);
    badge.speak('X', 1_000);
    badge.broadcast('C', 500);
    badge.play('B', 1_500);
    await badge.advanceBy(10_000);
    expect(badge.started()).toEqual([
      'alert:A#0@0',
      'speech:X@2000',
      'broadcast:C@3000',
      'alert:B#0@3500',
    ]);
    expect(badge.reports()).toEqual([
      'playing@0',
      'speaking@2000',
      'broadcasting@3000',
      'playing@3500',
      'awaiting-ack@5000',
    ]);
    expect(badge.context().open.map((a) => a.taskId)).toEqual(['A', 'B']);
  });
});

describe('STOP', () => {
  it('of the alert playing cuts it (clipCut) and → idle, no awaiting-ack later', async () => {
    const badge = onlineBadge();
    badge.play('A', 4_000);
    await badge.advanceBy(1_500);
    badge.send({ type: 'STOP', taskId: 'A', cause: 'acknowledged' });
    expect(badge.value()).toEqual(online('idle'));
    const cut = badge.emitted.filter((e) => e.event.type === 'clipCut');
    expect(cut).toEqual([
      {
        at: 1_500,
        event: {
          type: 'clipCut',
          clip: { kind: 'alert', taskId: 'A', text: 'Alert A', repeat: 0, durationMs: 4_000 },
        },
      },
    ]);
    expect(badge.context()).toMatchObject({ open: [], queue: [], current: null });
    await badge.advanceBy(10_000);
    expect(badge.reports()).toEqual(['playing@0', 'idle@1500']);
  });

  it('of an alert awaiting-ack → idle, nothing cut', async () => {
    const badge = onlineBadge();
    badge.play('A', 2_000);
    await badge.advanceBy(5_000);
    badge.send({ type: 'STOP', taskId: 'A', cause: 'acknowledged' });
    expect(badge.value()).toEqual(online('idle'));
    expect(badge.emitted.some((e) => e.event.type === 'clipCut')).toBe(false);
    expect(badge.reports()).toEqual(['playing@0', 'awaiting-ack@2000', 'idle@5000']);
  });

  it('of one of two open alerts keeps the other: still awaiting-ack, a tap acknowledges it', async () => {
    const badge = onlineBadge();
    badge.play('A', 2_000);
    badge.play('B', 2_000);
    await badge.advanceBy(4_000);
    expect(badge.value()).toEqual(online('awaiting-ack'));
    badge.send({ type: 'STOP', taskId: 'B', cause: 'cancelled' });
    expect(badge.value()).toEqual(online('awaiting-ack'));
    expect(badge.context().open.map((a) => a.taskId)).toEqual(['A']);
    badge.send({ type: 'TAP' });
    expect(badge.buttons()).toEqual(['A']);
  });

  it('drops the queued plays of the stopped alert but keeps a SPEAK queued after it', async () => {
    const badge = onlineBadge();
    badge.play('A', 4_000);
    badge.play('A', 4_000, 1);
    badge.speak('A', 2_000, 'Thank you');
    await badge.advanceBy(1_000);
    badge.send({ type: 'STOP', taskId: 'A', cause: 'acknowledged' });
    expect(badge.value()).toEqual(online('speaking'));
    await badge.advanceBy(10_000);
    expect(badge.started()).toEqual(['alert:A#0@0', 'speech:A@1000']);
    expect(badge.spoken.map((s) => s.text)).toEqual(['Alert A', 'Thank you']);
    expect(badge.reports()).toEqual(['playing@0', 'speaking@1000', 'idle@3000']);
  });

  it('of a queued alert leaves the one playing alone and drops the queued one', async () => {
    const badge = onlineBadge();
    badge.play('A', 4_000);
    badge.play('B', 4_000);
    await badge.advanceBy(1_000);
    badge.send({ type: 'STOP', taskId: 'B', cause: 'cancelled' });
    expect(badge.value()).toEqual(online('playing'));
    expect(badge.emitted.some((e) => e.event.type === 'clipCut')).toBe(false);
    await badge.advanceBy(10_000);
    expect(badge.started()).toEqual(['alert:A#0@0']);
    expect(badge.reports()).toEqual(['playing@0', 'awaiting-ack@4000']);
    expect(badge.context().open.map((a) => a.taskId)).toEqual(['A']);
  });

  it('of the alert playing moves on to the next alert queued at once', async () => {
    const badge = onlineBadge();
    badge.play('A', 4_000);
    badge.play('B', 3_000);
    await badge.advanceBy(1_000);
    badge.send({ type: 'STOP', taskId: 'A', cause: 'acknowledged' });
    await badge.advanceBy(10_000);
    expect(badge.started()).toEqual(['alert:A#0@0', 'alert:B#0@1000']);
    expect(badge.reports()).toEqual(['playing@0', 'playing@1000', 'awaiting-ack@4000']);
  });

  it('does not cut speech that is being said', async () => {
    const badge = onlineBadge();
    badge.speak('A', 2_000);
    badge.send({ type: 'STOP', taskId: 'A', cause: 'acknowledged' });
    expect(badge.value()).toEqual(online('speaking'));
    await badge.advanceBy(2_000);
    expect(badge.emitted.some((e) => e.event.type === 'clipCut')).toBe(false);
    expect(badge.reports()).toEqual(['speaking@0', 'idle@2000']);
  });
});

describe('speech and broadcasts', () => {
  it('SPEAK in idle → speaking for its duration → idle', async () => {
    const badge = onlineBadge();
    badge.speak('A', 2_500, 'Thank you', 'on_ack');
    expect(badge.value()).toEqual(online('speaking'));
    expect(badge.emitted[0]?.event).toEqual({
      type: 'clipStarted',
      clip: { kind: 'speech', taskId: 'A', text: 'Thank you', cause: 'on_ack', durationMs: 2_500 },
    });
    expect(badge.spoken).toEqual([{ at: 0, text: 'Thank you' }]);
    await badge.advanceBy(2_499);
    expect(badge.value()).toEqual(online('speaking'));
    await badge.advanceBy(1);
    expect(badge.value()).toEqual(online('idle'));
    expect(badge.reports()).toEqual(['speaking@0', 'idle@2500']);
    expect(badge.context().open).toEqual([]);
  });

  it('SPEAK while awaiting-ack → speaking → back to awaiting-ack', async () => {
    const badge = onlineBadge();
    badge.play('A', 2_000);
    await badge.advanceBy(3_000);
    badge.speak('B', 1_000, 'Timed out', 'on_timeout');
    expect(badge.value()).toEqual(online('speaking'));
    await badge.advanceBy(1_000);
    expect(badge.value()).toEqual(online('awaiting-ack'));
    expect(badge.reports()).toEqual([
      'playing@0',
      'awaiting-ack@2000',
      'speaking@3000',
      'awaiting-ack@4000',
    ]);
  });

  it('BROADCAST → broadcasting for its duration → idle, opening no alert', async () => {
    const badge = onlineBadge();
    badge.broadcast('C', 3_000, 'Lunch is served');
    expect(badge.value()).toEqual(online('broadcasting'));
    expect(badge.emitted[0]?.event).toEqual({
      type: 'clipStarted',
      clip: { kind: 'broadcast', taskId: 'C', text: 'Lunch is served', durationMs: 3_000 },
    });
    expect(badge.spoken).toEqual([{ at: 0, text: 'Lunch is served' }]);
    await badge.advanceBy(2_999);
    expect(badge.value()).toEqual(online('broadcasting'));
    await badge.advanceBy(1);
    expect(badge.value()).toEqual(online('idle'));
    expect(badge.reports()).toEqual(['broadcasting@0', 'idle@3000']);
    expect(badge.context().open).toEqual([]);
  });

  it('a tap during or after a broadcast sends nothing', async () => {
    const badge = onlineBadge();
    badge.broadcast('C', 3_000);
    badge.send({ type: 'TAP' });
    await badge.advanceBy(3_000);
    badge.send({ type: 'TAP' });
    badge.send({ type: 'TAP', taskId: 'C' });
    expect(badge.buttons()).toEqual([]);
    expect(badge.emitted.some((e) => e.event.type === 'tapped')).toBe(false);
  });

  it('says the text of a queued clip aloud when it starts, not when it arrives', async () => {
    const badge = onlineBadge();
    badge.play('A', 2_000, 0, 'First');
    badge.broadcast('C', 1_000, 'Second');
    badge.speak('A', 1_000, 'Third');
    expect(badge.spoken).toEqual([{ at: 0, text: 'First' }]);
    await badge.advanceBy(5_000);
    expect(badge.spoken).toEqual([
      { at: 0, text: 'First' },
      { at: 2_000, text: 'Second' },
      { at: 3_000, text: 'Third' },
    ]);
  });
});

describe('TAP', () => {
  it('while playing acknowledges the alert playing and stays playing', async () => {
    const badge = onlineBadge();
    badge.play('A', 2_000);
    await badge.advanceBy(2_000);
    badge.play('B', 4_000);
    await badge.advanceBy(1_000);
    badge.send({ type: 'TAP' });
    expect(badge.sent.at(-1)).toEqual({ at: 3_000, frame: { type: 'button', task_id: 'B' } });
    expect(badge.emitted.at(-1)?.event).toEqual({ type: 'tapped', taskId: 'B' });
    expect(badge.value()).toEqual(online('playing'));
  });

  it('while playing an older alert acknowledges that one, not the last one received', () => {
    const badge = onlineBadge();
    badge.play('A', 4_000);
    badge.play('B', 4_000);
    badge.send({ type: 'TAP' });
    expect(badge.buttons()).toEqual(['A']);
  });

  it('while awaiting-ack acknowledges the open alert played last', async () => {
    const badge = onlineBadge();
    badge.play('A', 2_000);
    badge.play('B', 2_000);
    await badge.advanceBy(4_000);
    badge.play('A', 2_000, 1);
    await badge.advanceBy(2_000);
    expect(badge.value()).toEqual(online('awaiting-ack'));
    badge.send({ type: 'TAP' });
    expect(badge.buttons()).toEqual(['A']);

    badge.play('B', 2_000, 1);
    await badge.advanceBy(2_000);
    badge.send({ type: 'TAP' });
    expect(badge.buttons()).toEqual(['A', 'B']);
    expect(badge.value()).toEqual(online('awaiting-ack'));
  });

  describe('the tap rule (D11)', () => {
    /** A, then B, heard; then A's repeat sounding while B awaits: which does a tap take? */
    async function repeatOfOlderSounding(rule?: 'sounding' | 'oldest' | 'newest') {
      const badge = onlineBadge();
      if (rule) badge.send({ type: 'TAP_RULE', rule });
      badge.play('A', 2_000);
      badge.play('B', 2_000);
      badge.play('C', 2_000);
      await badge.advanceBy(6_000);
      badge.play('B', 2_000, 1);
      await badge.advanceBy(1_000);
      return badge;
    }

    it('sounding (the default) acknowledges the repeat that sounds now', async () => {
      const badge = await repeatOfOlderSounding();
      badge.send({ type: 'TAP' });
      expect(badge.buttons()).toEqual(['B']);
      expect(badge.context().tapRule).toBe('sounding');
    });

    it('oldest acknowledges the alert first heard earliest, then the next', async () => {
      const badge = await repeatOfOlderSounding('oldest');
      badge.send({ type: 'TAP' });
      badge.send({ type: 'STOP', taskId: 'A', cause: 'acknowledged' });
      badge.send({ type: 'TAP' });
      expect(badge.buttons()).toEqual(['A', 'B']);
    });

    it('newest acknowledges the alert first heard latest, whatever sounds now', async () => {
      const badge = await repeatOfOlderSounding('newest');
      badge.send({ type: 'TAP' });
      expect(badge.buttons()).toEqual(['C']);
    });

    it('newest never takes an alert that has arrived but not played yet', () => {
      const badge = onlineBadge();
      badge.send({ type: 'TAP_RULE', rule: 'newest' });
      badge.play('A', 2_000);
      badge.play('B', 2_000);
      badge.send({ type: 'TAP' });
      expect(badge.buttons()).toEqual(['A']);
    });

    it('after a return, what is heard again counts as first heard anew', async () => {
      const badge = onlineBadge();
      badge.send({ type: 'TAP_RULE', rule: 'oldest' });
      badge.play('A', 1_000);
      badge.play('B', 1_000);
      await badge.advanceBy(2_000);
      badge.send({ type: 'DISCONNECTED' });
      badge.send({ type: 'CONNECT' });
      badge.send({ type: 'CONNECTED', user: 'Ada Lovelace' });
      badge.play('B', 1_000, 1);
      badge.play('A', 1_000, 1);
      await badge.advanceBy(2_000);
      badge.send({ type: 'TAP' });
      expect(badge.buttons()).toEqual(['B']);
    });
  });

  it('with a taskId acknowledges that open alert; an unknown one sends nothing', async () => {
    const badge = onlineBadge();
    badge.play('A', 2_000);
    badge.play('B', 2_000);
    await badge.advanceBy(1_000);
    badge.send({ type: 'TAP', taskId: 'B' });
    await badge.advanceBy(3_000);
    badge.send({ type: 'TAP', taskId: 'A' });
    badge.send({ type: 'TAP', taskId: 'Z' });
    expect(badge.buttons()).toEqual(['B', 'A']);
    expect(
      badge.emitted.flatMap((e) => (e.event.type === 'tapped' ? [e.event.taskId] : [])),
    ).toEqual(['B', 'A']);
  });

  it('in idle sends nothing', () => {
    const badge = onlineBadge();
    badge.send({ type: 'TAP' });
    expect(badge.sent).toEqual([]);
    expect(badge.emitted).toEqual([]);
    expect(badge.value()).toEqual(online('idle'));
  });

  it('after the alert was stopped sends nothing', async () => {
    const badge = onlineBadge();
    badge.play('A', 2_000);
    await badge.advanceBy(3_000);
    badge.send({ type: 'STOP', taskId: 'A', cause: 'acknowledged' });
    badge.send({ type: 'TAP' });
    badge.send({ type: 'TAP', taskId: 'A' });
    expect(badge.buttons()).toEqual([]);
  });

  it('while offline or connecting sends nothing', () => {
    const badge = startBadge();
    badge.send({ type: 'TAP' });
    badge.send({ type: 'TAP', taskId: 'A' });
    badge.send({ type: 'CONNECT' });
    badge.send({ type: 'TAP' });
    expect(badge.sent).toEqual([]);
    expect(badge.emitted.some((e) => e.event.type === 'tapped')).toBe(false);
  });

  it('during a broadcast acknowledges the open alert it interrupted the wait for', async () => {
    const badge = onlineBadge();
    badge.play('A', 2_000);
    await badge.advanceBy(2_000);
    badge.broadcast('C', 3_000);
    badge.send({ type: 'TAP' });
    expect(badge.buttons()).toEqual(['A']);
  });

  // An alert queued behind speech has not been heard: a tap goes to the one heard last.
  it('during speech acknowledges the alert played last, not one still queued', async () => {
    const badge = onlineBadge();
    badge.play('A', 2_000);
    await badge.advanceBy(2_000);
    badge.speak('X', 3_000, 'Covered', 'on_quorum');
    badge.play('B', 2_000);
    expect(badge.value()).toEqual(online('speaking'));
    expect(badge.started()).toEqual(['alert:A#0@0', 'speech:X@2000']);
    badge.send({ type: 'TAP' });
    expect(badge.buttons()).toEqual(['A']);
  });
});

describe('BATTERY and LOCATION', () => {
  const here = { lat: 52.52, long: 13.405, accuracy: 8, address: 'Ward 3' };

  it('the input sets the first battery level and location', () => {
    const io: BadgeIo = {
      open() {},
      close() {},
      send() {},
      speakAloud() {},
      startClipTimer() {},
      stopClipTimer() {},
    };
    const runner = new BadgeRunner(
      { deviceId: 'VIRT1', io, batteryLevel: 42, location: here },
      () => {},
    );
    expect(runner.snapshot.context).toMatchObject({ batteryLevel: 42, location: here });
  });

  it('update the context in every state without changing state', async () => {
    const badge = startBadge();
    const check = (level: number, expected: unknown) => {
      const before = badge.value();
      badge.send({ type: 'BATTERY', level });
      badge.send({ type: 'LOCATION', location: { ...here, accuracy: level } });
      expect(badge.value()).toEqual(expected);
      expect(before).toEqual(expected);
      expect(badge.context().batteryLevel).toBe(level);
      expect(badge.context().location).toEqual({ ...here, accuracy: level });
    };
    check(90, 'offline');
    badge.send({ type: 'CONNECT' });
    check(80, 'connecting');
    badge.send({ type: 'CONNECTED', user: 'Ada' });
    check(70, online('idle'));
    badge.play('A', 2_000);
    check(60, online('playing'));
    await badge.advanceBy(2_000);
    check(50, online('awaiting-ack'));
    badge.speak('A', 2_000);
    check(40, online('speaking'));
    await badge.advanceBy(2_000);
    badge.broadcast('C', 2_000);
    check(30, online('broadcasting'));
  });

  it('BATTERY keeps the charging status unless it gives one', () => {
    const badge = startBadge();
    badge.send({ type: 'BATTERY', level: 55, status: 'charging' });
    expect(badge.context()).toMatchObject({ batteryLevel: 55, batteryStatus: 'charging' });
    badge.send({ type: 'BATTERY', level: 56 });
    expect(badge.context()).toMatchObject({ batteryLevel: 56, batteryStatus: 'charging' });
  });

  it('a BATTERY or LOCATION while playing does not disturb the clip timer', async () => {
    const badge = onlineBadge();
    badge.play('A', 4_000);
    await badge.advanceBy(1_000);
    badge.send({ type: 'BATTERY', level: 10 });
    badge.send({ type: 'LOCATION', location: here });
    await badge.advanceBy(2_999);
    expect(badge.value()).toEqual(online('playing'));
    await badge.advanceBy(1);
    expect(badge.value()).toEqual(online('awaiting-ack'));
    expect(badge.started()).toEqual(['alert:A#0@0']);
  });
});
