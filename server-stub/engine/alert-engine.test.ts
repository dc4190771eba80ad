import { describe, expect, it } from 'vitest';
import { formatTimestamp, VirtualClock } from '../../clock/clock.ts';
import { checkFixtures } from '../../fixtures/load-fixtures.ts';
import { IdSource } from '../../protocol/ids.ts';
import type { AlertRequest } from '../../protocol/service-api.schema.ts';
import { toMicros } from '../../protocol/timestamp.ts';
import {
  AlertEngine,
  type CancelEvents,
  type DeviceCommand,
  type TranscriptEntry,
} from './alert-engine.ts';
import { Directory } from './directory.ts';
import { EngineError } from './engine-error.ts';

// ---------------------------------------------------------------------------------------------
// Fixtures: one hospital account whose groups overlap (Lena is in Nurses and Pharmacy), a group
// of one device, and a second account to try cross-account refusals.
// ---------------------------------------------------------------------------------------------

const HOSPITAL = '100001';
const HARBOUR = '100002';

const ADA = '350000000000001';
const BEN = '350000000000002';
const LENA = '350000000000003';
const OMAR = '350000000000004';
const DESK = 'VIRTDESK01';
const KAI = '350000000000101';

const FIXTURES = {
  accounts: [
    {
      subscriber_id: HOSPITAL,
      name: 'Riverside Hospital',
      api_keys: ['test-key-hospital-0001'],
      groups: [
        { id: '5001', name: 'Nurses', members: [ADA, BEN, LENA] },
        { id: '5002', name: 'Pharmacy', members: [LENA, OMAR] },
        { id: '5003', name: 'Front Desk', members: [DESK] },
      ],
      devices: [
        { id: ADA, user: 'Ada Mensah' },
        { id: BEN, user: 'Ben Okafor' },
        { id: LENA, user: 'Lena Ortiz' },
        { id: OMAR, user: 'Omar Haddad' },
        { id: DESK, user: 'Front Desk' },
      ],
    },
    {
      subscriber_id: HARBOUR,
      api_keys: ['test-key-harbour-0002'],
      groups: [{ id: '6001', name: 'Dock Crew', members: [KAI] }],
      devices: [{ id: KAI, user: 'Kai Tanaka' }],
    },
  ],
};

const ALL_HOSPITAL_DEVICES = [ADA, BEN, LENA, OMAR, DESK];
const TASK_TYPE = { major: 1, minor: 4, name: 'alerts', namespace: 'system' };

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

function setup(options: { seed?: number; cancelEvents?: CancelEvents } = {}) {
  const clock = new VirtualClock();
  const t0 = clock.now();
  const engine = new AlertEngine({
    clock,
    ids: new IdSource(options.seed ?? 1),
    directory: new Directory(checkFixtures(structuredClone(FIXTURES)), 'service'),
    ...(options.cancelEvents ? { cancelEvents: options.cancelEvents } : {}),
  });
  /** The transcript/event timestamp of `seconds` after the start. */
  const at = (seconds: number) => formatTimestamp(t0 + seconds * 1000);
  /** Advances the clock to `seconds` after the start. */
  const advanceToSecond = (seconds: number) => clock.advanceTo(t0 + seconds * 1000);
  return { clock, engine, t0, at, advanceToSecond };
}

function alert(groups: string[], extra: Partial<AlertRequest> = {}): AlertRequest {
  return { notification: 'Code blue in ward 7', groups, ...extra };
}

type CommandType = DeviceCommand['type'];

function entries(engine: AlertEngine, deviceId: string, type?: CommandType, taskId?: string) {
  return engine
    .transcript(deviceId)
    .filter((e) => (type === undefined || e.type === type) && (!taskId || e.taskId === taskId));
}

/** When an alert played on a device. */
function playTimes(engine: AlertEngine, deviceId: string, taskId?: string): string[] {
  return entries(engine, deviceId, 'play', taskId).map((e) => e.at);
}

/** A compact view of a device's transcript: `type[:cause]@at`. */
function lines(engine: AlertEngine, deviceId: string, taskId?: string): string[] {
  return entries(engine, deviceId, undefined, taskId).map(describeEntry);
}

function describeEntry(entry: TranscriptEntry): string {
  const cause = 'cause' in entry ? `:${entry.cause}` : '';
  const text = entry.type === 'speak' ? `(${entry.text})` : '';
  return `${entry.type}${cause}${text}@${entry.at}`;
}

function eventTypes(engine: AlertEngine, subscriberId = HOSPITAL): string[] {
  return engine.events(subscriberId).map((e) => e.content.type);
}

/** The timestamps `0, 30, …` seconds, `count` of them, shifted by `from`. */
function every30s(at: (s: number) => string, count: number, from = 0): string[] {
  return Array.from({ length: count }, (_, i) => at(from + i * 30));
}

