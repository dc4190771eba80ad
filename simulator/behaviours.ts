/**
 * Scripted behaviours of a badge (declared in fixtures as `behaviour:`, or given in code):
 * acknowledge after a fixed or drawn delay, on the Nth play, or never; go offline at a time
 * and come back; vanish without a close and reconnect; a flaky connection; and device faults
 * (device-faults.ts): taps lost, delayed or duplicated on the way, a drop mid-play, a draining
 * battery. Every time is on the badge's clock; every draw comes from the badge's seeded streams.
 * What a behaviour will do next is data (a `BehaviourAct` on a timer), so a fleet's snapshot
 * keeps it and a restored badge carries on (docs/decisions.md FS5).
 */

import type { Clock, TimerId } from '../clock/clock.ts';
import type { FixtureBehaviour, TapRule } from '../fixtures/fixtures.schema.ts';
import { hasOwn } from '../input/own.ts';
import { parseDuration, parseDurationRange } from '../protocol/duration.ts';
import { draw } from '../protocol/seeded-random.ts';
import { type BatteryTarget, type DropTarget, type TapFate, tapFates } from './device-faults.ts';

export type Behaviour = FixtureBehaviour;

/**
 * Alerts an ack-after behaviour remembers having scheduled a tap for, newest kept: more than
 * a badge has open at once, and few enough that a fleet left running a day holds them all
 * early on (decision H8).
 */
const HEARD_ALERTS_CAP = 64;

/** What a behaviour needs of a badge. */
export interface BehaviourTarget extends BatteryTarget, DropTarget {
  /** Whether a tap would reach the stub now (absent: always). */
  readonly online?: boolean;
  tap(taskId?: string): void;
  /** The network vanishes without a close; `comeBack` connects again on a new socket. */
  vanish(): void;
  /** Decides the fate of each tap by its number; returns the function that stops it. */
  setTapFates(fateOf: (tap: number) => TapFate | undefined): () => void;
  /** Which open alert a tap acknowledges from now on. */
  setTapRule(rule: TapRule): void;
}

/** What a behaviour's timer does when it fires: plain data, so a snapshot can keep it. */
type BehaviourAct =
  | { do: 'ackTap'; taskId: string }
  | { do: 'offline'; index: number }
  | { do: 'vanish'; index: number }
  | { do: 'comeBack' }
  | { do: 'flakyOff' }
  | { do: 'flakyBack' }
  | { do: 'dropOff' }
  | { do: 'dropBack' }
  | { do: 'batteryStep' };

/** A behaviour's timer as a snapshot keeps it: when it is due, its place among equals, its act. */
interface PendingAct {
  due: number;
  seq: number;
  act: BehaviourAct;
}

/** What a running behaviour holds besides its draws' generators (docs/decisions.md FS5). */
export interface BehaviourState {
  timers: PendingAct[];
  /** Alerts an ack-after behaviour has scheduled a tap for, oldest first. */
  acked: string[];
  /** Alert plays a drop behaviour has counted, and whether a drop is under way. */
  plays: number;
  dropping: boolean;
  /** The level a draining battery goes down from. */
  batteryLevel: number;
}

/** A clock a snapshot can read its timers from (the fleet's `VirtualClock`). */
type PendingClock = Clock & { pending?(id: TimerId): { due: number; seq: number } | undefined };

/** A running behaviour: `stop` ends it; `state` is what a snapshot keeps of it. */
export interface BehaviourRun {
  stop(): void;
  state(): BehaviourState;
  /** Sets the saved timers again (a restore, in the fleet's order of every saved timer). */
  rearm(pending: PendingAct): void;
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
  const run = startBehaviour(badge, behaviour, clock, random, faultRandom);
  return () => run.stop();
}

/**
 * Starts a behaviour, or with `resumed` carries one on from a snapshot: its counters are set
 * back and nothing is scheduled at start (the caller `rearm`s the saved timers in order).
 */
