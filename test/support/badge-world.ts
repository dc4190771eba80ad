/**
 * A world of a fleet's badges without a stub (`makeFleetBadges` on a virtual clock): links go
 * nowhere, what the badges send is recorded, a connect is welcomed at once, and the test feeds
 * the stub's frames itself. Fresh, or restored from a fleet snapshot's JSON text. Used by the
 * fleet snapshot's property test and its bench.
 */

import { VirtualClock } from '../../clock/clock.ts';
import type { FixtureBehaviour, FixtureDevice } from '../../fixtures/fixtures.schema.ts';
import { makeFleetBadges } from '../../simulator/fleet-badges.ts';
import { readFleetSnapshot } from '../../simulator/snapshot/fleet-snapshot.ts';
import type { LinkHandlers } from '../../simulator/transport.ts';

export type BadgeWorld = ReturnType<typeof badgeWorld>;

export function badgeWorld(
  IDS: readonly string[],
  behaviours: Record<string, FixtureBehaviour>,
  restoredFrom?: string,
) {
  const DEVICES = IDS.map(
    (id) => ({ id, name: id, battery_level: 80 }) as unknown as FixtureDevice,
  );
  const clock = new VirtualClock();
  const sent: string[] = [];
  const handlers = new Map<string, LinkHandlers>();
  const links = new Map<string, { online: boolean }>();
  let seq = 1;
  const restored =
    restoredFrom === undefined ? undefined : readFleetSnapshot(restoredFrom, new Set(IDS));
  const badges = makeFleetBadges(
    DEVICES,
    { behaviours },
    {
      clock,
      seed: 5,
      common: {
        clock,
        tts: { name: 'estimate', duration: (text: string) => 400 + 50 * text.length },
        link: (h) => {
          const id = `${handlers.size}`;
          handlers.set(IDS[Number(id)]!, h);
          const state = { online: false };
          links.set(IDS[Number(id)]!, state);
          return {
            answerFrames: true,
            open: () => {
              state.online = true;
              h.opened();
              void h.frame({
                type: 'welcome',
                protocol: 1,
                device_id: IDS[Number(id)],
                user: 'U',
                now: clock.now(),
                mode: 'virtual',
                scale: 1,
                seq: seq++,
              } as never);
            },
            close: () => {
              state.online = false;
            },
            vanish: () => {
              state.online = false;
            },
            dropSilent: () => undefined,
            send: (frame: { type: string }) => {
              if (!state.online) return false;
              if (frame.type !== 'hello')
                sent.push(`${clock.now()} ${IDS[Number(id)]} ${JSON.stringify(frame)}`);
              return true;
            },
          } as never;
        },
      },
      locationOf: () => null,
      onVanish: () => undefined,
      reconnect: false,
    },
    restored,
  );
  return { clock, sent, handlers, links, badges, restored };
}