function catchEngineError(action: () => unknown): EngineError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(EngineError);
    return error as EngineError;
  }
  throw new Error('expected an EngineError, but nothing was thrown');
}

function speeches(engine: AlertEngine, deviceId: string, cause: string): TranscriptEntry[] {
  return engine.transcript(deviceId).filter((e) => e.type === 'speak' && e.cause === cause);
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

describe('creating an alert', () => {
  it('emits a start event and plays once on every device of the groups, each device once across overlapping groups', () => {
    const { engine, at } = setup();

    const { taskId } = engine.createAlert(HOSPITAL, alert(['Nurses', 'Pharmacy']));

    expect(engine.events(HOSPITAL).map((e) => [e.content.type, e.task.id])).toEqual([
      ['start', taskId],
    ]);
    for (const device of [ADA, BEN, LENA, OMAR]) {
      expect(engine.transcript(device)).toEqual([
        {
          type: 'play',
          taskId,
          name: 'alerts',
          text: 'Code blue in ward 7',
          repeat: 0,
          at: at(0),
        },
      ]);
    }
    expect(engine.transcript(DESK)).toEqual([]);
    expect(engine.transcript(KAI)).toEqual([]);
    expect(engine.task(taskId)?.devices.map((d) => d.device_id)).toEqual([ADA, BEN, LENA, OMAR]);
  });

  it.each([
    ['its name', 'Pharmacy'],
    ['its name URN', 'urn:service-resource:name:group:Pharmacy'],
    ['its id URN', 'urn:service-resource:id:group:5002'],
  ])('finds a group by %s', (_, ref) => {
    const { engine } = setup();
    const { taskId } = engine.createAlert(HOSPITAL, alert([ref]));
    expect(engine.task(taskId)?.devices.map((d) => d.device_id)).toEqual([LENA, OMAR]);
    expect(playTimes(engine, LENA)).toHaveLength(1);
    expect(playTimes(engine, ADA)).toHaveLength(0);
  });

  it('finds a group by a name URN with a percent-encoded space', () => {
    const { engine } = setup();
    const { taskId } = engine.createAlert(
      HOSPITAL,
      alert(['urn:service-resource:name:group:Front%20Desk']),
    );
    expect(engine.task(taskId)?.devices.map((d) => d.device_id)).toEqual([DESK]);
  });

  it('refuses an unknown group with unknown_group naming groups[i], and changes nothing', async () => {
    const { engine, clock } = setup();

    const error = catchEngineError(() =>
      engine.createAlert(HOSPITAL, alert(['Nurses', 'Pharmacy', 'Porters'])),
    );

    expect(error.code).toBe('unknown_group');
    expect(error.field).toBe('groups[2]');
    expect(error.message).toContain('Porters');
    expect(engine.tasks()).toEqual([]);
    expect(engine.events(HOSPITAL)).toEqual([]);
    for (const device of ALL_HOSPITAL_DEVICES) expect(engine.transcript(device)).toEqual([]);
    expect(clock.state.pendingTimers).toBe(0);
    // Not even an id was used up: the next alert gets the id a fresh engine would give.
    const next = engine.createAlert(HOSPITAL, alert(['Nurses'])).taskId;
    expect(next).toBe(setup().engine.createAlert(HOSPITAL, alert(['Nurses'])).taskId);
  });

  it.each([
    ['name', 'Nurses'],
    ['id URN', 'urn:service-resource:id:group:5001'],
  ])('refuses a group of another account (by %s) as unknown_group', (_, ref) => {
    const { engine } = setup();
    const error = catchEngineError(() => engine.createAlert(HARBOUR, alert(['Dock Crew', ref])));
    expect(error.code).toBe('unknown_group');
    expect(error.field).toBe('groups[1]');
    expect(engine.transcript(ADA)).toEqual([]);
    expect(engine.transcript(KAI)).toEqual([]);
  });
});

describe('repeats and timeout', () => {
  it('repeats every 30 s: exactly 10 plays (0, 30, …, 270 s) per unacknowledged device in the default 300 s', async () => {
    const { engine, at, advanceToSecond } = setup();
    const { taskId } = engine.createAlert(HOSPITAL, alert(['Nurses']));

    await advanceToSecond(300);

    for (const device of [ADA, BEN, LENA]) {
      expect(playTimes(engine, device, taskId)).toEqual(every30s(at, 10));
      expect(entries(engine, device, 'play').map((e) => e.type === 'play' && e.repeat)).toEqual([
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
      ]);
    }
    await advanceToSecond(1_000);
    expect(playTimes(engine, ADA)).toHaveLength(10);
  });

  it('times out at exactly 300 s by default: timed_out then end(normal), stop on every device', async () => {
    const { engine, clock, t0, at } = setup();
    const { taskId } = engine.createAlert(HOSPITAL, alert(['Nurses']));

    await clock.advanceTo(t0 + 300_000 - 1);
    expect(eventTypes(engine)).toEqual(['start']);
    expect(engine.task(taskId)?.state).toBe('alerting');

    await clock.advanceBy(1);
    expect(engine.events(HOSPITAL).map((e) => [e.content, e.timestamp])).toEqual([
      [{ type: 'start' }, at(0)],
      [{ type: 'timed_out' }, at(300)],
      [{ type: 'end', status: 'normal' }, at(300)],
    ]);
    expect(engine.task(taskId)).toMatchObject({ state: 'ended', outcome: 'timed_out' });
    for (const device of [ADA, BEN, LENA]) {
      expect(lines(engine, device).at(-1)).toBe(`stop:timed_out@${at(300)}`);
    }
    expect(clock.state.pendingTimers).toBe(0);
  });

  it('speaks on_timeout only on the devices that had not acknowledged', async () => {
    const { engine, at, advanceToSecond } = setup();
    engine.createAlert(HOSPITAL, alert(['Nurses'], { on_timeout: 'Nobody answered' }));
    await advanceToSecond(10);
    engine.tap(ADA);

    await advanceToSecond(300);

    expect(speeches(engine, ADA, 'on_timeout')).toEqual([]);
    for (const device of [BEN, LENA]) {
      expect(lines(engine, device).slice(-2)).toEqual([
        `stop:timed_out@${at(300)}`,
        `speak:on_timeout(Nobody answered)@${at(300)}`,
      ]);
    }
    expect(eventTypes(engine)).toEqual(['start', 'acknowledged', 'timed_out', 'end']);
  });

  it('honours a custom timeout', async () => {
    const { engine, clock, t0, at } = setup();
    engine.createAlert(HOSPITAL, alert(['Pharmacy'], { timeout: 45 }));

    await clock.advanceTo(t0 + 45_000 - 1);
    expect(eventTypes(engine)).toEqual(['start']);
    await clock.advanceBy(1);

    expect(eventTypes(engine)).toEqual(['start', 'timed_out', 'end']);
    expect(engine.events(HOSPITAL).at(-1)?.timestamp).toBe(at(45));
    expect(playTimes(engine, OMAR)).toEqual([at(0), at(30)]);
  });

  it('does not start a repeat at the very instant of a 30 s timeout', async () => {
    const { engine, at, advanceToSecond } = setup();
    engine.createAlert(HOSPITAL, alert(['Pharmacy'], { timeout: 30 }));

    await advanceToSecond(60);

    expect(playTimes(engine, OMAR)).toEqual([at(0)]);
  });
});

describe('a queued alert at the instant it ends (L1)', () => {
  it('two alerts of one name at 0 s: the second, released by the first timing out at 300 s, never plays', async () => {
    const { engine, at, advanceToSecond } = setup();
    const first = engine.createAlert(HOSPITAL, alert(['Pharmacy'])).taskId;
    const second = engine.createAlert(HOSPITAL, alert(['Pharmacy'])).taskId;

    await advanceToSecond(600);

    expect(playTimes(engine, OMAR)).toHaveLength(10);
    expect(entries(engine, OMAR, 'play', second)).toEqual([]);
    expect(entries(engine, OMAR, 'play', first).at(-1)?.at).toBe(at(270));
    expect(engine.task(second)).toMatchObject({ state: 'ended', outcome: 'timed_out' });
  });
});

describe('quorum and timeout edge cases', () => {
  it('a quorum larger than the devices reached cannot be met: the alert runs to its timeout', async () => {
    const { engine, advanceToSecond } = setup();
    const { taskId } = engine.createAlert(HOSPITAL, alert(['Pharmacy'], { quorum: 5 }));
    engine.tap(OMAR);
    engine.tap(LENA);
    expect(engine.task(taskId)).toMatchObject({ state: 'alerting', acknowledgements: 2 });
    await advanceToSecond(300);
    expect(engine.task(taskId)).toMatchObject({ state: 'ended', outcome: 'timed_out' });
    expect(eventTypes(engine)).toEqual([
      'start',
      'acknowledged',
      'acknowledged',
      'timed_out',
      'end',
    ]);
  });

  it('emits timed_out when some devices acknowledged but not the required number', async () => {
    const { engine, advanceToSecond } = setup();
    engine.createAlert(HOSPITAL, alert(['Nurses']));
    engine.tap(ADA);
    await advanceToSecond(300);
    expect(eventTypes(engine)).toEqual(['start', 'acknowledged', 'timed_out', 'end']);
  });

  it('speaks on_timeout also on devices where the alert was still queued behind another', async () => {
    const { engine, at, advanceToSecond } = setup();
    engine.createAlert(HOSPITAL, alert(['Pharmacy'], { name: 'code', timeout: 600 }));
    const queued = engine.createAlert(
      HOSPITAL,
      alert(['Pharmacy'], { name: 'code', timeout: 60, on_timeout: 'Stand down' }),
    ).taskId;
    await advanceToSecond(60);
    expect(playTimes(engine, OMAR, queued)).toEqual([]);
    expect(lines(engine, OMAR, queued)).toEqual([`speak:on_timeout(Stand down)@${at(60)}`]);
  });
});

describe('acknowledgement', () => {
  it('emits acknowledged with the user name, stops and speaks on_ack on that device only; the others keep repeating', async () => {
    const { engine, at, advanceToSecond } = setup();
    const { taskId } = engine.createAlert(HOSPITAL, alert(['Nurses'], { on_ack: 'Thank you' }));
    await advanceToSecond(40);

    expect(engine.tap(BEN)).toEqual({ result: 'acknowledged', taskId });

    const acked = engine.events(HOSPITAL).at(-1)!;
    expect(acked.content).toEqual({ type: 'acknowledged', device: 'Ben Okafor' });
    expect(acked.timestamp).toBe(at(40));
    expect(lines(engine, BEN)).toEqual([
      `play@${at(0)}`,
      `play@${at(30)}`,
      `stop:acknowledged@${at(40)}`,
      `speak:on_ack(Thank you)@${at(40)}`,
    ]);
    for (const device of [ADA, LENA]) {
      expect(entries(engine, device, 'stop')).toEqual([]);
      expect(entries(engine, device, 'speak')).toEqual([]);
    }

    await advanceToSecond(120);
    expect(playTimes(engine, BEN)).toEqual([at(0), at(30)]);
    expect(playTimes(engine, ADA)).toEqual(every30s(at, 5));
    expect(playTimes(engine, LENA)).toEqual(every30s(at, 5));
    expect(engine.task(taskId)).toMatchObject({ state: 'alerting', acknowledgements: 1 });
  });

  it('counts a duplicate acknowledgement once', () => {
    const { engine } = setup();
    const { taskId } = engine.createAlert(HOSPITAL, alert(['Nurses']));

    expect(engine.acknowledge(ADA, taskId).result).toBe('acknowledged');
    expect(engine.acknowledge(ADA, taskId)).toEqual({ result: 'duplicate', taskId });

    expect(eventTypes(engine)).toEqual(['start', 'acknowledged']);
    expect(engine.task(taskId)?.acknowledgements).toBe(1);
    expect(entries(engine, ADA, 'stop')).toHaveLength(1);
    // The acknowledged alert is no longer pending on the device.
    expect(engine.tap(ADA)).toEqual({ result: 'nothing_pending' });
  });

  it('answers ended to an acknowledgement after the alert ended, with no event', async () => {
    const { engine, advanceToSecond } = setup();
    const { taskId } = engine.createAlert(HOSPITAL, alert(['Nurses']));
    await advanceToSecond(300);
    const before = engine.events(HOSPITAL);

    expect(engine.acknowledge(ADA, taskId)).toEqual({ result: 'ended', taskId });
    expect(engine.tap(ADA)).toEqual({ result: 'nothing_pending' });

    expect(engine.events(HOSPITAL)).toEqual(before);
    expect(engine.task(taskId)?.acknowledgements).toBe(0);
  });

  it('ends normally once every device acknowledged (default quorum), without timed_out', async () => {
    const { engine, clock, at, advanceToSecond } = setup();
    const { taskId } = engine.createAlert(HOSPITAL, alert(['Pharmacy']));
    await advanceToSecond(5);
    engine.tap(LENA);
    expect(engine.task(taskId)?.state).toBe('alerting');
    await advanceToSecond(50);
    engine.tap(OMAR);

    expect(engine.events(HOSPITAL).map((e) => [e.content, e.timestamp])).toEqual([
      [{ type: 'start' }, at(0)],
      [{ type: 'acknowledged', device: 'Lena Ortiz' }, at(5)],
      [{ type: 'acknowledged', device: 'Omar Haddad' }, at(50)],
      [{ type: 'end', status: 'normal' }, at(50)],
    ]);
    expect(engine.task(taskId)).toMatchObject({ state: 'ended', outcome: 'quorum', quorum: 2 });
    expect(clock.state.pendingTimers).toBe(0);

    await advanceToSecond(600);
    expect(eventTypes(engine)).toEqual(['start', 'acknowledged', 'acknowledged', 'end']);
    expect(playTimes(engine, OMAR)).toEqual([at(0), at(30)]);
  });

  it('at a given quorum ends, speaks on_quorum only on devices that had not acknowledged, and plays no more', async () => {
    const { engine, clock, at, advanceToSecond } = setup();
    const { taskId } = engine.createAlert(
      HOSPITAL,
      alert(['Nurses', 'Pharmacy'], { quorum: 2, on_quorum: 'Covered, stand down' }),
    );
    await advanceToSecond(35);
    engine.tap(ADA);
    await advanceToSecond(40);
    engine.tap(BEN);

    expect(eventTypes(engine)).toEqual(['start', 'acknowledged', 'acknowledged', 'end']);
    expect(engine.events(HOSPITAL).at(-1)?.content).toEqual({ type: 'end', status: 'normal' });
    expect(engine.task(taskId)).toMatchObject({ state: 'ended', outcome: 'quorum' });
    for (const device of [LENA, OMAR]) {
      expect(lines(engine, device).slice(-2)).toEqual([
        `stop:quorum@${at(40)}`,
        `speak:on_quorum(Covered, stand down)@${at(40)}`,
      ]);
    }
    for (const device of [ADA, BEN]) expect(speeches(engine, device, 'on_quorum')).toEqual([]);

    await advanceToSecond(600);
    for (const device of [LENA, OMAR]) expect(playTimes(engine, device)).toEqual([at(0), at(30)]);
    expect(eventTypes(engine)).toHaveLength(4);
    expect(clock.state.pendingTimers).toBe(0);
  });
});

describe('cancelling an alert', () => {
  it('stops the devices still playing and emits end with status cancelled by default', async () => {
    const { engine, clock, at, advanceToSecond } = setup();
    const { taskId } = engine.createAlert(
      HOSPITAL,
      alert(['Nurses', 'Pharmacy'], { on_timeout: 'late', on_quorum: 'done' }),
    );
    await advanceToSecond(20);
    engine.tap(ADA);
    await advanceToSecond(40);

    engine.cancelAlert(HOSPITAL, taskId);

    for (const device of [BEN, LENA, OMAR]) {
      expect(lines(engine, device).at(-1)).toBe(`stop:cancelled@${at(40)}`);
      expect(entries(engine, device, 'speak')).toEqual([]);
    }
    expect(entries(engine, ADA, 'stop').map(describeEntry)).toEqual([
      `stop:acknowledged@${at(20)}`,
    ]);
    expect(engine.events(HOSPITAL).at(-1)).toMatchObject({
      content: { type: 'end', status: 'cancelled' },
      timestamp: at(40),
    });
    expect(eventTypes(engine)).toEqual(['start', 'acknowledged', 'end']);
    expect(engine.task(taskId)).toMatchObject({ state: 'ended', outcome: 'cancelled' });

    await advanceToSecond(600);
    expect(playTimes(engine, BEN)).toEqual([at(0), at(30)]);
    expect(eventTypes(engine)).toHaveLength(3);
    expect(clock.state.pendingTimers).toBe(0);
  });

  it.each([
    ['none', ['start']],
    ['end-normal', ['start', 'end']],
    ['end-cancelled', ['start', 'end']],
  ] as const)('with cancelEvents %s emits %j', (cancelEvents, expected) => {
    const { engine } = setup({ cancelEvents });
    const { taskId } = engine.createAlert(HOSPITAL, alert(['Pharmacy']));

    engine.cancelAlert(HOSPITAL, taskId);

    expect(eventTypes(engine)).toEqual(expected);
    const status = cancelEvents === 'end-normal' ? 'normal' : 'cancelled';
    if (expected.length === 2) expect(engine.events(HOSPITAL)[1]?.content.status).toBe(status);
    expect(entries(engine, OMAR, 'stop')).toHaveLength(1);
  });

  it('refuses an unknown task and a task of another account with unknown_task', () => {
    const { engine } = setup();
    const { taskId } = engine.createAlert(HOSPITAL, alert(['Nurses']));

    expect(catchEngineError(() => engine.cancelAlert(HOSPITAL, 'no-such-task')).code).toBe(
      'unknown_task',
    );
    expect(catchEngineError(() => engine.cancelAlert(HARBOUR, taskId)).code).toBe('unknown_task');
    expect(engine.task(taskId)?.state).toBe('alerting');
    expect(eventTypes(engine)).toEqual(['start']);
  });

  it('refuses a task that has already ended with task_ended', async () => {
    const { engine, advanceToSecond } = setup();
    const { taskId } = engine.createAlert(HOSPITAL, alert(['Nurses']));
    await advanceToSecond(300);

    const error = catchEngineError(() => engine.cancelAlert(HOSPITAL, taskId));

    expect(error.code).toBe('task_ended');
    expect(eventTypes(engine)).toEqual(['start', 'timed_out', 'end']);
  });
});

describe('broadcasts', () => {
  it('play once on every device of the groups, never repeat and emit no events', async () => {
    const { engine, clock, at, advanceToSecond } = setup();

    const { taskId } = engine.broadcast(HOSPITAL, {
      notification: 'Fire drill at noon',
      groups: ['Nurses', 'Pharmacy'],
    });
    await advanceToSecond(300);

    for (const device of [ADA, BEN, LENA, OMAR]) {
      expect(engine.transcript(device)).toEqual([
        { type: 'broadcast', taskId, text: 'Fire drill at noon', at: at(0) },
      ]);
    }
    expect(engine.transcript(DESK)).toEqual([]);
    expect(engine.events(HOSPITAL)).toEqual([]);
    expect(engine.tap(ADA)).toEqual({ result: 'nothing_pending' });
    expect(clock.state.pendingTimers).toBe(0);
  });

  it('refuses an unknown group with unknown_group and plays nothing', () => {
    const { engine } = setup();
    const error = catchEngineError(() =>
      engine.broadcast(HOSPITAL, { notification: 'x', groups: ['Porters'] }),
    );
    expect(error).toMatchObject({ code: 'unknown_group', field: 'groups[0]' });
    for (const device of ALL_HOSPITAL_DEVICES) expect(engine.transcript(device)).toEqual([]);
  });
});

describe('serial and concurrent alerting by name', () => {
  it('queues a second alert of the same name until the first is acknowledged, then repeats it from then', async () => {
    const { engine, at, advanceToSecond } = setup();
    const first = engine.createAlert(HOSPITAL, alert(['Pharmacy'], { name: 'code' })).taskId;
    await advanceToSecond(5);
    const second = engine.createAlert(
      HOSPITAL,
      alert(['Pharmacy'], { name: 'code', notification: 'Spill in bay 2' }),
    ).taskId;

    expect(engine.task(second)?.devices.map((d) => d.status)).toEqual(['queued', 'queued']);
    await advanceToSecond(40);
    expect(playTimes(engine, OMAR, second)).toEqual([]);

    expect(engine.tap(OMAR)).toEqual({ result: 'acknowledged', taskId: first });
    await advanceToSecond(100);

    expect(playTimes(engine, OMAR, first)).toEqual([at(0), at(30)]);
    expect(playTimes(engine, OMAR, second)).toEqual([at(40), at(70), at(100)]);
    // Lena has not acknowledged the first alert: the second still waits on her device.
    expect(playTimes(engine, LENA, second)).toEqual([]);
    expect(playTimes(engine, LENA, first)).toEqual(every30s(at, 4));
  });

  it('refuses to acknowledge a queued alert directly', () => {
    const { engine } = setup();
    engine.createAlert(HOSPITAL, alert(['Pharmacy'], { name: 'code' }));
    const second = engine.createAlert(HOSPITAL, alert(['Pharmacy'], { name: 'code' })).taskId;

    expect(engine.acknowledge(OMAR, second)).toEqual({ result: 'not_playing', taskId: second });
    expect(eventTypes(engine)).toEqual(['start', 'start']);
  });

  it('plays alerts of different names at once, and a tap acknowledges the one played most recently', async () => {
    const { engine, at, advanceToSecond } = setup();
    const fire = engine.createAlert(HOSPITAL, alert(['Pharmacy'], { name: 'fire' })).taskId;
    await advanceToSecond(10);
    const spill = engine.createAlert(HOSPITAL, alert(['Pharmacy'], { name: 'spill' })).taskId;

    await advanceToSecond(20);
    expect(playTimes(engine, OMAR, fire)).toEqual([at(0)]);
    expect(playTimes(engine, OMAR, spill)).toEqual([at(10)]);
    expect(engine.tap(OMAR)).toEqual({ result: 'acknowledged', taskId: spill });

    await advanceToSecond(35);
    // On Lena's device the older alert (fire) repeated at 30 s, after spill played at 10 s.
    expect(engine.tap(LENA)).toEqual({ result: 'acknowledged', taskId: fire });
    await advanceToSecond(45);
    expect(engine.tap(LENA)).toEqual({ result: 'acknowledged', taskId: spill });
  });

  it('replays the alerts playing on a device that comes back in the order they were posted, whatever the order of their names (MB2)', async () => {
    // Found by the model's property tests: the engine replayed lane by lane, so an alert of
    // an older name, released later, was replayed first and lost the tap to an older alert.
    const { engine, at, advanceToSecond } = setup();
    engine.createAlert(HOSPITAL, alert(['Pharmacy'], { name: 'restock' }));
    await advanceToSecond(1);
    const spill = engine.createAlert(HOSPITAL, alert(['Pharmacy'], { name: 'spill' })).taskId;
    await advanceToSecond(2);
    const second = engine.createAlert(HOSPITAL, alert(['Pharmacy'], { name: 'restock' })).taskId;
    await advanceToSecond(30.5);
    engine.tap(OMAR); // The first restock alert, repeated at 30 s: the second one plays now.
    expect(playTimes(engine, OMAR, second)).toEqual([at(30.5)]);

    await advanceToSecond(41);
    engine.resume(OMAR);
    const replays = entries(engine, OMAR, 'play').filter((e) => e.at === at(41));
    expect(replays.map((e) => e.taskId)).toEqual([spill, second]);
    expect(engine.tap(OMAR)).toEqual({ result: 'acknowledged', taskId: second });
  });

  it('answers nothing_pending to a tap on a device with no alert', () => {
    const { engine } = setup();
    engine.createAlert(HOSPITAL, alert(['Pharmacy']));
    expect(engine.tap(ADA)).toEqual({ result: 'nothing_pending' });
    expect(eventTypes(engine)).toEqual(['start']);
  });

  it('refuses a tap on an unknown device with unknown_device', () => {
    const { engine } = setup();
    expect(catchEngineError(() => engine.tap('999999999999999')).code).toBe('unknown_device');
  });
});

describe('events', () => {
  /** An alert cancelled as it starts: two events (start, end) at one instant. */
  function momentaryAlert(engine: AlertEngine): string {
    const { taskId } = engine.createAlert(HOSPITAL, alert(['Front Desk']));
    engine.cancelAlert(HOSPITAL, taskId);
    return taskId;
  }

  /** Creates `count` momentary alerts, one per second: two events each. */
  async function momentaryAlerts(
    engine: AlertEngine,
    clock: VirtualClock,
    count: number,
  ): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      ids.push(momentaryAlert(engine));
      await clock.advanceBy(1_000);
    }
    return ids;
  }

  it('have exactly the keys of the spec, with task type, a 32-hex id and a microsecond timestamp', async () => {
    const { engine, advanceToSecond } = setup();
    const { taskId } = engine.createAlert(HOSPITAL, alert(['Pharmacy'], { name: 'ward-7' }));
    await advanceToSecond(12);
    engine.tap(LENA);
    await advanceToSecond(300);

    const events = engine.events(HOSPITAL);
    expect(events.map((e) => e.content)).toEqual([
      { type: 'start' },
      { type: 'acknowledged', device: 'Lena Ortiz' },
      { type: 'timed_out' },
      { type: 'end', status: 'normal' },
    ]);
    for (const event of events) {
      expect(Object.keys(event).sort()).toEqual([
        'category',
        'content',
        'event_id',
        'task',
        'timestamp',
      ]);
      expect(event.category).toBe('tasks');
      expect(event.task).toEqual({ id: taskId, name: 'ward-7', task_type: TASK_TYPE });
      expect(event.event_id).toMatch(/^[0-9a-f]{32}$/);
      expect(event.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    }
    expect(new Set(events.map((e) => e.event_id)).size).toBe(events.length);
    expect(taskId).toMatch(/^[A-Za-z0-9]{22}$/);
  });

  it("carry the default name 'alerts' when the alert has none", () => {
    const { engine } = setup();
    const { taskId } = engine.createAlert(HOSPITAL, alert(['Nurses']));
    expect(engine.events(HOSPITAL)[0]?.task).toEqual({
      id: taskId,
      name: 'alerts',
      task_type: TASK_TYPE,
    });
  });

  it('are kept per account', () => {
    const { engine } = setup();
    engine.createAlert(HOSPITAL, alert(['Nurses']));
    const { taskId } = engine.createAlert(HARBOUR, alert(['Dock Crew']));
    expect(engine.events(HARBOUR).map((e) => e.task.id)).toEqual([taskId]);
    expect(engine.events(HOSPITAL)).toHaveLength(1);
  });

  it('come oldest first, 100 by default and never more than 100', async () => {
    const { engine, clock, at } = setup();
    const ids = await momentaryAlerts(engine, clock, 60); // 120 events

    const events = engine.events(HOSPITAL);
    expect(events).toHaveLength(100);
    expect(events[0]).toMatchObject({ content: { type: 'start' }, timestamp: at(0) });
    expect(events[0]?.task.id).toBe(ids[0]);
    expect(events[99]?.task.id).toBe(ids[49]);
    const times = events.map((e) => e.timestamp);
    expect(times).toEqual([...times].sort());

    expect(engine.events(HOSPITAL, { limit: 500 })).toHaveLength(100);
    expect(engine.events(HOSPITAL, { limit: 5 })).toEqual(events.slice(0, 5));
  });

  it('start at the oldest time asked for', async () => {
    const { engine, clock, t0, at } = setup();
    const ids = await momentaryAlerts(engine, clock, 3);

    const events = engine.events(HOSPITAL, { oldest: toMicros(t0 + 1_000) });

    expect(events.map((e) => e.task.id)).toEqual([ids[1], ids[1], ids[2], ids[2]]);
    expect(events[0]?.timestamp).toBe(at(1));
    expect(engine.events(HOSPITAL, { oldest: toMicros(t0 + 1_001) })).toHaveLength(2);
    expect(engine.events(HOSPITAL, { oldest: toMicros(t0 + 60_000) })).toEqual([]);
  });

  it('are no longer returned once older than 7 days', async () => {
    const { engine, clock, t0 } = setup();
    momentaryAlert(engine);
    const sevenDays = 7 * 24 * 3600 * 1000;

    await clock.advanceBy(sevenDays);
    expect(engine.events(HOSPITAL)).toHaveLength(2);

    await clock.advanceBy(1);
    expect(engine.events(HOSPITAL)).toEqual([]);
    expect(engine.events(HOSPITAL, { oldest: toMicros(t0) })).toEqual([]);
  });
});