export function startBehaviour(
  badge: BehaviourTarget,
  behaviour: Behaviour,
  clock: PendingClock,
  random: () => number,
  faultRandom: () => number = random,
  resumed?: BehaviourState,
): BehaviourRun {
  const timers = new Map<TimerId, BehaviourAct>();
  const at = (delayMs: number, act: BehaviourAct) => {
    const id = clock.setTimer(delayMs, () => {
      timers.delete(id);
      fire(act);
    });
    timers.set(id, act);
  };
  const acked = new Set<string>(resumed?.acked);
  let plays = resumed?.plays ?? 0;
  let dropping = resumed?.dropping ?? false;
  let level = resumed?.batteryLevel ?? behaviour.battery?.from ?? badge.batteryLevel;
  const battery = behaviour.battery;
  const batteryStepMs = battery ? Math.round(60_000 / battery.drain) : 0;

  function fire(act: BehaviourAct): void {
    switch (act.do) {
      case 'ackTap':
        // A tap while off the network is lost: try again after the alert is heard again.
        if (badge.online === false) acked.delete(act.taskId);
        else badge.tap(act.taskId);
        return;
      case 'dropBack':
        dropping = false;
        badge.comeBack();
        return;
      case 'batteryStep':
        level = Math.max(0, level - 1);
        badge.setBattery(level, 'discharging');
        if (level > 0) at(batteryStepMs, { do: 'batteryStep' });
        return;
      default:
        fireNetworkAct(act, badge, behaviour, { random, faultRandom }, at);
    }
  }

  const stops = listen(badge, behaviour, {
    ackPlayed: (taskId) => {
      if (acked.has(taskId)) return;
      acked.add(taskId);
      // Only recent alerts repeat: remembering the newest ones keeps a long run flat.
      if (acked.size > HEARD_ALERTS_CAP) acked.delete(acked.values().next().value!);
      const ack = behaviour.ack as { after: string };
      at(draw(random, parseDurationRange(ack.after)!), { do: 'ackTap', taskId });
    },
    dropPlayed: (drop) => {
      plays++;
      const hit =
        drop.on_play === undefined ? faultRandom() < (drop.chance ?? 0) : plays === drop.on_play;
      if (!hit || dropping) return;
      dropping = true;
      at(draw(faultRandom, parseDurationRange(drop.after ?? '0s')!), { do: 'dropOff' });
    },
  });
  if (behaviour.tap) stops.push(badge.setTapFates(tapFates(behaviour.tap, faultRandom)));
  if (!resumed) scheduleStart(behaviour, random, at, badge, level, batteryStepMs);

  return {
    stop: () => {
      for (const stop of stops) stop();
      for (const id of timers.keys()) clock.clearTimer(id);
      timers.clear();
    },
    state: () => ({
      timers: [...timers].map(([id, act]) => ({ ...clock.pending!(id)!, act })),
      acked: [...acked],
      plays,
      dropping,
      batteryLevel: level,
    }),
    rearm: ({ due, act }) => at(due - clock.now(), act),
  };
}

/** The acts that take a badge off the network and bring it back, each scheduling what follows. */
function fireNetworkAct(
  act: BehaviourAct,
  badge: BehaviourTarget,
  behaviour: Behaviour,
  { random, faultRandom }: { random: () => number; faultRandom: () => number },
  at: (delayMs: number, act: BehaviourAct) => void,
): void {
  switch (act.do) {
    case 'offline': {
      badge.goOffline();
      const away = behaviour.offline?.[act.index]?.for;
      if (away) at(parseDuration(away)!, { do: 'comeBack' });
      return;
    }
    case 'vanish': {
      badge.vanish();
      const away = behaviour.vanish?.[act.index]?.for;
      if (away) at(draw(random, parseDurationRange(away)!), { do: 'comeBack' });
      return;
    }
    case 'comeBack':
      badge.comeBack();
      return;
    case 'flakyOff':
      badge.goOffline();
      at(draw(random, parseDurationRange(behaviour.flaky!.down)!), { do: 'flakyBack' });
      return;
    case 'flakyBack':
      badge.comeBack();
      at(draw(random, parseDurationRange(behaviour.flaky!.every)!), { do: 'flakyOff' });
      return;
    case 'dropOff':
      badge.goOffline();
      at(draw(faultRandom, parseDurationRange(behaviour.drop!.for)!), { do: 'dropBack' });
      return;
  }
}

/** The behaviour's listeners of alert plays (ack after a delay or on a repeat, drops). */
function listen(
  badge: BehaviourTarget,
  behaviour: Behaviour,
  on: {
    ackPlayed: (taskId: string) => void;
    dropPlayed: (drop: NonNullable<Behaviour['drop']>) => void;
  },
): (() => void)[] {
  const stops: (() => void)[] = [];
  const ack = behaviour.ack;
  if (ack && ack !== 'never') {
    stops.push(
      badge.onAlertPlay((taskId, repeat) => {
        if (!hasOwn(ack, 'on_repeat')) on.ackPlayed(taskId);
        else if (repeat === ack.on_repeat) badge.tap(taskId);
      }),
    );
  }
  const drop = behaviour.drop;
  if (drop) stops.push(badge.onAlertPlay(() => on.dropPlayed(drop)));
  return stops;
}

/** What a behaviour does when it starts: its first timers, its tap rule, its battery's level. */
function scheduleStart(
  behaviour: Behaviour,
  random: () => number,
  at: (delayMs: number, act: BehaviourAct) => void,
  badge: BehaviourTarget,
  level: number,
  batteryStepMs: number,
): void {
  (behaviour.offline ?? []).forEach((drop, index) => {
    at(parseDuration(drop.at)!, { do: 'offline', index });
  });
  (behaviour.vanish ?? []).forEach((gap, index) => {
    at(draw(random, parseDurationRange(gap.at)!), { do: 'vanish', index });
  });
  if (behaviour.flaky) {
    at(draw(random, parseDurationRange(behaviour.flaky.every)!), { do: 'flakyOff' });
  }
  if (behaviour.acknowledges) badge.setTapRule(behaviour.acknowledges);
  if (behaviour.battery) {
    if (behaviour.battery.from !== undefined) badge.setBattery(level, 'discharging');
    if (level > 0) at(batteryStepMs, { do: 'batteryStep' });
  }
}
