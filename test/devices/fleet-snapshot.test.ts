/**
 * A fleet's snapshot over real WebSockets (docs/decisions.md FS1–FS19): saved, written as JSON
 * text and restored against a stub on a loopback port, it reads back the same; restored badges
 * carry on (the rest of a clip, a behaviour's timer at the same virtual instant, its seeded
 * draws continued); and a snapshot that is not one is refused, naming the field, before any
 * badge connects.
 */
import { describe, expect, test } from 'vitest';
import { startStub } from '../../server-stub/start-stub.ts';
import { startFleet } from '../../simulator/fleet.ts';
import type { FleetOptions } from '../../simulator/fleet-options.ts';
import { controlClient, serviceClient } from '../support/http.ts';

const ADA = '350000000000001';
const BEN = '350000000000002';
const LENA = '350000000000003';
const START = Date.UTC(2026, 0, 1);

const OPTIONS = {
  group: 'Nurses',
  seed: 3,
  behaviours: {
    [ADA]: { ack: { after: '20s..40s' } },
    [BEN]: { offline: [{ at: '50s', for: '10s' }] },
    [LENA]: { battery: { drain: 6 } },
  },
} satisfies Partial<FleetOptions>;

/** A stub and its fleet, an alert playing on every nurse's badge, `ms` into it. */
async function worldAt(ms: number) {
  const stub = await startStub();
  const fleet = await startFleet({ stub, ...OPTIONS });
  await fleet.waitUntilConnected();
  await serviceClient(stub).alert({ notification: 'Code blue in ward 3', groups: ['Nurses'] });
  await fleet.settled();
  await fleet.advanceBy(ms);
  return { stub, fleet };
}

/** The instants (s from the start) of a badge's activity of one kind. */
function when(activity: readonly { at: string; kind: string }[], kind: string): number[] {
  return activity.filter((a) => a.kind === kind).map((a) => (Date.parse(a.at) - START) / 1000);
}

describe('a fleet snapshot over real WebSockets', () => {
  test('saved mid-clip, written as JSON text and restored, it reads back the same', async () => {
    const { stub, fleet } = await worldAt(1_000);
    const text = JSON.stringify(fleet.snapshot());
    const saved = JSON.parse(text);
    expect(saved.format).toBe('badge-sim-fleet/1');
    expect(saved.at).toBe(START + 1_000);
    expect(saved.badges[0].clip.elapsedMs).toBe(1_000);
    expect(saved.badges[0].machine.value).toEqual({ online: 'playing' });
    await fleet.close();
    await stub.close();

    await using other = await startStub();
    await controlClient(other).advance(1_000);
    await using restored = await startFleet({
      stub: other.url,
      group: 'Nurses',
      snapshot: text,
      connect: false,
    });
    expect(restored.snapshot()).toEqual(saved);
    expect(restored.status(ADA)).toBe('playing');
    expect(restored.transcript(ADA)).toEqual(JSON.parse(JSON.stringify(fleet.transcript(ADA))));
  });

  test('restored badges carry on: the rest of the clip, then behaviour timers at the same instants with the same draws', async () => {
    // World A runs on; world B is saved 1.5 s in, its fleet closed, and a new fleet restored from it.
    const a = await worldAt(1_500);
    const b = await worldAt(1_500);
    const snapshot = b.fleet.snapshot();
    const clipEnds = (snapshot.badges[0] as any).clip.due;
    await b.fleet.close();
    await using restored = await startFleet({
      stub: b.stub,
      group: 'Nurses',
      snapshot: JSON.stringify(snapshot),
    });
    await restored.waitUntilConnected();
    expect(restored.status(ADA)).toBe('playing');
    await a.fleet.advanceBy(70_000);
    await restored.advanceBy(70_000);

    // The reconnect's replay waited for the rest of the saved clip (FS6).
    expect(Date.parse(restored.transcript(ADA)[1]!.at)).toBe(clipEnds);
    // The drawn ack, the scripted drop and the draining battery, as in the world never saved.
    expect(when(restored.badge(ADA).activity, 'tap')).toEqual(
      when(a.fleet.badge(ADA).activity, 'tap'),
    );
    expect(when(restored.badge(ADA).activity, 'tap')).toHaveLength(1);
    for (const kind of ['offline', 'online'])
      expect(when(restored.badge(BEN).activity, kind)).toEqual(
        when(a.fleet.badge(BEN).activity, kind),
      );
    expect(when(restored.badge(BEN).activity, 'offline')).toEqual([50]);
    expect(restored.badge(LENA).batteryLevel).toBe(a.fleet.badge(LENA).batteryLevel);
    expect(restored.badge(LENA).batteryLevel).toBeLessThan(100);
    await a.fleet.close();
    await a.stub.close();
    await b.stub.close();
  }, 60_000);
});

describe('a snapshot that is not one is refused, naming the field, and nothing starts', () => {
  test('another format, cut short, edited by hand, an unknown badge, an earlier clock, another seed, workers', async () => {
    const { stub, fleet } = await worldAt(1_000);
    const text = JSON.stringify(fleet.snapshot());
    await fleet.close();
    const edited = (edit: (s: any) => void) => {
      const s = JSON.parse(text);
      edit(s);
      return s;
    };
    const cases: [FleetOptions['snapshot'], RegExp, Partial<FleetOptions>?][] = [
      [
        edited((s) => {
          s.format = 'badge-sim-fleet/0';
        }),
        /snapshot\.format is "badge-sim-fleet\/0", not 'badge-sim-fleet\/1'.*take it again/,
      ],
      [text.slice(0, text.length / 2), /snapshot is not JSON .*cut short/],
      [
        edited((s) => {
          s.badges[0].machine.context.batteryLevel = 'full';
        }),
        /snapshot\.badges\[0\]\.machine\.context\.batteryLevel must be number: the snapshot was edited or cut short/,
      ],
      [
        edited((s) => {
          delete s.badges[1].link;
        }),
        /snapshot\.badges\[1\]\.link must have required property/,
      ],
      [
        edited((s) => {
          s.badges[2].deviceId = '359999999999999';
        }),
        /snapshot\.badges\[2\]\.deviceId '359999999999999' is not a device of this fleet: start it on the fixtures/,
      ],
      [
        edited((s) => {
          s.badges[0].behaviour = { ack: { after: 'soon' } };
        }),
        /snapshot\.badges\[0\]\.behaviour\.ack/,
      ],
      [
        edited((s) => {
          s.at -= 5_000;
          s.badges[0].clip.due = s.at - 1;
        }),
        /snapshot\.badges\[0\]\. has a timer due at .* before the snapshot's instant/,
      ],
      [text, /seed is 4, but snapshot\.seed is 3: .*leave seed out/, { seed: 4 }],
      [
        text,
        /snapshot restores a fleet in this thread; leave workers out/,
        { workers: 1 } as never,
      ],
    ];
    for (const [snapshot, message, more] of cases) {
      await expect(startFleet({ stub, snapshot, connect: true, ...more })).rejects.toThrow(message);
    }
    // An earlier clock: a fresh stub has not reached the snapshot's instant.
    await using fresh = await startStub();
    await expect(startFleet({ stub: fresh, snapshot: text })).rejects.toThrow(
      /snapshot\.at is 2026-01-01T00:00:01\.000000Z, but the stub's clock is at 2026-01-01T00:00:00\.000000Z: restore the stub's world first/,
    );
    expect((await controlClient(fresh).devices()).body.filter((d: any) => d.online)).toEqual([]);
    await stub.close();
  });
});
