/**
 * What happened in a run, collected once its timeline is over: the events, the badges'
 * transcripts, states and lanes, the named tasks, invocations, requests and device facts.
 */

import { allJournalEntries } from '../../client/control-client.ts';
import { formatTimestamp } from '../../clock/clock.ts';
import type { AnalyticEvent } from '../../protocol/service-api.schema.ts';
import type { WorkflowInvocation } from '../../server-stub/stub-core.ts';
import type { Badge } from '../../simulator/badge.ts';
import type { StubConnection } from '../../stub-connection/stub-connection.ts';
import type {
  ActualEvent,
  ActualHeard,
  DeviceFacts,
  ScenarioActual,
} from '../checks/expectations.ts';
import type { Scenario } from '../format/scenario.schema.ts';
import { laneOf } from './badge-lanes.ts';
import type { ScenarioAccount } from './scenario-account.ts';
import type { BadgeLane } from './scenario-report.ts';
import type { StepContext } from './steps.ts';

/** What happened, as the checks read it, and as the report gives it. */
export type Actual = ScenarioActual & {
  rawEvents: AnalyticEvent[];
  rawInvocations: WorkflowInvocation[];
  lanes: BadgeLane[];
  endMs: number;
};

/** What happened: events, transcripts and states of the badges, the named tasks, invocations. */
export async function collect(
  scenario: Scenario,
  account: ScenarioAccount,
  context: StepContext,
): Promise<Actual> {
  const { start, taskIds, invocationIds, connection } = context;
  // Read first: reading the events below is a request to the service API, journalled too. The
  // stub was reset when the scenario began, so the whole journal is the scenario's.
  const requests = scenario.expect.requests ? await allJournalEntries(connection) : [];
  const nameOf = new Map([...taskIds, ...invocationIds].map(([name, id]) => [id, name]));
  const subscriberId = account.fixture.subscriber_id;
  // Independent reads, sent together (the task and invocation reads are not journalled).
  const [rawEvents, tasks, allInvocations] = await Promise.all([
    context.client.allEvents(formatTimestamp(start)),
    namedTasks(scenario, taskIds, connection),
    connection.invocations(),
  ]);
  const rawInvocations = allInvocations.filter((i) => i.subscriber_id === subscriberId);
  const endMs = (await connection.now()) - start;
  const events: ActualEvent[] = rawEvents.map((e) => ({
    type: e.content.type,
    device: e.content.device,
    status: e.content.status,
    task: nameOf.get(e.task.id),
    taskId: e.task.id,
    name: e.task.name,
    at: Date.parse(e.timestamp) - start,
  }));
  const badges = context.fleet?.badges ?? [];
  // Read once a badge: each read formats every entry.
  const transcripts = new Map(badges.map((badge) => [badge, badge.transcript]));
  const { heard, states } = badgesHeard(transcripts, start, nameOf);
  const devices = scenario.expect.devices
    ? await deviceFacts(scenario.expect.devices, account, connection)
    : new Map<string, DeviceFacts>();
  return {
    events,
    heard,
    states,
    devices,
    tasks,
    invocations: rawInvocations,
    tokenRequests: context.trigger.tokenRequests,
    requests,
    rawEvents,
    rawInvocations,
    lanes: badges.map((badge) =>
      laneOf(
        badge,
        transcripts.get(badge)!,
        account.devices.get(badge.deviceId)?.user ?? badge.deviceId,
        start,
        endMs,
        nameOf,
      ),
    ),
    endMs,
  };
}

/** What each badge heard (ms from the start, tasks by their names) and its state. */
function badgesHeard(
  transcripts: Map<Badge, Badge['transcript']>,
  start: number,
  nameOf: Map<string, string>,
): { heard: Map<string, ActualHeard[]>; states: Map<string, string> } {
  const heard = new Map<string, ActualHeard[]>();
  const states = new Map<string, string>();
  for (const [badge, transcript] of transcripts) {
    heard.set(
      badge.deviceId,
      transcript.map((h) => ({
        kind: h.kind,
        text: h.text,
        cause: h.cause,
        task: nameOf.get(h.task_id),
        at: Date.parse(h.at) - start,
        cut: h.cut,
      })),
    );
    states.set(badge.deviceId, badge.status);
  }
  return { heard, states };
}

/** The tasks the scenario asks about, by name: one that ended 7 days ago is forgotten (H1). */
async function namedTasks(
  scenario: Scenario,
  taskIds: Map<string, string>,
  connection: StubConnection,
): Promise<ScenarioActual['tasks']> {
  const tasks: ScenarioActual['tasks'] = new Map();
  for (const name of Object.keys(scenario.expect.tasks ?? {})) {
    const id = taskIds.get(name);
    const task = id === undefined ? undefined : await connection.findTask(id);
    if (task) tasks.set(name, task);
  }
  return tasks;
}

/**
 * What the stub knows of the devices a scenario expects something of. A badge's state report
 * (its battery) is telemetry the stub does not answer, so nothing settles on it: wait for
 * each device to be as expected, told by the stub, all together at most DEVICE_REPORT_WAIT_MS
 * of real time (decision DF8); then read them once, and the expectation names what differs.
 */
async function deviceFacts(
  expected: NonNullable<Scenario['expect']['devices']>,
  account: ScenarioAccount,
  connection: StubConnection,
): Promise<Map<string, DeviceFacts>> {
  const deadline = performance.now() + DEVICE_REPORT_WAIT_MS;
  for (const [ref, facts] of Object.entries(expected)) {
    const { id } = account.resolve(ref, `expect.devices.${ref}`);
    const timeoutMs = Math.max(0, deadline - performance.now());
    await connection.waitForDevice(id, { ...facts, timeoutMs });
  }
  return new Map(
    (await connection.devices()).map((d): [string, DeviceFacts] => [
      d.device_id,
      {
        online: d.online,
        battery_level: d.battery_level,
        battery_status: d.battery_status,
        battery_low: d.battery_low,
      },
    ]),
  );
}

/** The longest a device expectation waits (real ms) for a badge's report to reach the stub. */
const DEVICE_REPORT_WAIT_MS = 2_000;
