/**
 * Invariants over random schedules (issue 18, point 3): fast-check drives the alert engine
 * (a `StubCore` in this process, on its virtual clock) through alerts of two names, taps,
 * cancels, drops, returns and clock jumps; after each schedule the invariants of
 * `schedules.ts` must hold and the model (model/) must predict exactly the events and every
 * command the engine sent each device. A failure is shrunk and printed as a scenario file.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { predict } from '../../model/alert.model.ts';
import { serviceConfig } from '../../model/configs.ts';
import type { ModelInput, Sent } from '../../model/lifecycle.ts';
import {
  GENERATED_GROUP,
  GENERATED_TEXTS,
  GENERATED_USERS,
  generatedFixtures,
} from '../../model/to-scenario.ts';
import { EngineError } from '../../server-stub/engine/engine-error.ts';
import { StubCore } from '../../server-stub/stub-core.ts';
import {
  brokenInvariants,
  DEVICES,
  reproScenario,
  type SeenEvent,
  type SeenTask,
  schedule,
} from './schedules.ts';

/** 3,000 schedules in CI (issue 18 asks for at least 1,000); BADGE_SIM_PROPERTY_RUNS asks for more. */
const RUNS = Number(process.env.BADGE_SIM_PROPERTY_RUNS ?? 3_000);
/** A schedule to try first (a JSON file of model inputs, as a failure prints it). */
const EXAMPLE = process.env.BADGE_SIM_PROPERTY_EXAMPLE;
/**
 * Schedules that once broke a property, always tried first. This one found MB2: a badge back
 * online had its alerts replayed lane by lane, and the tap went to an older alert.
 */
const REGRESSIONS: ModelInput[][] = [
  [
    { type: 'POST', at: 0, task: 't0', name: 'x', timeout: 90 },
    { type: 'POST', at: 1000, task: 't1', name: 'y', timeout: 90 },
    { type: 'POST', at: 2000, task: 't2', name: 'x', timeout: 90 },
    { type: 'TAP', at: 30500, device: 0 },
    { type: 'DROP', at: 40000, device: 0 },
    { type: 'RETURN', at: 41000, device: 0 },
    { type: 'TAP', at: 42000, device: 0 },
    { type: 'ADVANCE', to: 200000 },
  ],
];
const fixtures = generatedFixtures(DEVICES);
const account = fixtures.accounts[0]!;
const deviceIds = account.devices.map((d) => d.id);
const users = GENERATED_USERS.slice(0, DEVICES);

interface EngineRun {
  events: SeenEvent[];
  tasks: SeenTask[];
  sent: Sent[][];
  deletes: number[];
}

