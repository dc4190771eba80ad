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
import type { ModelInput } from '../../model/lifecycle-state.ts';
import { generatedConfig } from '../../scenarios/format/from-model.ts';
import { type StubHandle, startStub } from '../../server-stub/start-stub.ts';
import { startFleet } from '../../simulator/fleet.ts';
import type { FleetHandle } from '../../simulator/fleet-options.ts';
import { deviceIds, EngineRecorder, fixtures, SUBSCRIBER } from './engine-run.ts';
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
    const { clock } = stub.core;
    const t0 = clock.now();
    const run = new EngineRecorder(stub.core.engine, () => clock.now() - t0);
    const drive = driver(stub, fleet, run);
    for (const input of inputs) {
      const by = t0 + (input.type === 'ADVANCE' ? input.to : input.at) - clock.now();
      if (by > 0) await fleet.advanceBy(by);
      await drive(input);
      await fleet.settled();
    }
    run.countReached();
    const ms = (iso: string) => Date.parse(iso) - t0;
    return {
      events: run.events,
      tasks: run.tasks,
      sent: run.sent.map((lines) =>
        lines
          .filter((l) => l.type !== 'stop')
          .map((l) => ({
            kind: l.type === 'play' ? 'alert' : 'speech',
            task: l.task,
            text: l.text!,
            at: l.at,
          })),
      ),
      heard: deviceIds.map((id) =>
        fleet
          .transcript(id)
          .map((h) => ({ kind: h.kind, task: run.keyOf(h.task_id), text: h.text, at: ms(h.at) })),
      ),
      states: deviceIds.map((id) => fleet.status(id)),
      openAtEnd: deviceIds.map((id) => fleet.badge(id).openAlerts.map((t) => run.keyOf(t))),
    };
  } finally {
    await fleet.close();
  }
}

/** Each input as a user would do it: alerts and cancels over HTTP, taps and drops on badges. */
function driver(stub: StubHandle, fleet: FleetHandle, run: EngineRecorder) {
  const client = new ServiceClient({
    baseUrl: stub.url,
    subscriberId: SUBSCRIBER,
    apiKey: fixtures.accounts[0]!.api_keys[0]!,
  });
  const seen = (deviceId: string, online: boolean) =>
    stub.app.gateway.deviceWaiters.wait(deviceId, { online }, { timeoutMs: SEEN_WITHIN_MS });
  return async (input: ModelInput): Promise<void> => {
    switch (input.type) {
      case 'POST':
        return run.post(input, async (request) => (await client.alert(request)).task_id);
      case 'TAP':
        return fleet.badge(deviceIds[input.device]!).tap();
      case 'DELETE':
        try {
          await client.cancel(run.idOf(input.task));
        } catch (error) {
          if (!(error instanceof ServiceError) || error.status !== 409) throw error;
        }
        return;
      case 'DROP': {
        const badge = fleet.badge(deviceIds[input.device]!);
        if (!badge.online) return;
        badge.goOffline();
        await seen(deviceIds[input.device]!, false);
        return;
      }
      case 'RETURN': {
        const badge = fleet.badge(deviceIds[input.device]!);
        if (badge.online) return;
        badge.comeBack();
        await seen(deviceIds[input.device]!, true);
        return;
      }
      case 'ADVANCE':
        return;
    }
  };
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
