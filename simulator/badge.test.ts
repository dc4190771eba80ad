/**
 * What a virtual badge remembers (docs/decisions.md H4): the clips of the last 7 days, at most
 * HEARD_CAP (or its fleet's share), the oldest forgotten first and counted. A badge on a virtual clock with a link that goes nowhere: frames are fed
 * to it as the stub would send them.
 */
import { expect, test } from 'vitest';
import { VirtualClock } from '../clock/clock.ts';
import { Badge } from './badge.ts';
import type { BadgeLink, LinkHandlers } from './transport.ts';

/** The documented cap (H4): `HEARD_CAP`. */
const HEARD_CAP = 1_000;
/** The documented cap of `badge.activity` (HR3). */
const ACTIVITY_CAP = 1_000;

/** A badge on a virtual clock, connected through a link that goes nowhere. */
async function connectedBadge(
  keep?: { heard: number; activity: number },
  deviceId = '350000000000001',
  clock = new VirtualClock(),
) {
  let handlers: LinkHandlers | undefined;
  const link = {
    answerFrames: true,
    open: () => handlers!.opened(),
    close: () => undefined,
    dropSilent: () => undefined,
    send: () => true,
  } as unknown as BadgeLink;
  const badge = new Badge({
    deviceId,
    clock,
    ...(keep ? { keep } : {}),
    tts: { name: 'estimate', duration: () => 1000 },
    link: (h) => {
      handlers = h;
      return link;
    },
  });
  badge.connect();
  await handlers!.frame({
    type: 'welcome',
    protocol: 1,
    device_id: deviceId,
    user: 'Ada',
    now: clock.now(),
    mode: 'virtual',
    scale: 1,
    seq: 0,
  } as never);
  return { clock, handlers: handlers!, badge };
}

let seq = 1;

/** The stub sends a broadcast; the clip plays to its end (1 s, unless `playFor` says less). */
async function broadcast(
  handlers: LinkHandlers,
  clock: VirtualClock,
  text: string,
  { taskId = `t${seq}`, playFor = 1000 } = {},
) {
  await handlers.frame({
    type: 'broadcast',
    at: clock.now(),
    task_id: taskId,
    text,
    seq: seq++,
  } as never);
  await clock.advanceBy(playFor);
}

test(`a badge remembers at most ${HEARD_CAP} clips, the oldest forgotten first`, async () => {
  const { clock, handlers, badge } = await connectedBadge();
  const total = HEARD_CAP + 20;
  for (let i = 0; i < total; i++) await broadcast(handlers, clock, `b${i}`);
  const heard = badge.transcript;
  expect(heard).toHaveLength(HEARD_CAP);
  expect(heard[0]).toMatchObject({ kind: 'broadcast', text: 'b20' });
  expect(heard.at(-1)).toMatchObject({ kind: 'broadcast', text: `b${total - 1}` });
  expect(badge.kept.heard).toEqual({ cap: HEARD_CAP, dropped: 20 });
  badge.dispose();
});

test('a badge given a smaller share (keep) remembers that many clips and counts what it forgot, in order across the ring', async () => {
  const { clock, handlers, badge } = await connectedBadge({ heard: 3, activity: 2 });
  for (let i = 0; i < 7; i++) await broadcast(handlers, clock, `b${i}`);
  expect(badge.transcript.map((e) => e.text)).toEqual(['b4', 'b5', 'b6']);
  expect(badge.kept).toEqual({
    heard: { cap: 3, dropped: 4 },
    activity: { cap: 2, dropped: 0 },
    errors: { cap: 100, dropped: 0 },
  });
  for (let i = 0; i < 3; i++) badge.tap();
  expect(badge.activity.map((a) => a.kind)).toEqual(['tap', 'tap']);
  expect(badge.kept.activity).toEqual({ cap: 2, dropped: 2 });
  badge.dispose();
});

test('badges that hear the same alert play share its clip; one whose play is cut short says so alone', async () => {
  const clock = new VirtualClock();
  const ada = await connectedBadge(undefined, '350000000000001', clock);
  const ben = await connectedBadge(undefined, '350000000000002', clock);
  // The same alert reaches both; the stub stops it on Ada's badge half-way through the play.
  for (const { handlers } of [ada, ben]) {
    await handlers.frame({
      type: 'play',
      at: clock.now(),
      task_id: 'spill',
      name: 'alerts',
      text: 'Spill in ward 3',
      repeat: 0,
      seq: seq++,
    } as never);
  }
  await clock.advanceBy(500);
  await ada.handlers.frame({
    type: 'stop',
    task_id: 'spill',
    cause: 'acknowledged',
    seq: seq++,
  } as never);
  await clock.advanceBy(1000);
  const play = { kind: 'alert', task_id: 'spill', text: 'Spill in ward 3', repeat: 0 };
  expect(ada.badge.transcript).toEqual([expect.objectContaining({ ...play, cut: true })]);
  expect(ben.badge.transcript).toEqual([expect.objectContaining(play)]);
  expect(ben.badge.transcript[0]!.cut).toBeUndefined();
  ada.badge.dispose();
  ben.badge.dispose();
});

test('a badge forgets the clips it heard more than 7 days ago (when it hears the next)', async () => {
  const { clock, handlers, badge } = await connectedBadge();
  await broadcast(handlers, clock, 'old');
  await clock.advanceBy(7 * 24 * 3600 * 1000 - 1000); // 'old' started 7 days before this
  await broadcast(handlers, clock, 'week');
  expect(badge.transcript.map((e) => e.text)).toEqual(['old', 'week']);
  await clock.advanceBy(60_000);
  await broadcast(handlers, clock, 'new');
  expect(badge.transcript.map((e) => e.text)).toEqual(['week', 'new']);
  expect(badge.kept.heard.dropped).toBe(1);
  badge.dispose();
});

test('a badge keeps the newest 100 errors the stub sent it, the oldest forgotten first', async () => {
  const { handlers, badge } = await connectedBadge();
  for (let i = 0; i < 150; i++) {
    await handlers.frame({
      type: 'error',
      code: 'unknown_task',
      message: `e${i}`,
      seq: seq++,
    } as never);
  }
  expect(badge.errors).toHaveLength(100);
  expect(badge.errors[0]!.message).toBe('e50');
  expect(badge.errors.at(-1)!.message).toBe('e149');
  expect(badge.kept.errors).toEqual({ cap: 100, dropped: 50 });
  badge.dispose();
});

test('a badge keeps its taps and network changes in order, at most ACTIVITY_CAP, the oldest forgotten first', async () => {
  const { clock, badge } = await connectedBadge();
  expect(badge.activity.map((a) => a.kind)).toEqual(['online']);
  const total = ACTIVITY_CAP + 20;
  for (let i = 0; i < total - 1; i++) {
    badge.tap();
    await clock.advanceBy(1);
  }
  badge.goOffline();
  const activity = badge.activity;
  expect(activity).toHaveLength(ACTIVITY_CAP);
  expect(activity.at(-1)?.kind).toBe('offline');
  // The welcome and the first 20 taps are forgotten: the oldest kept is the 21st tap's instant.
  expect(Date.parse(activity[0]!.at) - Date.parse(activity.at(-1)!.at)).toBe(-(ACTIVITY_CAP - 1));
  expect(badge.kept.activity).toEqual({ cap: ACTIVITY_CAP, dropped: 21 });
});
