/**
 * What a virtual badge remembers (docs/decisions.md H4): at most HEARD_CAP clips, the oldest
 * forgotten first. A badge on a virtual clock with a link that goes nowhere: frames are fed
 * to it as the stub would send them.
 */
import { expect, test } from 'vitest';
import { VirtualClock } from '../protocol/clock.ts';
import { Badge } from './badge.ts';
import type { BadgeLink, LinkHandlers } from './transport.ts';

/** The documented cap (H4): `HEARD_CAP`. */
const HEARD_CAP = 1_000;

test(`a badge remembers at most ${HEARD_CAP} clips, the oldest forgotten first`, async () => {
  const clock = new VirtualClock();
  let handlers: LinkHandlers | undefined;
  const link = {
    answerFrames: true,
    open: () => handlers!.opened(),
    close: () => undefined,
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
  const total = HEARD_CAP + 20;
  for (let i = 0; i < total; i++) {
    await handlers!.frame({
      type: 'broadcast',
      at: clock.now(),
      task_id: `t${i}`,
      text: `b${i}`,
      seq: i + 1,
    } as never);
    await clock.advanceBy(1000); // the clip plays to its end
  }
  const heard = badge.transcript;
  expect(heard).toHaveLength(HEARD_CAP);
  expect(heard[0]).toMatchObject({ kind: 'broadcast', text: 'b20' });
  expect(heard.at(-1)).toMatchObject({ kind: 'broadcast', text: `b${total - 1}` });
  badge.dispose();
});
