/**
 * Scripted behaviours of a badge (declared in fixtures as `behaviour:`, or given in code):
 * acknowledge after a fixed or drawn delay, on the Nth play, or never; go offline at a time
 * and come back; vanish without a close and reconnect; a flaky connection; and device faults
 * (device-faults.ts): taps lost, delayed or duplicated on the way, a drop mid-play, a draining
 * battery. Every time is on the badge's clock; every draw comes from the badge's seeded streams.
 */

import type { Clock, TimerId } from '../clock/clock.ts';
import type { FixtureBehaviour, TapRule } from '../fixtures/fixtures.schema.ts';
import { hasOwn } from '../input/own.ts';
import { parseDuration, parseDurationRange } from '../protocol/duration.ts';
import { draw } from '../protocol/seeded-random.ts';
import {
  type BatteryTarget,
  startBatteryDrain,
  startDrops,
  type TapFate,
  tapFates,
} from './device-faults.ts';

export type Behaviour = FixtureBehaviour;

/**
 * Alerts an ack-after behaviour remembers having scheduled a tap for, newest kept: more than
 * a badge has open at once, and few enough that a fleet left running a day holds them all
 * early on (decision H8).
 */
const HEARD_ALERTS_CAP = 64;

/** What a behaviour needs of a badge. */
export interface BehaviourTarget extends BatteryTarget {
  /** Whether a tap would reach the stub now (absent: always). */
  readonly online?: boolean;
  tap(taskId?: string): void;
  goOffline(): void;
  /** The network vanishes without a close; `comeBack` connects again on a new socket. */
  vanish(): void;
  comeBack(): void;
  /** Calls back for each alert play that starts: task and play number (0 first). */
  onAlertPlay(listener: (taskId: string, repeat: number) => void): () => void;
  /** Decides the fate of each tap by its number; returns the function that stops it. */
  setTapFates(fateOf: (tap: number) => TapFate | undefined): () => void;
  /** Which open alert a tap acknowledges from now on. */
  setTapRule(rule: TapRule): void;
}

/**
 * Starts a behaviour on a badge; returns the function that stops it. Device faults (tap,
 * drop) draw from `faultRandom`, a stream of their own (the fleet's), so adding a fault
 * shifts none of the other draws; it defaults to `random`.
 */
export function runBehaviour(
  badge: BehaviourTarget,
  behaviour: Behaviour,
  clock: Clock,
  random: () => number,
  faultRandom: () => number = random,
): () => void {
  const timers = new Set<TimerId>();
  const later = (ms: number, fire: () => void) => {
    const id = clock.setTimer(ms, () => {
      timers.delete(id);
      fire();
    });
    timers.add(id);
  };
  const stops: (() => void)[] = [];

  const ack = behaviour.ack;
  if (ack && ack !== 'never') {
    const heard = new Set<string>();
    stops.push(
      badge.onAlertPlay((taskId, repeat) => {
        if (hasOwn(ack, 'on_repeat')) {
          if (repeat === ack.on_repeat) badge.tap(taskId);
          return;
        }
        if (heard.has(taskId)) return;
        heard.add(taskId);
        // Only recent alerts repeat: remembering the newest ones keeps a long run flat.
        if (heard.size > HEARD_ALERTS_CAP) heard.delete(heard.values().next().value!);
        later(draw(random, parseDurationRange(ack.after)!), () => {
          // A tap while off the network is lost: try again after the alert is heard again.
          if (badge.online === false) heard.delete(taskId);
          else badge.tap(taskId);
        });
      }),
    );
  }

  for (const drop of behaviour.offline ?? []) {
    later(parseDuration(drop.at)!, () => {
      badge.goOffline();
      if (drop.for) later(parseDuration(drop.for)!, () => badge.comeBack());
    });
  }

  for (const gap of behaviour.vanish ?? []) {
    later(draw(random, parseDurationRange(gap.at)!), () => {
      badge.vanish();
      if (gap.for) later(draw(random, parseDurationRange(gap.for)!), () => badge.comeBack());
    });
  }

  if (behaviour.flaky) {
    const every = parseDurationRange(behaviour.flaky.every)!;
    const down = parseDurationRange(behaviour.flaky.down)!;
    const cycle = () =>
      later(draw(random, every), () => {
        badge.goOffline();
        later(draw(random, down), () => {
          badge.comeBack();
          cycle();
        });
      });
    cycle();
  }

  if (behaviour.acknowledges) badge.setTapRule(behaviour.acknowledges);
  if (behaviour.tap) stops.push(badge.setTapFates(tapFates(behaviour.tap, faultRandom)));
  if (behaviour.drop) stops.push(startDrops(badge, behaviour.drop, later, faultRandom));
  if (behaviour.battery) startBatteryDrain(badge, behaviour.battery, later);

  return () => {
    for (const stop of stops) stop();
    for (const id of timers) clock.clearTimer(id);
    timers.clear();
  };
}
