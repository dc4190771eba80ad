/**
 * What the engine keeps, and for how long (docs/decisions.md, "Hardening: memory"): a reset
 * leaves nothing behind; ended tasks, transcript lines and events follow the 7-day retention;
 * a transcript holds at most TRANSCRIPT_CAP lines (its share of 100,000 over the devices);
 * ended tasks past their caps go early, counted. All on the virtual clock.
 */
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../clock/clock.ts';
import { checkFixtures } from '../../fixtures/load-fixtures.ts';
import { IdSource } from '../../protocol/ids.ts';
import { AlertEngine } from './alert-engine.ts';
import { Directory } from './directory.ts';
import { EngineError } from './engine-error.ts';

const HOSPITAL = '100001';
const ADA = '350000000000001';
const BEN = '350000000000002';
const LENA = '350000000000003';

const FIXTURES = {
  accounts: [
    {
      subscriber_id: HOSPITAL,
      api_keys: ['test-key-hospital-0001'],
      groups: [
        { id: '5001', name: 'Nurses', members: [ADA, BEN, LENA] },
        { id: '5002', name: 'Ada', members: [ADA] },
      ],
      devices: [
        { id: ADA, user: 'Ada Mensah' },
        { id: BEN, user: 'Ben Okafor' },
        { id: LENA, user: 'Lena Ortiz' },
      ],
    },
  ],
};

const SEVEN_DAYS = 7 * 24 * 3600 * 1000;
/** The documented cap of a device's transcript (H2): `TRANSCRIPT_CAP`. */
const TRANSCRIPT_CAP = 1_000;

function setup() {
  const clock = new VirtualClock();
  const engine = new AlertEngine({
    clock,
    ids: new IdSource(1),
    directory: new Directory(checkFixtures(structuredClone(FIXTURES)), 'service'),
  });
  return { clock, engine, t0: clock.now() };
}

const EMPTY = {
  tasks: 0,
  alerting: 0,
  ended: 0,
  laneDevices: 0,
  lanes: 0,
  transcriptDevices: 0,
  transcriptEntries: 0,
  eventAccounts: 0,
  events: 0,
};

describe('reset', () => {
  it('after many alerts, reset leaves no task, lane, transcript, event or timer', async () => {
    const { clock, engine } = setup();
    for (let i = 0; i < 300; i++) {
      // Alerts of several names, some acknowledged, some timed out, some cancelled, some on.
      const { taskId } = engine.createAlert(HOSPITAL, {
        notification: `alert ${i}`,
        groups: ['Nurses'],
        name: `n${i % 3}`,
        timeout: 60 + (i % 5) * 30,
      });
      if (i % 4 === 0) engine.cancelAlert(HOSPITAL, taskId);
      engine.tap(ADA);
      if (i % 10 === 0) await clock.advanceBy(45_000);
    }
    const before = engine.stats();
    expect(before.tasks).toBe(300);
    expect(before.alerting).toBeGreaterThan(0);
    expect(before.transcriptEntries).toBeGreaterThan(1000);
    expect(before.events).toBeGreaterThan(600);
    expect(clock.state.pendingTimers).toBeGreaterThan(0);

    engine.reset();
    clock.reset();

    expect(engine.stats()).toEqual(EMPTY);
    expect(clock.state.pendingTimers).toBe(0);
    expect(engine.tasks()).toEqual([]);
  });
});

