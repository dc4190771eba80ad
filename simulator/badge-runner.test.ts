/**
 * Decision SC4: a badge is its machine's snapshot, advanced by a runner instead of an xstate
 * actor. The runner must do what the actor does: on random histories both take the same
 * states, reach the same context, do the same to the world in the same order, emit the same
 * events and report the same transitions (coverage reads those).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createActor, type InspectionEvent } from 'xstate';
import { type TimerId, VirtualClock } from '../clock/clock.ts';
import { type BadgeEmitted, type BadgeEvent, type BadgeIo, badgeMachine } from './badge.machine.ts';
import { transitionKey } from './badge-coverage.ts';
import { BadgeRunner, EmittedListeners } from './badge-runner.ts';

type Step = { event: BadgeEvent } | { advanceMs: number };

const task = fc.constantFrom('A', 'B', 'C');
const clipMs = fc.constantFrom(0, 500, 2_000);
const step: fc.Arbitrary<Step> = fc.oneof<fc.Arbitrary<Step>[]>(
  fc
    .constantFrom<BadgeEvent>(
      { type: 'CONNECT' },
      { type: 'CONNECTED', user: 'Ada' },
      { type: 'DISCONNECTED' },
      { type: 'GO_OFFLINE' },
      { type: 'TAP' },
      { type: 'TAP_RULE', rule: 'oldest' },
      { type: 'TAP_RULE', rule: 'newest' },
      { type: 'BATTERY', level: 15, status: 'charging' },
      { type: 'LOCATION', location: { lat: 1, long: 2, accuracy: 3 } },
    )
    .map((event) => ({ event })),
  fc
    .record({ taskId: task, durationMs: clipMs, repeat: fc.nat(2) })
    .map(({ taskId, durationMs, repeat }) => ({
      event: {
        type: 'PLAY' as const,
        taskId,
        name: `N${taskId}`,
        text: `T${taskId}`,
        repeat,
        durationMs,
      },
    })),
  fc.record({ taskId: task, durationMs: clipMs }).map(({ taskId, durationMs }) => ({
    event: { type: 'BROADCAST' as const, taskId, text: `B${taskId}`, durationMs },
  })),
  fc.record({ taskId: task, durationMs: clipMs }).map(({ taskId, durationMs }) => ({
    event: { type: 'SPEAK' as const, taskId, text: `S${taskId}`, cause: 'on_ack', durationMs },
  })),
  task.map((taskId) => ({ event: { type: 'STOP' as const, taskId, cause: 'acknowledged' } })),
  task.map((taskId) => ({ event: { type: 'TAP' as const, taskId } })),
  fc.constantFrom(1, 499, 500, 2_000).map((advanceMs) => ({ advanceMs })),
);

/**
 * One badge machine on its own virtual clock, run by `start`, with a record of everything it
 * did. `welcomeAtOnce`: opening the connection answers CONNECTED from inside the action (an
 * in-process link), so an event arrives while the previous one is being taken.
 */
function recorded(
  start: (
    io: BadgeIo,
    emitted: (e: BadgeEmitted) => void,
    inspect: (e: InspectionEvent) => void,
  ) => { send(e: BadgeEvent): void; value(): unknown; context(): object },
  welcomeAtOnce: boolean,
) {
  const clock = new VirtualClock();
  const log: string[] = [];
  /** Transitions taken: an actor reports them between its actions, the runner before them. */
  const took: string[] = [];
  let timer: TimerId | undefined;
  let send: (e: BadgeEvent) => void = () => {};
  const io: BadgeIo = {
    open: () => {
      log.push('open');
      if (welcomeAtOnce) send({ type: 'CONNECTED', user: 'Ada' });
    },
    close: () => log.push('close'),
    send: (frame) => log.push(`send ${JSON.stringify(frame)}`),
    speakAloud: (text) => log.push(`say ${text}`),
    startClipTimer: (durationMs, ended) => {
      log.push(`timer ${durationMs}`);
      timer = clock.setTimer(durationMs, ended);
    },
    stopClipTimer: () => {
      log.push('stop timer');
      clock.clearTimer(timer);
    },
  };
  const machine = start(
    io,
    (e) => log.push(`emit ${JSON.stringify(e)}`),
    (e) => {
      if (e.type !== '@xstate.microstep') return;
      const step = e as unknown as {
        _transitions: Parameters<typeof transitionKey>[0][];
        event: { type: string };
        snapshot: { value: unknown; context: { current: unknown; queue: unknown[] } };
      };
      for (const t of step._transitions) took.push(transitionKey(t));
      // What a trace reads of each microstep (TR5): the event, the state and clips it left.
      const { value, context } = step.snapshot;
      took.push(`${step.event.type} -> ${JSON.stringify([value, context.current, context.queue])}`);
    },
  );
  send = (e) => machine.send(e);
  return {
    log,
    took,
    run: async (s: Step) => {
      if ('event' in s) machine.send(s.event);
      else await clock.advanceBy(s.advanceMs);
    },
    state: () => {
      const { io: _io, ...context } = machine.context() as { io: unknown };
      return { value: machine.value(), context };
    },
  };
}

