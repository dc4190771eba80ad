/**
 * Device faults on the virtual clock: a badge whose link records the frames it sends (and the
 * badge-clock ms they left at), fed `welcome` and `play` frames as the stub would send them.
 */
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../clock/clock.ts';
import { seededRandom } from '../protocol/seeded-random.ts';
import { Badge, TAPS_IN_FLIGHT_CAP } from './badge.ts';
import { runBehaviour } from './behaviours.ts';
import { type TapFate, tapFates } from './device-faults.ts';
import type { BadgeLink, LinkHandlers } from './transport.ts';

type Behaviour = Parameters<typeof runBehaviour>[1];

/** A badge on a virtual clock, online, whose link records what it sends and when. */
async function recordingBadge(behaviour?: Behaviour, seed = 'test') {
  const clock = new VirtualClock();
  const t0 = clock.now();
  let handlers: LinkHandlers | undefined;
  let open = false;
  const sent: { at: number; frame: Record<string, unknown> }[] = [];
  const link = {
    answerFrames: true,
    open: () => {
      open = true;
      handlers!.opened();
    },
    close: () => {
      open = false;
    },
    dropSilent: () => undefined,
    send: (frame: Record<string, unknown>) => {
      if (!open) return false;
      sent.push({ at: clock.now() - t0, frame });
      return true;
    },
  } as unknown as BadgeLink;
  const badge = new Badge({
    deviceId: '350000000000001',
    clock,
    tts: { name: 'estimate', duration: () => 10_000 },
    link: (h) => {
      handlers = h;
      return link;
    },
  });
  const stop = behaviour
    ? runBehaviour(badge, behaviour, clock, seededRandom(seed), seededRandom(seed, 'faults'))
    : () => {};
  const welcome = async () =>
    handlers!.frame({
      type: 'welcome',
      protocol: 1,
      device_id: '350000000000001',
      user: 'Ada',
      now: clock.now(),
      mode: 'virtual',
      scale: 1,
      seq: 0,
    } as never);
  badge.connect();
  await welcome();
  let seq = 1;
  const play = (taskId: string, repeat = 0) =>
    handlers!.frame({
      type: 'play',
      at: clock.now(),
      task_id: taskId,
      name: taskId,
      text: `alert ${taskId}`,
      repeat,
      seq: seq++,
    } as never);
  const stopAlert = (taskId: string) =>
    handlers!.frame({
      type: 'stop',
      at: clock.now(),
      task_id: taskId,
      cause: 'acknowledged',
      seq: seq++,
    } as never);
  const buttons = () =>
    sent.filter((s) => s.frame.type === 'button').map((s) => `${s.frame.task_id}@${s.at}`);
  const at = () => clock.now() - t0;
  return { clock, badge, sent, buttons, play, stopAlert, welcome, stop, at };
}

