/**
 * What a virtual badge remembers (docs/decisions.md H4): the clips of the last 7 days, at most
 * HEARD_CAP, the oldest forgotten first. A badge on a virtual clock with a link that goes nowhere: frames are fed
 * to it as the stub would send them.
 */
import { expect, test } from 'vitest';
import { VirtualClock } from '../protocol/clock.ts';
import { Badge } from './badge.ts';
import type { BadgeLink, LinkHandlers } from './transport.ts';

/** The documented cap (H4): `HEARD_CAP`. */
const HEARD_CAP = 1_000;
/** The documented cap of `badge.activity` (HR3). */
const ACTIVITY_CAP = 1_000;

/** A badge on a virtual clock, connected through a link that goes nowhere. */
async function connectedBadge() {
  const clock = new VirtualClock();
  let handlers: LinkHandlers | undefined;
  const link = {
    answerFrames: true,
    open: () => handlers!.opened(),
    close: () => undefined,
    dropSilent: () => undefined,
    send: () => true,
  } as unknown as BadgeLink;
  const badge = new Badge({
    deviceId: '350000000000001',
    clock,
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
    device_id: '350000000000001',
    user: 'Ada',
    now: clock.now(),
    mode: 'virtual',
    scale: 1,
    seq: 0,
  } as never);
  return { clock, handlers: handlers!, badge };
}

let seq = 1;

/** The stub sends a broadcast; the clip plays to its end (1 s). */
async function broadcast(handlers: LinkHandlers, clock: VirtualClock, text: string) {
  await handlers.frame({
    type: 'broadcast',
    at: clock.now(),
    task_id: `t${seq}`,
    text,
    seq: seq++,
  } as never);
  await clock.advanceBy(1000);
}

test(`a badge remembers at most ${HEARD_CAP} clips, the oldest forgotten first`, async () => {
  const { clock, handlers, badge } = await connectedBadge();
  const total = HEARD_CAP + 20;
  for (let i = 0; i < total; i++) await broadcast(handlers, clock, `b${i}`);
  const heard = badge.transcript;
  expect(heard).toHaveLength(HEARD_CAP);
  expect(heard[0]).toMatchObject({ kind: 'broadcast', text: 'b20' });
  expect(heard.at(-1)).toMatchObject({ kind: 'broadcast', text: `b${total - 1}` });
  badge.dispose();
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
});