describe('retention of tasks (7 days after they end)', () => {
  it('forgets a task that ended more than 7 days ago: not listed, unknown to get, cancel and acknowledge', async () => {
    const { clock, engine } = setup();
    const { taskId } = engine.createAlert(HOSPITAL, {
      notification: 'x',
      groups: ['Nurses'],
      timeout: 60,
    });
    const alerting = engine.createAlert(HOSPITAL, {
      notification: 'long',
      groups: ['Ada'],
      name: 'long',
      timeout: 7 * 24 * 3600,
    }).taskId;
    await clock.advanceBy(60_000); // the first ends (timed out) now
    expect(engine.task(taskId)?.state).toBe('ended');

    await clock.advanceBy(SEVEN_DAYS);
    // Exactly 7 days after it ended: still kept.
    expect(engine.task(taskId)?.state).toBe('ended');
    expect(() => engine.cancelAlert(HOSPITAL, taskId)).toThrow(/already ended/);

    await clock.advanceBy(1);
    expect(engine.task(taskId)).toBeUndefined();
    expect(engine.tasks().map((t) => t.task_id)).not.toContain(taskId);
    const cancel = catchEngineError(() => engine.cancelAlert(HOSPITAL, taskId));
    expect(cancel.code).toBe('unknown_task');
    const ack = catchEngineError(() => engine.acknowledge(ADA, taskId));
    expect(ack.code).toBe('unknown_task');
    // The 7-day alert timed out at 7 days, within its own retention: still known.
    expect(engine.task(alerting)).toMatchObject({ state: 'ended', outcome: 'timed_out' });
    expect(engine.stats()).toMatchObject({ tasks: 1, alerting: 0, ended: 1 });
  });

  it('keeps memory flat over weeks of alerts: ended tasks, events and transcripts of the last 7 days only', async () => {
    const { clock, engine } = setup();
    const hour = 3600 * 1000;
    const sizes: number[] = [];
    // 3 weeks, an alert every hour; nobody reads events (pruned on append all the same).
    for (let h = 0; h < 21 * 24; h++) {
      engine.createAlert(HOSPITAL, { notification: `h${h}`, groups: ['Nurses'], timeout: 60 });
      await clock.advanceBy(hour);
      if (h % 24 === 23) sizes.push(engine.stats().tasks);
    }
    const stats = engine.stats();
    // 7 days of hourly alerts: 168 (plus the one that ended exactly at the cut-off).
    expect(stats.tasks).toBeLessThanOrEqual(7 * 24 + 1);
    expect(stats.events).toBeLessThanOrEqual((7 * 24 + 1) * 4);
    expect(stats.transcriptEntries).toBeLessThanOrEqual((7 * 24 + 1) * 3 * 4);
    // Flat from the eighth day on.
    expect(new Set(sizes.slice(8)).size).toBe(1);
  });
});

describe('transcripts', () => {
  it('keep only the last 7 days of a device', async () => {
    const { clock, engine, t0 } = setup();
    engine.broadcast(HOSPITAL, { notification: 'old', groups: ['Ada'] });
    await clock.advanceBy(SEVEN_DAYS - 1000);
    engine.broadcast(HOSPITAL, { notification: 'new', groups: ['Ada'] });
    expect(engine.transcript(ADA).map((e) => e.type === 'broadcast' && e.text)).toEqual([
      'old',
      'new',
    ]);
    await clock.advanceBy(1001);
    // Read without a write in between: the read itself drops what expired.
    expect(engine.transcript(ADA)).toEqual([
      expect.objectContaining({ type: 'broadcast', text: 'new', at: iso(t0 + SEVEN_DAYS - 1000) }),
    ]);
    expect(engine.stats().transcriptEntries).toBe(1);
  });

  it(`keep at most ${TRANSCRIPT_CAP} lines a device, the oldest dropped first`, () => {
    const { engine } = setup();
    for (let i = 0; i < TRANSCRIPT_CAP + 250; i++) {
      engine.broadcast(HOSPITAL, { notification: `b${i}`, groups: ['Ada'] });
    }
    const transcript = engine.transcript(ADA);
    expect(transcript).toHaveLength(TRANSCRIPT_CAP);
    expect(transcript[0]).toMatchObject({ type: 'broadcast', text: 'b250' });
    expect(transcript.at(-1)).toMatchObject({
      type: 'broadcast',
      text: `b${TRANSCRIPT_CAP + 249}`,
    });
    expect(engine.stats().transcriptEntries).toBe(TRANSCRIPT_CAP);
    expect(engine.kept().transcriptLines).toEqual({ cap: TRANSCRIPT_CAP, dropped: 250 });
  });

  it('share 100,000 lines between the devices of the fixtures: 1,000 devices keep 100 each', () => {
    const devices = Array.from({ length: 1_000 }, (_, i) => ({
      id: String(350_000_000_100_000 + i),
      user: `User ${i}`,
    }));
    const fixtures = {
      accounts: [
        {
          subscriber_id: HOSPITAL,
          api_keys: ['test-key-hospital-0001'],
          groups: [{ id: '5001', name: 'First', members: [devices[0]!.id] }],
          devices,
        },
      ],
    };
    const engine = new AlertEngine({
      clock: new VirtualClock(),
      ids: new IdSource(1),
      directory: new Directory(checkFixtures(fixtures), 'service'),
    });
    for (let i = 0; i < 130; i++)
      engine.broadcast(HOSPITAL, { notification: `b${i}`, groups: ['First'] });
    const transcript = engine.transcript(devices[0]!.id);
    expect(transcript).toHaveLength(100);
    expect(transcript[0]).toMatchObject({ text: 'b30' });
    expect(engine.kept().transcriptLines).toEqual({ cap: 100, dropped: 30 });
    // Other fixtures, another share: 3 devices keep the full cap again.
    engine.reset(new Directory(checkFixtures(structuredClone(FIXTURES)), 'service'));
    expect(engine.kept().transcriptLines).toEqual({ cap: TRANSCRIPT_CAP, dropped: 0 });
  });
});