const viaActor = (welcomeAtOnce: boolean) =>
  recorded((io, emitted, inspect) => {
    const actor = createActor(badgeMachine, { input: { deviceId: 'D1', io }, inspect });
    actor.on('*', (e) => emitted(e as BadgeEmitted));
    actor.start();
    return {
      send: (e) => actor.send(e),
      value: () => actor.getSnapshot().value,
      context: () => actor.getSnapshot().context,
    };
  }, welcomeAtOnce);

const viaRunner = (welcomeAtOnce: boolean) =>
  recorded((io, emitted, inspect) => {
    const runner = new BadgeRunner({ deviceId: 'D1', io }, emitted, inspect);
    return {
      send: (e) => runner.send(e),
      value: () => runner.snapshot.value,
      context: () => runner.snapshot.context,
    };
  }, welcomeAtOnce);

describe('the badge runner (SC4)', () => {
  it('does what an xstate actor does, on random histories', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 40 }), fc.boolean(), async (steps, atOnce) => {
        const actor = viaActor(atOnce);
        const runner = viaRunner(atOnce);
        for (const s of steps) {
          await actor.run(s);
          await runner.run(s);
          expect(runner.state()).toEqual(actor.state());
        }
        expect(runner.log).toEqual(actor.log);
        expect(runner.took).toEqual(actor.took);
      }),
      { numRuns: 400 },
    );
  });

  it('the same history, step by step, reaches a clip timer and an always-transition', async () => {
    // A fixed history that takes the paths the random one may miss: a clip that ends on its
    // timer, `route` choosing the next clip from the queue, a tap, a STOP of what plays.
    const steps: Step[] = [
      { event: { type: 'CONNECT' } },
      { event: { type: 'CONNECTED', user: 'Ada' } },
      {
        event: { type: 'PLAY', taskId: 'A', name: 'N', text: 'T', repeat: 0, durationMs: 500 },
      },
      { event: { type: 'SPEAK', taskId: 'B', text: 'S', cause: 'on_ack', durationMs: 500 } },
      { advanceMs: 500 },
      { event: { type: 'TAP' } },
      { advanceMs: 500 },
      { event: { type: 'STOP', taskId: 'A', cause: 'acknowledged' } },
    ];
    const actor = viaActor(false);
    const runner = viaRunner(false);
    for (const s of steps) {
      await actor.run(s);
      await runner.run(s);
    }
    expect(runner.log).toEqual(actor.log);
    expect(runner.took).toEqual(actor.took);
    expect(runner.took).toContain('badge.online.route --always[hasAudio]--> badge.online.speaking');
    expect(runner.log.some((l) => l.startsWith('send {"type":"button"'))).toBe(true);
    expect(runner.state().value).toEqual({ online: 'idle' });
  });

  it('ignores events once stopped, as a stopped actor does', () => {
    const log: string[] = [];
    const io: BadgeIo = {
      open: () => log.push('open'),
      close() {},
      send() {},
      speakAloud() {},
      startClipTimer() {},
      stopClipTimer() {},
    };
    const runner = new BadgeRunner({ deviceId: 'D1', io }, () => {});
    runner.stop();
    runner.send({ type: 'CONNECT' });
    expect(log).toEqual([]);
    expect(runner.snapshot.value).toBe('offline');
  });
});

describe('emitted listeners', () => {
  it('calls each listener of a type, and forgets what nobody listens to any more', () => {
    const listeners = new EmittedListeners();
    const heard: string[] = [];
    const a = listeners.on('stateChanged', ({ state }) => heard.push(`a ${state}`));
    const b = listeners.on('stateChanged', ({ state }) => heard.push(`b ${state}`));
    listeners.on('tapped', ({ taskId }) => heard.push(`tap ${taskId}`));
    listeners.tell({ type: 'stateChanged', state: 'idle' });
    listeners.tell({ type: 'tapped', taskId: 'T1' });
    a.unsubscribe();
    a.unsubscribe();
    listeners.tell({ type: 'stateChanged', state: 'playing' });
    b.unsubscribe();
    listeners.tell({ type: 'stateChanged', state: 'offline' });
    expect(heard).toEqual(['a idle', 'b idle', 'tap T1', 'b playing']);
    // A listener that subscribes again after its type was dropped is heard.
    listeners.on('stateChanged', ({ state }) => heard.push(`c ${state}`));
    listeners.tell({ type: 'stateChanged', state: 'idle' });
    expect(heard.at(-1)).toBe('c idle');
  });
});
