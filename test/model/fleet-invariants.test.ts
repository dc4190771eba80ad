/**
 * Invariants over random schedules through the whole stub (issue 18, point 3, the smaller
 * number): a stub in this process, three virtual badges over real WebSockets that tap, drop
 * and come back, alerts and cancels over HTTP. After each schedule: the invariants of
 * `schedules.ts`; the model through badges predicts the events, what each badge heard (to the
 * ms) and its final state; every alert a badge heard was stopped or ended on it; and what the
 * stub recorded sending each badge is, in order, what the badge heard.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { ServiceClient, ServiceError } from '../../client/service-client.ts';
import { predict } from '../../model/alert.model.ts';
import type { ModelInput } from '../../model/lifecycle.ts';
import {
  GENERATED_GROUP,
  GENERATED_TEXTS,
  generatedConfig,
  generatedFixtures,
} from '../../model/to-scenario.ts';
import { startStub } from '../../server-stub/start-stub.ts';
import { startFleet } from '../../simulator/fleet.ts';
import {
  brokenInvariants,
  DEVICES,
  reproScenario,
  type SeenEvent,
  type SeenTask,
  schedule,
} from './schedules.ts';

/** Fewer than on the engine: each schedule starts a stub and connects three badges. */
const RUNS = Number(process.env.BADGE_SIM_FLEET_PROPERTY_RUNS ?? 100);
const fixtures = generatedFixtures(DEVICES);
const account = fixtures.accounts[0]!;
const deviceIds = account.devices.map((d) => d.id);
const config = generatedConfig(DEVICES);
/** How long a drop or a return may take to reach the stub (real time: a transport guard). */
const SEEN_WITHIN_MS = 2_000;

interface Line {
  kind: string;
  task: string;
  text: string;
  at: number;
}

interface FleetRun {
  events: SeenEvent[];
  tasks: SeenTask[];
  /** By device: what the stub sent (plays and speech), and what the badge heard. */
  sent: Line[][];
  heard: Line[][];
  states: string[];
  openAtEnd: string[][];
}

