/**
 * Decision D14: in real and scaled time the engine reaches an alert's devices after the POST has
 * returned, FAN_OUT_CHUNK a turn; on the virtual clock at once. What the wearer hears is the
 * same either way: same-name alerts still queue in the order they were posted, an alert that
 * ends during its fan-out reaches no one more, and a reset forgets what was still to reach.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../clock/clock.ts';
import { generateFixtures } from '../../fixtures/generate-fixtures.ts';
import { checkFixtures } from '../../fixtures/load-fixtures.ts';
import { IdSource } from '../../protocol/ids.ts';
import { AlertEngine } from './alert-engine.ts';
import { Directory } from './directory.ts';
import { FAN_OUT_CHUNK } from './fan-out.ts';

const DEVICES = FAN_OUT_CHUNK * 2 + 100;

function setup(defer: boolean) {
  const fixtures = checkFixtures(generateFixtures({ seed: 5, devicesPerAccount: DEVICES }));
  const account = fixtures.accounts[0]!;
  const clock = new VirtualClock();
  const engine = new AlertEngine({
    clock,
    ids: new IdSource(1),
    directory: new Directory(fixtures, 'service'),
    deferFanOut: () => defer,
  });
  const groups = account.groups.map((g) => g.name);
  const devices = account.devices.map((d) => d.id);
  const plays = (deviceId: string) =>
    engine
      .transcript(deviceId)
      .filter((e) => e.type === 'play')
      .map((e) => e.taskId);
  const reached = () => devices.filter((d) => engine.transcript(d).length > 0).length;
  return { engine, clock, subscriberId: account.subscriber_id, groups, devices, plays, reached };
}

/** Lets the engine's chunks run (one turn each) until nothing is left to reach. */
async function untilReached(engine: AlertEngine): Promise<number> {
  let turns = 0;
  while (engine.fanOutPending > 0 && turns < 100) {
    await nextTurn();
    turns++;
  }
  return turns;
}

describe('fan-out after the answer (D14)', () => {
  it(`real time: an alert to ${DEVICES} devices returns before any is reached, then reaches them all, ${FAN_OUT_CHUNK} a turn`, async () => {
    const { engine, subscriberId, groups, devices, plays, reached } = setup(true);
    const { taskId } = engine.createAlert(subscriberId, { notification: 'Evacuate', groups });
    // The task and its start event exist as the POST answers.
    expect(engine.task(taskId)?.state).toBe('alerting');
    expect(engine.events(subscriberId).map((e) => e.content.type)).toEqual(['start']);
    expect(reached()).toBe(0);
    expect(engine.fanOutPending).toBe(DEVICES);
    const turns = await untilReached(engine);
    expect(turns).toBe(Math.ceil(DEVICES / FAN_OUT_CHUNK));
    expect(reached()).toBe(DEVICES);
    for (const d of devices) expect(plays(d)).toEqual([taskId]);
  });

  it('a small alert is reached before the call returns, as on the virtual clock', () => {
    const { engine, subscriberId, reached } = setup(true);
    const small = engine.directory
      .groups(subscriberId)
      .find((g) => g.members.length <= FAN_OUT_CHUNK)!;
    const { taskId } = engine.createAlert(subscriberId, {
      notification: 'One ward',
      groups: [small.name],
    });
    expect(engine.fanOutPending).toBe(0);
    expect(reached()).toBe(small.members.length);
    expect(engine.task(taskId)?.devices.every((d) => d.status === 'playing')).toBe(true);
  });

  it('the virtual clock reaches every device before the call returns', () => {
    const { engine, subscriberId, groups, reached } = setup(false);
    engine.createAlert(subscriberId, { notification: 'Evacuate', groups });
    expect(engine.fanOutPending).toBe(0);
    expect(reached()).toBe(DEVICES);
  });

  it('two alerts of one name posted back to back: every device plays the first and queues the second', async () => {
    const { engine, subscriberId, groups, devices, plays } = setup(true);
    const first = engine.createAlert(subscriberId, { notification: 'First', groups }).taskId;
    const second = engine.createAlert(subscriberId, { notification: 'Second', groups }).taskId;
    await untilReached(engine);
    for (const d of devices) expect(plays(d)).toEqual([first]);
    const statuses = new Set(engine.task(second)!.devices.map((d) => d.status));
    expect([...statuses]).toEqual(['queued']);
  });

  it('an alert cancelled during its fan-out reaches no one more, and its cancel stops those it reached', async () => {
    const { engine, subscriberId, groups, devices, plays } = setup(true);
    const { taskId } = engine.createAlert(subscriberId, { notification: 'Oops', groups });
    await nextTurn(); // one chunk reached
    engine.cancelAlert(subscriberId, taskId);
    await untilReached(engine);
    const played = devices.filter((d) => plays(d).length > 0);
    expect(played).toHaveLength(FAN_OUT_CHUNK);
    for (const d of played)
      expect(engine.transcript(d).map((e) => e.type)).toEqual(['play', 'stop']);
    expect(engine.fanOutPending).toBe(0);
  });

  it('an alert that meets its quorum during its fan-out: a device not reached yet hears on_quorum, never the alert (as where it was queued, L1a)', async () => {
    const { engine, subscriberId, groups, devices } = setup(true);
    const { taskId } = engine.createAlert(subscriberId, {
      notification: 'Spill',
      groups,
      quorum: 1,
      on_quorum: 'Handled',
    });
    await nextTurn(); // the first chunk is reached
    expect(engine.tap(devices[0]!).result).toBe('acknowledged');
    await untilReached(engine);
    const last = devices.at(-1)!;
    expect(engine.transcript(last).map((e) => [e.type, e.taskId])).toEqual([['speak', taskId]]);
    expect(engine.task(taskId)!.devices.at(-1)).toMatchObject({ status: 'stopped', plays: 0 });
  });

  it('a reset forgets what was still to reach', async () => {
    const { engine, subscriberId, groups, reached } = setup(true);
    engine.createAlert(subscriberId, { notification: 'Evacuate', groups });
    engine.reset();
    expect(engine.fanOutPending).toBe(0);
    await nextTurn();
    await nextTurn();
    expect(reached()).toBe(0);
  });

  it('drainFanOut reaches everything still waiting at once (the clock became virtual)', () => {
    const { engine, subscriberId, groups, reached } = setup(true);
    engine.createAlert(subscriberId, { notification: 'Evacuate', groups });
    engine.drainFanOut();
    expect(engine.fanOutPending).toBe(0);
    expect(reached()).toBe(DEVICES);
  });
});

describe('the fan-out queue itself', () => {
  it('a reach that throws is reported and the devices after it are still reached', async () => {
    const { FanOut } = await import('./fan-out.ts');
    const fanOut = new FanOut();
    const reached: number[] = [];
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarning);
    try {
      const items = Array.from({ length: FAN_OUT_CHUNK + 10 }, (_, i) => i);
      fanOut.add(items, (i) => {
        if (i === 3) throw new Error('listener bug');
        reached.push(i);
      });
      while (fanOut.pending > 0) await nextTurn();
      await nextTurn();
    } finally {
      process.off('warning', onWarning);
    }
    expect(reached).toHaveLength(FAN_OUT_CHUNK + 9);
    expect(warnings).toContain('listener bug');
  });
});
