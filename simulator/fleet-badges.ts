/**
 * A fleet's badges made (fleet.ts): each with its link, its seeded streams (behaviour, faults,
 * reconnect: separate, so one kind of draw never shifts another) and its behaviour; fresh, or
 * carried on from a fleet's snapshot (docs/decisions.md FS2–FS6), whose timers are then set
 * again in the order they would have fired.
 */

import type { VirtualClock } from '../clock/clock.ts';
import type { FixtureBehaviour, FixtureDevice } from '../fixtures/fixtures.schema.ts';
import { ownValue } from '../input/own.ts';
import { resumedRandom, seededRandom } from '../protocol/seeded-random.ts';
import { Badge } from './badge.ts';
import type { BadgeOptions, SavedTimer } from './badge-types.ts';
import { startBehaviour } from './behaviours.ts';
import { checkBehaviour, type FleetOptions } from './fleet-options.ts';
import type { FleetBadge, SavedBadge, SavedFleet } from './snapshot/fleet-snapshot.ts';

/** What every badge of a fleet shares, and what each one's link and hooks are made from. */
export interface FleetBadgeParts {
  clock: VirtualClock;
  seed: number;
  /** The options of a badge but its device's own (id, key, battery, place, reconnect stream). */
  common: Omit<BadgeOptions, 'deviceId' | 'key' | 'batteryLevel' | 'location' | 'reconnect'>;
  locationOf: (device: FixtureDevice) => BadgeOptions['location'];
  onVanish: (deviceId: string) => (() => void) | undefined;
  reconnect: { initialMs: number; maxMs: number } | false;
}

/** Makes the fleet's badges, restoring those `restored` holds; returns them and their runs. */
export function makeFleetBadges(
  devices: readonly FixtureDevice[],
  options: Pick<FleetOptions, 'behaviour' | 'behaviours'>,
  parts: FleetBadgeParts,
  restored: SavedFleet | undefined,
): FleetBadge[] {
  const saved = new Map(restored?.badges.map((b) => [b.deviceId, b]));
  const clips = restored?.clips ?? [];
  const defaultBehaviour = options.behaviour
    ? checkBehaviour(options.behaviour, 'behaviour')
    : undefined;
  const timers: (SavedTimer & { arm(): void })[] = [];
  const made = devices.map((device): FleetBadge => {
    const state = saved.get(device.id);
    const random = state
      ? {
          behaviour: resumedRandom(state.random.behaviour),
          faults: resumedRandom(state.random.faults),
          reconnect: resumedRandom(state.random.reconnect),
        }
      : {
          behaviour: seededRandom(parts.seed, device.id),
          faults: seededRandom(parts.seed, device.id, 'faults'),
          reconnect: seededRandom(parts.seed, device.id, 'reconnect'),
        };
    const badge = new Badge({
      ...parts.common,
      deviceId: device.id,
      key: device.key,
      batteryLevel: device.battery_level,
      location: parts.locationOf(device),
      onVanish: parts.onVanish(device.id),
      reconnect: parts.reconnect && { ...parts.reconnect, random: random.reconnect },
      ...(state ? { resumed: { state, clips } } : {}),
    });
    const behaviour = behaviourOf(device, options, defaultBehaviour, state);
    const run =
      behaviour &&
      startBehaviour(
        badge,
        behaviour,
        parts.clock,
        random.behaviour,
        random.faults,
        state?.behaviourState ?? undefined,
      );
    if (state) {
      timers.push(...badge.savedTimers(state));
      for (const pending of state.behaviourState?.timers ?? [])
        timers.push({ ...pending, arm: () => run!.rearm(pending) });
    }
    return { badge, behaviour, run, random };
  });
  // In the order they would have fired: by instant, then by their rank at the snapshot (FS4).
  timers.sort((a, b) => a.due - b.due || a.seq - b.seq);
  for (const timer of timers) timer.arm();
  return made;
}

/** A restored badge keeps the behaviour it was saved with (FS7); a fresh one, as before. */
function behaviourOf(
  device: FixtureDevice,
  options: Pick<FleetOptions, 'behaviour' | 'behaviours'>,
  defaultBehaviour: FixtureBehaviour | undefined,
  state: SavedBadge | undefined,
): FixtureBehaviour | undefined {
  if (state) return state.behaviour ?? undefined;
  const given = ownValue(options.behaviours, device.id) ?? device.behaviour;
  return given ? checkBehaviour(given, `behaviour of device ${device.id}`) : defaultBehaviour;
}

/** A snapshot's behaviours, checked as strictly as a fixture's, before anything starts (FS8). */
export function checkSavedBehaviours(restored: SavedFleet): void {
  restored.badges.forEach((badge, i) => {
    if (badge.behaviour) checkBehaviour(badge.behaviour, `snapshot.badges[${i}].behaviour`);
  });
}
