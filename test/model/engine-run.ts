/**
 * The property tests' engine run: a schedule of model inputs on a fresh alert engine (a
 * `StubCore` on its virtual clock, taps as the service's own tap), what it recorded, and every
 * way that differs from the invariants and from the model. Shared with `npm run bench:model`.
 */
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
import { brokenInvariants, DEVICES, type SeenEvent, type SeenTask } from './schedules.ts';

const fixtures = generatedFixtures(DEVICES);
const account = fixtures.accounts[0]!;
const deviceIds = account.devices.map((d) => d.id);
const users = GENERATED_USERS.slice(0, DEVICES);

export interface EngineRun {
  events: SeenEvent[];
  tasks: SeenTask[];
  sent: Sent[][];
  deletes: number[];
}

/** Runs a schedule on a fresh engine: the service's own tap (L9), as the model's `service` taps. */
export async function runOnEngine(inputs: readonly ModelInput[]): Promise<EngineRun> {
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
export function problems(inputs: readonly ModelInput[], run: EngineRun): string[] {
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