describe('a tap that goes wrong on the way', () => {
  it('a lost tap sends no button frame, yet the badge believes it tapped', async () => {
    const run = await recordingBadge();
    await run.play('A');
    let tapped = 0;
    run.badge.on('tapped', () => tapped++);
    run.badge.tap(undefined, { lose: true });
    expect(tapped).toBe(1);
    expect(run.buttons()).toEqual([]);
    expect(run.badge.taps).toMatchObject({ made: 1, sent: 0, lost: 1 });
    // The alert is still open on the badge: a later tap acknowledges it.
    run.badge.tap();
    expect(run.buttons()).toEqual(['A@0']);
  });

  it('a delayed tap leaves that long later on the badge clock', async () => {
    const run = await recordingBadge();
    await run.play('A');
    run.badge.tap(undefined, { delayMs: 3_000 });
    await run.clock.advanceBy(2_999);
    expect(run.buttons()).toEqual([]);
    await run.clock.advanceBy(1);
    expect(run.buttons()).toEqual(['A@3000']);
    expect(run.badge.taps).toMatchObject({ made: 1, sent: 1, delayed: 1 });
  });

  it('a duplicated tap sends the frame n times, the gap apart', async () => {
    const run = await recordingBadge();
    await run.play('A');
    run.badge.tap(undefined, { copies: 3, gapMs: 500 });
    await run.clock.advanceBy(1_000);
    expect(run.buttons()).toEqual(['A@0', 'A@500', 'A@1000']);
    expect(run.badge.taps).toMatchObject({ made: 1, sent: 3, duplicated: 1 });
  });

  it('a delayed frame due while the badge is offline is lost', async () => {
    const run = await recordingBadge();
    await run.play('A');
    run.badge.tap(undefined, { delayMs: 5_000 });
    run.badge.goOffline();
    await run.clock.advanceBy(5_000);
    expect(run.buttons()).toEqual([]);
    expect(run.badge.taps).toMatchObject({ sent: 0, lost: 1 });
  });

  it(`at most ${TAPS_IN_FLIGHT_CAP} frames wait to leave; a tap beyond is lost`, async () => {
    const run = await recordingBadge();
    await run.play('A');
    for (let i = 0; i < TAPS_IN_FLIGHT_CAP + 5; i++) run.badge.tap(undefined, { delayMs: 60_000 });
    expect(run.badge.taps).toMatchObject({ made: TAPS_IN_FLIGHT_CAP + 5, lost: 5 });
    await run.clock.advanceBy(60_000);
    expect(run.badge.taps.sent).toBe(TAPS_IN_FLIGHT_CAP);
  });

  it("the behaviour's `taps: [1]` loses exactly the first tap", async () => {
    const run = await recordingBadge({ tap: { lose: { taps: [1] } } });
    await run.play('A');
    run.badge.tap();
    run.badge.tap();
    expect(run.buttons()).toEqual(['A@0']);
    expect(run.badge.taps).toMatchObject({ made: 2, sent: 1, lost: 1 });
  });

  it('a fate given to tap() wins over the drawn one, and the draws stay in step', async () => {
    const run = await recordingBadge({ tap: { lose: { taps: [1] } } });
    await run.play('A');
    run.badge.tap(undefined, { copies: 2 });
    expect(run.buttons()).toEqual(['A@0', 'A@0']);
    // Tap 1 was the one the behaviour loses: tap 2 goes through.
    run.badge.tap();
    expect(run.buttons()).toEqual(['A@0', 'A@0', 'A@0']);
  });

  it('a fate or a drop given in code out of bounds is refused, naming the field', async () => {
    const run = await recordingBadge();
    await run.play('A');
    expect(() => run.badge.tap(undefined, { copies: 11 })).toThrow(
      'copies must be a whole number from 1 to 10',
    );
    expect(() => run.badge.tap(undefined, { delayMs: Number.NaN })).toThrow(
      'delayMs must be whole ms',
    );
    expect(() => run.badge.drop(-1)).toThrow('forMs must be whole ms');
    expect(run.badge.taps.made).toBe(0);
    expect(run.badge.online).toBe(true);
  });

  it('a second drop replaces the first return; goOffline cancels it', async () => {
    const run = await recordingBadge();
    run.badge.drop(5_000);
    await run.clock.advanceBy(1_000);
    run.badge.drop(10_000);
    await run.clock.advanceBy(5_000);
    expect(run.badge.status).toBe('offline');
    await run.clock.advanceBy(5_000);
    expect(run.badge.status).toBe('connecting');
    await run.welcome();
    run.badge.drop(5_000);
    run.badge.goOffline();
    await run.clock.advanceBy(10_000);
    expect(run.badge.status).toBe('offline');
  });
});

