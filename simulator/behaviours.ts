/**
 * Scripted behaviours of a badge (declared in fixtures as `behaviour:`, or given in code):
 * acknowledge after a fixed or drawn delay, on the Nth play, or never; go offline at a time
 * and come back; vanish without a close and reconnect; a flaky connection. Every time is on the badge's clock; every draw comes
 * from the badge's seeded stream.
 */

import type { FixtureBehaviour } from '../fixtures/fixtures.schema.ts';
import type { Clock, TimerId } from '../protocol/clock.ts';
import { parseDuration, parseDurationRange } from '../protocol/duration.ts';
import { hasOwn } from '../protocol/own.ts';
import { draw } from '../protocol/seeded-random.ts';

export type Behaviour = FixtureBehaviour;

/** Alerts an ack-after behaviour remembers having scheduled a tap for, newest kept. */
export const HEARD_ALERTS_CAP = 1_000;

/** What a behaviour needs of a badge. */
export interface BehaviourTarget {
  /** Whether a tap would reach the stub now (absent: always). */
  readonly online?: boolean;
  tap(taskId?: string): void;
  goOffline(): void;
  /** The network vanishes without a close; `comeBack` connects again on a new socket. */
  vanish(): void;
  comeBack(): void;
  /** Calls back for each alert play that starts: task and play number (0 first). */
  onAlertPlay(listener: (taskId: string, repeat: number) => void): () => void;
}

/** Starts a behaviour on a badge; returns the function that stops it. */
export function runBehaviour(
  badge: BehaviourTarget,
  behaviour: Behaviour,
  clock: Clock,
  random: () => number,
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

  return () => {
    for (const stop of stops) stop();
    for (const id of timers) clock.clearTimer(id);
    timers.clear();
  };
}