async function runOnFleet(inputs: readonly ModelInput[]): Promise<FleetRun> {
  await using stub = await startStub({ fixtures, seed: 1 });
  const fleet = await startFleet({ stub, devices: deviceIds, seed: 1 });
  try {
    await fleet.waitUntilConnected();
    const { engine, clock } = stub.core;
    const t0 = clock.now();
    const keys = new Map<string, string>();
    let posting: string | undefined;
    const keyOf = (id: string) => {
      if (!keys.has(id) && posting !== undefined) keys.set(id, posting);
      return keys.get(id) ?? id;
    };
    const events: SeenEvent[] = [];
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
    const tasks: SeenTask[] = [];
    const client = new ServiceClient({
      baseUrl: stub.url,
      subscriberId: account.subscriber_id,
      apiKey: account.api_keys[0]!,
    });
    for (const input of inputs) {
      const by = t0 + (input.type === 'ADVANCE' ? input.to : input.at) - clock.now();
      if (by > 0) await fleet.advanceBy(by);
      await drive(input);
      await fleet.settled();
    }

    async function drive(input: ModelInput): Promise<void> {
      switch (input.type) {
        case 'POST': {
          posting = input.task;
          const { task_id } = await client.alert({
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
          keys.set(task_id, input.task);
          tasks.push({
            key: input.task,
            createdAt: input.at,
            timeoutMs: (input.timeout ?? 300) * 1000,
            quorum: input.quorum ?? DEVICES,
            reached: 0,
          });
          return;
        }
        case 'TAP':
          fleet.badge(deviceIds[input.device]!).tap();
          return;
        case 'DELETE': {
          const id = [...keys].find(([, key]) => key === input.task)![0];
          try {
            await client.cancel(id);
          } catch (error) {
            if (!(error instanceof ServiceError) || error.status !== 409) throw error;
          }
          return;
        }
        case 'DROP': {
          const badge = fleet.badge(deviceIds[input.device]!);
          if (!badge.online) return;
          badge.goOffline();
          await stub.app.gateway.deviceWaiters.wait(
            deviceIds[input.device]!,
            { online: false },
            { timeoutMs: SEEN_WITHIN_MS },
          );
          return;
        }
        case 'RETURN': {
          const badge = fleet.badge(deviceIds[input.device]!);
          if (badge.online) return;
          badge.comeBack();
          await stub.app.gateway.deviceWaiters.wait(
            deviceIds[input.device]!,
            { online: true },
            { timeoutMs: SEEN_WITHIN_MS },
          );
          return;
        }
        case 'ADVANCE':
          return;
      }
    }

    const ms = (iso: string) => Date.parse(iso) - t0;
    const sent = deviceIds.map((id) =>
      engine
        .transcript(id)
        .filter((e) => e.type === 'play' || e.type === 'speak')
        .map((e) => ({
          kind: e.type === 'play' ? 'alert' : 'speech',
          task: keyOf(e.taskId),
          text: 'text' in e ? e.text : '',
          at: ms(e.at),
        })),
    );
    for (const task of tasks) {
      task.reached = sent.filter((lines) =>
        lines.some((l) => l.kind === 'alert' && l.task === task.key),
      ).length;
    }
    const heard = deviceIds.map((id) =>
      fleet
        .transcript(id)
        .map((h) => ({ kind: h.kind, task: keyOf(h.task_id), text: h.text, at: ms(h.at) })),
    );
    return {
      events,
      tasks,
      sent,
      heard,
      states: deviceIds.map((id) => fleet.status(id)),
      openAtEnd: deviceIds.map((id) => fleet.badge(id).openAlerts.map(keyOf)),
    };
  } finally {
    await fleet.close();
  }
}

/** `heard` in order within `sent` (same clip, sent no later than heard): nothing heard unsent. */
function heardUnsent(sent: readonly Line[], heard: readonly Line[]): Line | undefined {
  let i = 0;
  for (const h of heard) {
    while (
      i < sent.length &&
      !(
        sent[i]!.kind === h.kind &&
        sent[i]!.task === h.task &&
        sent[i]!.text === h.text &&
        sent[i]!.at <= h.at
      )
    )
      i++;
    if (i === sent.length) return h;
    i++;
  }
  return undefined;
}

function problems(inputs: readonly ModelInput[], run: FleetRun): string[] {
  const broken = brokenInvariants(run.events, run.tasks);
  const model = predict(config, inputs);
  const same = (what: string, actual: unknown, predicted: unknown) => {
    if (JSON.stringify(actual) !== JSON.stringify(predicted))
      broken.push(
        `${what} differ from the model's:\n  stub   ${JSON.stringify(actual)}\n  model  ${JSON.stringify(predicted)}`,
      );
  };
  same('events', run.events, model.events);
  run.heard.forEach((heard, d) => {
    const user = config.users[d]!;
    same(`what ${user} heard`, heard, model.heard[d]);
    const unsent = heardUnsent(run.sent[d]!, heard);
    if (unsent)
      broken.push(
        `${user} heard ${JSON.stringify(unsent)}, which the stub did not record sending before`,
      );
    if (run.openAtEnd[d]!.length > 0)
      broken.push(
        `${user} still has ${run.openAtEnd[d]!.join(', ')} open when every task has ended`,
      );
  });
  same('final badge states', run.states, model.states);
  return broken;
}

describe('invariants over random schedules, through the stub and badges over sockets', () => {
  test(`${RUNS} schedules keep every invariant; the badges hear what the model says and the stub sent`, async () => {
    const started = performance.now();
    const result = await fc.check(
      fc.asyncProperty(schedule, async (inputs) => {
        const found = problems(inputs, await runOnFleet(inputs));
        if (found.length > 0) throw new Error(found.join('\n'));
      }),
      { numRuns: RUNS, seed: Number(process.env.BADGE_SIM_PROPERTY_SEED ?? Date.now() % 2 ** 31) },
    );
    console.log(
      `badge-sim properties: ${result.numRuns} schedules through the stub and badges in ${Math.round(performance.now() - started)} ms (seed ${result.seed})`,
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
  }, 300_000);
});