describe('tap fates drawn from a seed', () => {
  const pattern = (seed: string, taps = 2_000) => {
    const fateOf = tapFates(
      { lose: { chance: 0.05 }, delay: { by: '1s..5s', chance: 0.2 } },
      seededRandom(seed),
    );
    return Array.from({ length: taps }, (_, i) => fateOf(i + 1));
  };

  it('about 5 % of taps are lost with chance 0.05, and delays fall in the range', () => {
    const fates = pattern('fleet');
    const lost = fates.filter((f) => f?.lose).length;
    expect(lost).toBeGreaterThan(60);
    expect(lost).toBeLessThan(140);
    const delays = fates.flatMap((f) => (f?.delayMs === undefined ? [] : [f.delayMs]));
    expect(delays.length).toBeGreaterThan(300);
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(1_000);
    expect(Math.max(...delays)).toBeLessThanOrEqual(5_000);
  });

  it('the same seed gives the same pattern twice; another seed another', () => {
    expect(pattern('fleet')).toEqual(pattern('fleet'));
    expect(pattern('other')).not.toEqual(pattern('fleet'));
  });

  it('a fault without chance or taps hits every tap; chance 0 none', () => {
    const every = tapFates({ duplicate: { times: 2 } }, seededRandom('x'));
    expect([1, 2, 3].map(every)).toEqual(Array(3).fill({ copies: 2, gapMs: 0 } as TapFate));
    const none = tapFates({ lose: { chance: 0 } }, seededRandom('x'));
    expect([1, 2, 3].map(none)).toEqual([undefined, undefined, undefined]);
  });
});

describe('a drop mid-play', () => {
  it('drops `after` into the Nth play, for `for`, then comes back (once)', async () => {
    const run = await recordingBadge({ drop: { on_play: 2, after: '2s', for: '20s' } });
    const states: string[] = [];
    run.badge.on('stateChanged', ({ state }) => states.push(`${state}@${run.at()}`));
    await run.play('A', 0);
    await run.clock.advanceBy(30_000);
    expect(run.badge.online).toBe(true);
    await run.play('A', 1);
    await run.clock.advanceBy(2_000);
    expect(run.badge.status).toBe('offline');
    await run.clock.advanceBy(20_000);
    expect(run.badge.status).toBe('connecting');
    await run.welcome();
    await run.play('A', 0);
    await run.clock.advanceBy(60_000);
    expect(states.filter((s) => s.startsWith('offline'))).toEqual(['offline@32000']);
    expect(run.badge.online).toBe(true);
  });

  it('with a chance, the same seed drops on the same plays', async () => {
    const drops = async (seed: string) => {
      const run = await recordingBadge({ drop: { chance: 0.3, for: '1s' } }, seed);
      const at: number[] = [];
      run.badge.on('stateChanged', ({ state }) => {
        if (state === 'offline') at.push(run.at());
      });
      for (let i = 0; i < 40; i++) {
        await run.play(`T${i}`);
        await run.clock.advanceBy(1_000);
        if (!run.badge.online) await run.welcome();
        await run.stopAlert(`T${i}`);
      }
      return at;
    };
    const first = await drops('s1');
    expect(first.length).toBeGreaterThan(3);
    expect(await drops('s1')).toEqual(first);
    expect(await drops('s2')).not.toEqual(first);
  });
});

describe('a draining battery', () => {
  it('reports each whole % in a state frame, 60,000 / drain ms apart, down to 0', async () => {
    const run = await recordingBadge({ battery: { from: 3, drain: 2 } });
    const levels = () =>
      run.sent
        .filter((s) => s.frame.type === 'state' && s.frame.battery_level !== undefined)
        .map((s) => `${s.frame.battery_level}@${s.at}`);
    expect(run.badge.batteryLevel).toBe(3);
    await run.clock.advanceBy(10 * 60_000);
    expect(levels()).toEqual(['2@30000', '1@60000', '0@90000']);
    expect(run.sent.at(-1)!.frame).toMatchObject({ battery_status: 'discharging' });
  });

  it("drains from the badge's own level when `from` is absent", async () => {
    const run = await recordingBadge({ battery: { drain: 1 } });
    await run.clock.advanceBy(5 * 60_000);
    expect(run.badge.batteryLevel).toBe(95);
  });
});