describe('determinism and reset', () => {
  /** The same actions, at the same virtual times, on any engine. */
  async function script(seed: number) {
    const { engine, advanceToSecond } = setup({ seed });
    engine.createAlert(HOSPITAL, alert(['Nurses', 'Pharmacy'], { on_ack: 'ok', name: 'a' }));
    engine.createAlert(HOSPITAL, alert(['Pharmacy'], { name: 'a', quorum: 1 }));
    engine.broadcast(HOSPITAL, { notification: 'drill', groups: ['Front Desk'] });
    await advanceToSecond(45);
    engine.tap(LENA);
    engine.tap(OMAR);
    const third = engine.createAlert(HOSPITAL, alert(['Nurses'], { name: 'b' })).taskId;
    await advanceToSecond(100);
    engine.cancelAlert(HOSPITAL, third);
    await advanceToSecond(400);
    return {
      events: engine.events(HOSPITAL),
      transcripts: ALL_HOSPITAL_DEVICES.map((d) => engine.transcript(d)),
    };
  }

  it('gives deep-equal events and transcripts for the same seed and actions', async () => {
    const first = await script(1);
    const second = await script(1);
    expect(second).toEqual(first);
    expect(first.events.length).toBeGreaterThan(5);
  });

  it('gives other ids for another seed', async () => {
    const first = await script(1);
    const other = await script(2);
    expect(other.events.map((e) => e.task.id)).not.toEqual(first.events.map((e) => e.task.id));
    expect(other.events.map((e) => e.content)).toEqual(first.events.map((e) => e.content));
  });

  it('reset() forgets tasks, events and transcripts, and stops every repeat', async () => {
    const { engine, clock, advanceToSecond } = setup();
    const firstId = engine.createAlert(HOSPITAL, alert(['Nurses', 'Pharmacy'])).taskId;
    engine.createAlert(HARBOUR, alert(['Dock Crew']));
    await advanceToSecond(45);

    engine.reset();

    expect(engine.tasks()).toEqual([]);
    expect(engine.task(firstId)).toBeUndefined();
    expect(engine.events(HOSPITAL)).toEqual([]);
    expect(engine.events(HARBOUR)).toEqual([]);
    for (const device of [...ALL_HOSPITAL_DEVICES, KAI]) {
      expect(engine.transcript(device)).toEqual([]);
    }
    expect(clock.state.pendingTimers).toBe(0);
    await advanceToSecond(600);
    expect(engine.transcript(ADA)).toEqual([]);
    expect(engine.events(HOSPITAL)).toEqual([]);
    // Ids restart with the seed.
    expect(engine.createAlert(HOSPITAL, alert(['Nurses'])).taskId).toBe(firstId);
  });
});

describe('a running clock', () => {
  it("a task's created_at and ended_at are its start and end events' timestamps, to the µs", async () => {
    // A clock that moves on 2.5 µs at every read, as the real clock does between two reads.
    const clock = new VirtualClock();
    const realNow = clock.now.bind(clock);
    let reads = 0;
    clock.now = () => realNow() + ++reads * 0.0025;
    const engine = new AlertEngine({
      clock,
      ids: new IdSource(1),
      directory: new Directory(checkFixtures(structuredClone(FIXTURES)), 'service'),
    });
    const { taskId } = engine.createAlert(HOSPITAL, alert(['Nurses'], { timeout: 30 }));
    await clock.advanceBy(30_000);
    const task = engine.task(taskId)!;
    const events = engine.events(HOSPITAL, {}).filter((e) => e.task.id === taskId);
    const stamp = (type: string) => events.find((e) => e.content.type === type)!.timestamp;
    expect(stamp('start')).toBe(task.created_at);
    expect(stamp('timed_out')).toBe(task.ended_at);
    expect(stamp('end')).toBe(task.ended_at);
  });
});
