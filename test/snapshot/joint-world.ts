/**
 * Random schedules of a stub AND its fleet (fast-check), for the joint snapshot property
 * (issue 32, point 4; docs/decisions.md WS30): what the stub's users do (world-schedule.ts's
 * posts, cancels, broadcasts, tokens, faults), and what the badges' wearers do — press the
 * button, drop off the network for a while — with the virtual clock moved by the fleet, so the
 * stub's timers and the badges' (clips, behaviours' drawn acks, drops, a draining battery) fire
 * in one order. Each step is settled (frames delivered and answered) before the next.
 */
import fc from 'fast-check';
import type { FixtureBehaviour } from '../../fixtures/fixtures.schema.ts';
import type { StubCore } from '../../server-stub/stub-core.ts';
import type { FleetHandle } from '../../simulator/fleet-options.ts';
import { HARBOUR, RIVERSIDE } from '../support/http.ts';
import type { Driver, WorldOp } from './world-schedule.ts';

export type JointDriver = (step: JointOp, posted: string[]) => Promise<string>;

/** The badges of the fleet: Riverside's Nurses (Lena Ortiz is in Pharmacy too). */
export const BADGES = ['350000000000001', '350000000000002', '350000000000003'];
/**
 * The devices whose transcripts are compared: the badges' and Omar Haddad's (Pharmacy), who
 * runs no badge, so the stub repeats his alerts unheard and no hello replays them (a repeat
 * timer the stub's snapshot lost shows there).
 */
const DEVICES = [...BADGES, '350000000000004'];

/** Each badge's behaviour: seeded draws (an ack's delay, a tap lost) and timers a snapshot keeps. */
export const BEHAVIOURS: Record<string, FixtureBehaviour> = {
  [BADGES[0]!]: { ack: { after: '5s..40s' } },
  [BADGES[1]!]: { offline: [{ at: '50s', for: '20s' }], tap: { lose: { chance: 0.3 } } },
  [BADGES[2]!]: { battery: { drain: 6 }, ack: { after: '20s' } },
};

export type JointOp =
  | Exclude<WorldOp, { kind: 'tap' | 'advance' }>
  | { kind: 'press'; badge: number }
  | { kind: 'drop'; badge: number; ms: number }
  | { kind: 'advance'; ms: number };

const stubOp: fc.Arbitrary<JointOp> = fc.oneof(
  {
    arbitrary: fc.record({
      kind: fc.constant('post' as const),
      group: fc.constantFrom('Nurses', 'Pharmacy'),
      name: fc.constantFrom('x', 'y'),
      quorum: fc.constantFrom(undefined, 1, 2),
      timeout: fc.constantFrom(30, 45, 90, 300),
    }),
    weight: 4,
  },
  { arbitrary: fc.record({ kind: fc.constant('cancel' as const), task: fc.nat(5) }), weight: 1 },
  {
    arbitrary: fc.record({
      kind: fc.constant('broadcast' as const),
      group: fc.constantFrom('Nurses', 'Pharmacy'),
    }),
    weight: 1,
  },
  { arbitrary: fc.constant({ kind: 'token' as const }), weight: 1 },
  { arbitrary: fc.constant({ kind: 'fault' as const }), weight: 1 },
);

const op: fc.Arbitrary<JointOp> = fc.oneof(
  { arbitrary: stubOp, weight: 6 },
  {
    arbitrary: fc.record({ kind: fc.constant('press' as const), badge: fc.nat(2) }),
    weight: 3,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('drop' as const),
      badge: fc.nat(2),
      ms: fc.constantFrom(2_000, 15_000, 45_000),
    }),
    weight: 1,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('advance' as const),
      ms: fc.constantFrom(0, 1_000, 2_500, 29_000, 31_000, 60_000, 400_000),
    }),
    weight: 4,
  },
);

/** A schedule of up to `maxLength` steps and the step at which both snapshots are taken. */
export const jointSchedule = (maxLength: number) =>
  fc
    .array(op, { minLength: 2, maxLength })
    .chain((ops) =>
      fc.record({ ops: fc.constant(ops), at: fc.integer({ min: 0, max: ops.length }) }),
    );

/** A stub's driver (world-schedule.ts) with the badges' steps and the fleet's clock beside it. */
export function jointDriver(stub: Driver, fleet: FleetHandle): JointDriver {
  return async (step, posted) => {
    let said: string;
    switch (step.kind) {
      case 'press':
        fleet.badge(BADGES[step.badge]!).tap();
        said = 'pressed';
        break;
      case 'drop':
        fleet.badge(BADGES[step.badge]!).drop(step.ms);
        said = 'dropped';
        break;
      case 'advance':
        await fleet.advanceBy(step.ms);
        said = 'advanced';
        break;
      default:
        said = await stub(step, posted);
    }
    await fleet.settled();
    return said;
  };
}

/** Runs a schedule's steps from `from` to `to`, keeping what each did. */
export async function runJoint(
  driver: JointDriver,
  ops: readonly JointOp[],
  from: number,
  to: number,
  posted: string[],
): Promise<string[]> {
  const outcomes: string[] = [];
  for (let i = from; i < to; i++) outcomes.push(await driver(ops[i]!, posted));
  return outcomes;
}

/**
 * What users see of the joint world: the stub's events, task views and transcripts, what each
 * badge shows of itself (state, open alerts, battery, what it heard, its activity and taps),
 * and the next ids the stub would issue (drawn, so read last).
 */
export function jointView(core: StubCore, fleet: FleetHandle): string {
  return JSON.stringify({
    events: [RIVERSIDE.id, HARBOUR.id].map((id) => core.engine.eventsBytes(id).toString()),
    tasks: core.engine.tasks(),
    transcripts: DEVICES.map((id) => core.engine.transcript(id)),
    badges: BADGES.map((id) => {
      const badge = fleet.badge(id);
      return {
        status: badge.status,
        open: badge.openAlerts,
        battery: badge.batteryLevel,
        heard: badge.transcript,
        activity: badge.activity,
        taps: badge.taps,
      };
    }),
    ids: [core.ids.taskId(), core.ids.taskId()],
  });
}