/** Runs a schedule on a fresh engine: the service's own tap (L9), as the model's `service` taps. */
async function runOnEngine(inputs: readonly ModelInput[]): Promise<EngineRun> {
  const core = new StubCore({ fixtures, seed: 1 });
  const { engine, clock } = core;
  const t0 = clock.now();
  const keys = new Map<string, string>();
  const tasks: SeenTask[] = [];
  const reached = new Map<string, Set<string>>();
  const events: SeenEvent[] = [];
  const sent: Sent[][] = deviceIds.map(() => []);
  const deletes: number[] = [];
  const offline = new Set<number>();
  // The engine records a task's start inside createAlert, before it returns the task's id:
  // the first event of an id not seen yet is the alert being posted.
  let posting: string | undefined;
  const keyOf = (id: string) => {
    if (!keys.has(id) && posting !== undefined) keys.set(id, posting);
    return keys.get(id) ?? id;
  };
  engine.onEvent((_, e) => {
    const { type, device, status } = e.content as {
      type: string;
      device?: string;
      status?: string;
    };
    events.push({
      type,
      task: keyOf(e.task.id),
      at: clock.now() - t0,
      ...(device === undefined ? {} : { device }),
      ...(status === undefined ? {} : { status }),
    });
  });
  engine.onDeliver((deviceId, command) => {
    if (command.type === 'broadcast') return;
    const task = keyOf(command.taskId);
    const at = clock.now() - t0;
    if (command.type === 'play') {
      reached.get(task)?.add(deviceId);
      sent[deviceIds.indexOf(deviceId)]!.push({ at, type: 'play', task, text: command.text });
    } else if (command.type === 'stop') {
      sent[deviceIds.indexOf(deviceId)]!.push({ at, type: 'stop', task, cause: command.cause });
    } else {
      sent[deviceIds.indexOf(deviceId)]!.push({
        at,
        type: 'speak',
        task,
        text: command.text,
        cause: command.cause,
      });
    }
  });
  for (const input of inputs) {
    await clock.advanceTo(t0 + (input.type === 'ADVANCE' ? input.to : input.at));
    switch (input.type) {
      case 'POST': {
        reached.set(input.task, new Set());
        posting = input.task;
        const { taskId } = engine.createAlert(account.subscriber_id, {
          notification: GENERATED_TEXTS.notification(input.task),
          groups: [GENERATED_GROUP],
          on_ack: GENERATED_TEXTS.onAck,
          on_quorum: GENERATED_TEXTS.onQuorum,
          on_timeout: GENERATED_TEXTS.onTimeout,
          ...(input.name === undefined ? {} : { name: input.name }),
          ...(input.quorum === undefined ? {} : { quorum: input.quorum }),
          ...(input.timeout === undefined ? {} : { timeout: input.timeout }),
        });
        posting = undefined;
        keys.set(taskId, input.task);
        tasks.push({
          key: input.task,
          createdAt: input.at,
          timeoutMs: (input.timeout ?? 300) * 1000,
          quorum: input.quorum ?? DEVICES,
          reached: 0,
        });
        break;
      }
      case 'TAP':
        engine.tap(deviceIds[input.device]!);
        break;
      case 'DELETE': {
        const id = [...keys].find(([, key]) => key === input.task)![0];
        try {
          engine.cancelAlert(account.subscriber_id, id);
          deletes.push(204);
        } catch (error) {
          if (!(error instanceof EngineError) || error.code !== 'task_ended') throw error;
          deletes.push(409);
        }
        break;
      }
      case 'DROP':
        offline.add(input.device);
        break;
      case 'RETURN':
        // The gateway resumes a device that connects again (D3).
        if (offline.delete(input.device)) engine.resume(deviceIds[input.device]!);
        break;
      case 'ADVANCE':
        break;
    }
  }
  for (const task of tasks) task.reached = reached.get(task.key)!.size;
  return { events, tasks, sent, deletes };
}

/** Every way the engine's history differs from the invariants and from the model. */
function problems(inputs: readonly ModelInput[], run: EngineRun): string[] {
  const broken = brokenInvariants(run.events, run.tasks);
  const model = predict(serviceConfig(users, GENERATED_TEXTS), inputs);
  const expected = JSON.stringify(model.events);
  if (JSON.stringify(run.events) !== expected)
    broken.push(
      `events differ from the model's:\n  engine ${JSON.stringify(run.events)}\n  model  ${expected}`,
    );
  run.sent.forEach((sent, d) => {
    const mine = JSON.stringify(sent);
    const theirs = JSON.stringify(model.sent[d]);
    if (mine !== theirs)
      broken.push(
        `what ${users[d]} was sent differs from the model's:\n  engine ${mine}\n  model  ${theirs}`,
      );
  });
  if (JSON.stringify(run.deletes) !== JSON.stringify(model.deletes.map((d) => d.status)))
    broken.push(
      `DELETE answers ${run.deletes} differ from the model's ${model.deletes.map((d) => d.status)}`,
    );
  return broken;
}

describe('invariants over random schedules', () => {
  test(`${RUNS} schedules on the engine keep every invariant and agree with the model`, async () => {
    const started = performance.now();
    const result = await fc.check(
      fc.asyncProperty(schedule, async (inputs) => {
        const found = problems(inputs, await runOnEngine(inputs));
        if (found.length > 0) throw new Error(found.join('\n'));
      }),
      {
        numRuns: RUNS,
        examples: [
          ...(EXAMPLE ? [JSON.parse(readFileSync(EXAMPLE, 'utf8'))] : []),
          ...REGRESSIONS,
        ].map((e) => [e] as [ModelInput[]]),
        seed: Number(process.env.BADGE_SIM_PROPERTY_SEED ?? Date.now() % 2 ** 31),
      },
    );
    console.log(
      `badge-sim properties: ${result.numRuns} schedules on the engine in ${Math.round(performance.now() - started)} ms (seed ${result.seed})`,
    );
    if (result.failed) {
      const inputs = result.counterexample![0];
      const why = String(
        (result.errorInstance as Error | undefined)?.message ?? result.errorInstance,
      );
      console.error(
        `badge-sim properties: a schedule broke a property (seed ${result.seed}, path ${result.counterexamplePath}), shrunk to:\n${JSON.stringify(inputs)}\n${why}\n--- as a scenario file ---\n${reproScenario(inputs, why.split('\n')[0]!)}`,
      );
    }
    expect(result.failed, 'see the scenario printed above').toBe(false);
  }, 120_000);
});