describe('ended tasks past their caps (H10)', () => {
  it('are forgotten early when they hold more than 100,000 recipients, counted by kept()', async () => {
    const { clock, engine } = setup();
    // 3 recipients an alert: 33,333 ended alerts would fit, but at most 10,000 tasks are kept.
    const first = engine.createAlert(HOSPITAL, {
      notification: 'first',
      groups: ['Nurses'],
      timeout: 60,
    }).taskId;
    for (let i = 0; i < 10_010; i++) {
      const { taskId } = engine.createAlert(HOSPITAL, {
        notification: `a${i}`,
        groups: ['Nurses'],
        timeout: 60,
      });
      engine.cancelAlert(HOSPITAL, taskId);
    }
    await clock.advanceBy(60_000); // the first times out: the newest ended
    expect(engine.task(first)).toMatchObject({ state: 'ended', outcome: 'timed_out' });
    expect(engine.kept().endedTasks).toEqual({
      cap: 10_000,
      recipientsCap: 100_000,
      kept: 10_000,
      dropped: 11,
    });
    expect(engine.stats()).toMatchObject({ tasks: 10_000, alerting: 0, ended: 10_000 });
  });
});

function iso(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 23)}000Z`;
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

describe('an ended task is kept compactly (H1)', () => {
  it('shows the same devices after it ends, and still tells a recipient from a stranger', async () => {
    const { clock, engine } = setup();
    const { taskId } = engine.createAlert(HOSPITAL, {
      notification: 'Only Ada and Ben',
      groups: ['Ada', 'Nurses'],
      quorum: 1,
      timeout: 60,
    });
    await clock.advanceBy(31_000); // a repeat: plays 2 on every device
    const alerting = engine.task(taskId)!.devices;
    expect(alerting.map((d) => [d.device_id, d.status, d.plays])).toEqual([
      [ADA, 'playing', 2],
      [BEN, 'playing', 2],
      [LENA, 'playing', 2],
    ]);
    expect(engine.acknowledge(BEN, taskId)).toEqual({ result: 'acknowledged', taskId });
    const ended = engine.task(taskId)!;
    expect(ended.state).toBe('ended');
    expect(ended.devices.map((d) => [d.device_id, d.user, d.status, d.plays])).toEqual([
      [ADA, 'Ada Mensah', 'stopped', 2],
      [BEN, 'Ben Okafor', 'acknowledged', 2],
      [LENA, 'Lena Ortiz', 'stopped', 2],
    ]);
    expect(engine.acknowledge(ADA, taskId)).toEqual({ result: 'ended', taskId });
    expect(engine.acknowledge(LENA, taskId)).toEqual({ result: 'ended', taskId });
    const stranger = (() => {
      try {
        engine.acknowledge('350000000000009', taskId);
      } catch (error) {
        return error;
      }
    })();
    expect(stranger).toBeInstanceOf(EngineError);
    expect((stranger as EngineError).code).toBe('unknown_device');
  });
});
