/**
 * A fleet's badges, saved at an instant T and restored, carry on exactly as the originals do
 * (docs/decisions.md FS1–FS6), shown without a stub: two identical worlds of badges on virtual
 * clocks, fed the same stub frames at the same instants through links that go nowhere. World A
 * runs the whole schedule; world B runs to T, is saved (through JSON text), and world C is
 * restored from that on a fresh clock at T and fed the rest. A and C must then hold the same
 * machine states, transcripts, activity and taps, send the same frames, and their seeded
 * streams must draw the same next values. What this leaves to the joint stub+fleet property
 * (after issue 32's stub side lands): the stub's own timers and what it sends on a reconnect.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { FixtureBehaviour } from '../../fixtures/fixtures.schema.ts';
import type { StubFrame } from '../../protocol/device-frames.schema.ts';
import { type BadgeWorld, badgeWorld } from '../../test/support/badge-world.ts';
import { type FleetBadge, takeFleetSnapshot } from './fleet-snapshot.ts';

const IDS = ['350000000000001', '350000000000002', '350000000000003'];
const world = (behaviours: Record<string, FixtureBehaviour>, restoredFrom?: string) =>
  badgeWorld(IDS, behaviours, restoredFrom);

type Step = { atMs: number; device: number; frame: Record<string, unknown> };

const frameArb = fc.oneof(
  fc.record({
    type: fc.constant('play'),
    task_id: fc.constantFrom('t1', 't2', 't3'),
    name: fc.constantFrom('a', 'b'),
    text: fc.constantFrom('Spill', 'Code blue in ward 3'),
    repeat: fc.nat(3),
  }),
  fc.record({
    type: fc.constant('broadcast'),
    task_id: fc.constantFrom('b1', 'b2'),
    text: fc.constantFrom('Lunch', 'Fire drill at noon'),
  }),
  fc.record({
    type: fc.constant('speak'),
    task_id: fc.constantFrom('t1', 't2'),
    text: fc.constant('Thanks'),
    cause: fc.constantFrom('on_ack', 'on_timeout'),
  }),
  fc.record({
    type: fc.constant('stop'),
    task_id: fc.constantFrom('t1', 't2', 't3'),
    cause: fc.constantFrom('acknowledged', 'cancelled'),
  }),
);
const stepArb: fc.Arbitrary<Step> = fc.record({
  atMs: fc.nat(60_000),
  device: fc.nat(2),
  frame: frameArb,
});
const behaviourArb: fc.Arbitrary<FixtureBehaviour> = fc.record(
  {
    ack: fc.constantFrom({ after: '1s..20s' }, { after: '3s' }, 'never' as const),
    offline: fc.constantFrom([{ at: '15s', for: '5s' }]),
    vanish: fc.constantFrom([{ at: '5s..40s', for: '1s..9s' }]),
    flaky: fc.constantFrom({ every: '10s..20s', down: '1s..3s' }),
    tap: fc.constantFrom({ lose: { chance: 0.3 }, delay: { chance: 0.5, by: '100ms..2s' } }),
    drop: fc.constantFrom({ chance: 0.5, after: '0s..1s', for: '2s..4s' }),
    battery: fc.constantFrom({ drain: 6 }),
  },
  { requiredKeys: [] },
) as fc.Arbitrary<FixtureBehaviour>;

/** Feeds the steps due up to `until` (and advances the clock to it), in order. */
async function run(w: BadgeWorld, steps: Step[], from: number, until: number) {
  const start = w.clock.now() - from;
  for (const step of steps.filter((s) => s.atMs >= from && s.atMs < until)) {
    await w.clock.advanceTo(start + step.atMs);
    const id = IDS[step.device]!;
    if (w.links.get(id)!.online)
      await w.handlers
        .get(id)!
        .frame({ ...step.frame, at: w.clock.now(), seq: 0 } as unknown as StubFrame);
  }
  await w.clock.advanceTo(start + until);
}

/** Everything a badge shows of itself. */
function looks(badges: readonly FleetBadge[]) {
  return badges.map(({ badge }) => ({
    status: badge.status,
    open: badge.openAlerts,
    battery: badge.batteryLevel,
    transcript: badge.transcript,
    activity: badge.activity,
    taps: badge.taps,
  }));
}

async function connectAll(w: BadgeWorld) {
  for (const { badge } of w.badges) badge.connect();
  await w.clock.advanceBy(0);
}

describe('a fleet saved at T and restored carries on as the original', () => {
  test('property: same states, transcripts, frames sent and next draws as the uninterrupted world', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(behaviourArb, { minLength: 3, maxLength: 3 }),
        fc.array(stepArb, { maxLength: 25 }).map((s) => s.sort((a, b) => a.atMs - b.atMs)),
        fc.integer({ min: 1, max: 59_999 }),
        async (given, steps, t) => {
          const behaviours = Object.fromEntries(IDS.map((id, i) => [id, given[i]!]));
          const a = world(behaviours);
          await connectAll(a);
          await run(a, steps, 0, 60_000);

          const b = world(behaviours);
          await connectAll(b);
          await run(b, steps, 0, t);
          const text = JSON.stringify(takeFleetSnapshot(b.badges, b.clock, 5));
          const sentBefore = b.sent.length;
          for (const { badge, run: r } of b.badges) {
            r?.stop();
            badge.dispose();
          }

          const c = world(behaviours, text);
          await c.clock.advanceTo(c.restored!.at);
          for (const { badge } of c.badges) if (badge.status !== 'offline') badge.resumeLink();
          await run(c, steps, t, 60_000);

          expect(looks(c.badges)).toEqual(looks(a.badges));
          expect(c.sent).toEqual(a.sent.slice(sentBefore));
          for (let i = 0; i < IDS.length; i++) {
            for (const kind of ['behaviour', 'faults', 'reconnect'] as const)
              expect(c.badges[i]!.random[kind]()).toBe(a.badges[i]!.random[kind]());
          }
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000);
});
