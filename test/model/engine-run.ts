/**
 * The property tests' engine run: a schedule of model inputs on a fresh alert engine (a
 * `StubCore` on its virtual clock, taps as the service's own tap), what it recorded, and every
 * way that differs from the invariants and from the model. Shared with `npm run bench:model`.
 */
import { predict } from '../../model/alert.model.ts';
import { serviceConfig } from '../../model/configs.ts';
import { DEFAULT_TIMEOUT_S, type ModelInput, type Sent } from '../../model/lifecycle-state.ts';
import type { AlertRequest } from '../../protocol/service-api.schema.ts';
import {
  GENERATED_GROUP,
  GENERATED_TEXTS,
  GENERATED_USERS,
  generatedFixtures,
} from '../../scenarios/format/from-model.ts';
import type { AlertEngine } from '../../server-stub/engine/alert-engine.ts';
import { EngineError } from '../../server-stub/engine/engine-error.ts';
import { StubCore } from '../../server-stub/stub-core.ts';
import { brokenInvariants, DEVICES, type SeenEvent, type SeenTask } from './schedules.ts';

export const fixtures = generatedFixtures(DEVICES);
const account = fixtures.accounts[0]!;
export const SUBSCRIBER = account.subscriber_id;
export const deviceIds = account.devices.map((d) => d.id);
const users = GENERATED_USERS.slice(0, DEVICES);

export interface EngineRun {
  events: SeenEvent[];
  tasks: SeenTask[];
  sent: Sent[][];
  deletes: number[];
  /** What each tap did (the engine's answer), and the devices going off and on the network. */
  taps: { device: number; at: number; result: string; task?: string }[];
  links: { device: number; at: number; online: boolean }[];
}

/**
 * What an engine does during a run, by the schedule's task keys and in ms from `t0`: its
 * analytic events and every command it sends each device.
 */
export class EngineRecorder {
  readonly events: SeenEvent[] = [];
  readonly sent: Sent[][] = deviceIds.map(() => []);
  readonly tasks: SeenTask[] = [];
  readonly #keys = new Map<string, string>();
  /** The engine records a task's start inside createAlert, before it returns the id. */
  #posting: string | undefined;

  constructor(engine: AlertEngine, now: () => number) {
    engine.onEvent((_, e) => {
      const { type, device, status } = e.content as {
        type: string;
        device?: string;
        status?: string;
      };
      this.events.push({
        type,
        task: this.keyOf(e.task.id),
        at: now(),
        ...(device === undefined ? {} : { device }),
        ...(status === undefined ? {} : { status }),
      });
    });
    engine.onDeliver((deviceId, command) => {
      if (command.type === 'broadcast') return;
      const task = this.keyOf(command.taskId);
      const line: Sent =
        command.type === 'play'
          ? { at: now(), type: 'play', task, text: command.text }
          : command.type === 'stop'
            ? { at: now(), type: 'stop', task, cause: command.cause }
            : { at: now(), type: 'speak', task, text: command.text, cause: command.cause };
      this.sent[deviceIds.indexOf(deviceId)]!.push(line);
    });
  }

  /** The task key of an engine id: the first id seen while posting is the alert posted. */
  keyOf(id: string): string {
    if (!this.#keys.has(id) && this.#posting !== undefined) this.#keys.set(id, this.#posting);
    return this.#keys.get(id) ?? id;
  }

  idOf(key: string): string {
    return [...this.#keys].find(([, k]) => k === key)![0];
  }

  /** Posts an alert of the schedule through `post`, keeping its key and what it asked for. */
  async post(
    input: Extract<ModelInput, { type: 'POST' }>,
    post: (request: AlertRequest) => Promise<string> | string,
  ): Promise<void> {
    this.#posting = input.task;
    const id = await post(alertRequest(input));
    this.#posting = undefined;
    this.#keys.set(id, input.task);
    this.tasks.push({
      key: input.task,
      createdAt: input.at,
      timeoutMs: (input.timeout ?? DEFAULT_TIMEOUT_S) * 1000,
      quorum: input.quorum ?? DEVICES,
      reached: 0,
    });
  }

  /** Each task's count of devices it was sent a play. */
  countReached(): void {
    for (const task of this.tasks)
      task.reached = this.sent.filter((lines) =>
        lines.some((l) => l.type === 'play' && l.task === task.key),
      ).length;
  }
}

/** The POST alerts body of a schedule's alert, with every speech of the generated texts. */
function alertRequest(input: Extract<ModelInput, { type: 'POST' }>): AlertRequest {
  return {
    notification: GENERATED_TEXTS.notification(input.task),
    groups: [GENERATED_GROUP],
    on_ack: GENERATED_TEXTS.onAck,
    on_quorum: GENERATED_TEXTS.onQuorum,
    on_timeout: GENERATED_TEXTS.onTimeout,
    ...(input.name === undefined ? {} : { name: input.name }),
    ...(input.quorum === undefined ? {} : { quorum: input.quorum }),
    ...(input.timeout === undefined ? {} : { timeout: input.timeout }),
  };
}

/** Runs a schedule on a fresh engine: the service's own tap (L9), as the model's `service` taps. */
export async function runOnEngine(inputs: readonly ModelInput[]): Promise<EngineRun> {
  const { engine, clock } = new StubCore({ fixtures, seed: 1 });
  const t0 = clock.now();
  const run = new EngineRecorder(engine, () => clock.now() - t0);
  const deletes: number[] = [];
  const taps: EngineRun['taps'] = [];
  const links: EngineRun['links'] = [];
  const offline = new Set<number>();
  for (const input of inputs) {
    await clock.advanceTo(t0 + (input.type === 'ADVANCE' ? input.to : input.at));
    switch (input.type) {
      case 'POST':
        await run.post(input, (request) => engine.createAlert(SUBSCRIBER, request).taskId);
        break;
      case 'TAP': {
        // A tap naming its alert is a badge's button frame (the gateway's acknowledge).
        const device = deviceIds[input.device]!;
        const outcome =
          input.task === undefined
            ? engine.tap(device)
            : engine.acknowledge(device, run.idOf(input.task));
        taps.push({
          device: input.device,
          at: input.at,
          result: outcome.result,
          ...('taskId' in outcome ? { task: run.keyOf(outcome.taskId) } : {}),
        });
        break;
      }
      case 'DELETE':
        deletes.push(cancel(engine, run.idOf(input.task)));
        break;
      case 'DROP':
        if (!offline.has(input.device))
          links.push({ device: input.device, at: input.at, online: false });
        offline.add(input.device);
        break;
      case 'RETURN':
        // The gateway resumes a device that connects again (D3).
        if (offline.delete(input.device)) {
          links.push({ device: input.device, at: input.at, online: true });
          engine.resume(deviceIds[input.device]!);
        }
        break;
      case 'ADVANCE':
        break;
    }
  }
  run.countReached();
  return { events: run.events, tasks: run.tasks, sent: run.sent, deletes, taps, links };
}

/** DELETE's answer: 204, or 409 for a task that has ended. */
function cancel(engine: AlertEngine, taskId: string): number {
  try {
    engine.cancelAlert(SUBSCRIBER, taskId);
    return 204;
  } catch (error) {
    if (!(error instanceof EngineError) || error.code !== 'task_ended') throw error;
    return 409;
  }
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
