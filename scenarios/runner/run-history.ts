/**
 * What a scenario's stub did to its alerts, as the alert model's coverage reads it
 * (model/observe.ts, decision CV2): the analytic events, what the stub sent each recipient,
 * and from the stub's session recording the DELETE answers, the taps and what they did, and
 * the badges going off and on line. Times in ms from the run's start.
 */
import type { StubControlClient } from '../../client/control-client.ts';
import type { Sent } from '../../model/lifecycle-state.ts';
import type { ServiceHistory } from '../../model/observe.ts';
import type { RecordLine } from '../../protocol/recording.schema.ts';
import type { AnalyticEvent } from '../../protocol/service-api.schema.ts';
import type { StubConnection } from '../../stub-connection/stub-connection.ts';
import type { RunCoverage } from './coverage.ts';

/**
 * Starts the stub's session recording for a run, unless it records already (a stub started
 * with `--record FILE`): returns whether this run started it, so that it stops only its own.
 */
export async function startRunRecording(control: StubControlClient): Promise<boolean> {
  if ((await control.recording()).recording) return false;
  await control.startRecording();
  return true;
}

/**
 * Adds what one scenario's run exercised to `coverage`: its stub history, and the decision
 * rows it names (empty when it failed, CV4). Returns a note when the recording was full.
 */
export async function addRunCoverage(
  coverage: RunCoverage,
  run: {
    connection: StubConnection;
    control: StubControlClient;
    start: number;
    subscriberId: string;
    devices: ReadonlySet<string>;
    events: readonly AnalyticEvent[];
    decisions: readonly string[];
  },
): Promise<string | undefined> {
  const { history, dropped } = await runHistory(
    run.connection,
    run.control,
    run.start,
    run,
    run.events,
  );
  coverage.addHistory(history);
  coverage.addDecisions(run.decisions);
  return dropped > 0
    ? `coverage: the stub's session recording was full, ${dropped} records dropped: taps, DELETEs and drops after it are not counted`
    : undefined;
}

/**
 * The run's history from what the stub kept: `events` are the account's since `start`; of the
 * recording, only what concerns the account's devices and its own DELETEs (a stub in another
 * process may serve others meanwhile).
 */
async function runHistory(
  connection: StubConnection,
  control: StubControlClient,
  start: number,
  account: { subscriberId: string; devices: ReadonlySet<string> },
  events: readonly AnalyticEvent[],
): Promise<{ history: ServiceHistory; dropped: number }> {
  const ms = (at: string) => Date.parse(at) - start;
  const tasks: ServiceHistory['tasks'] = [];
  const users = new Map<string, string>();
  for (const event of events) {
    if (event.content.type !== 'start') continue;
    const task = await connection.findTask(event.task.id);
    if (!task) continue;
    for (const d of task.devices) users.set(d.device_id, d.user);
    tasks.push({
      key: task.task_id,
      name: task.name,
      createdAt: ms(task.created_at),
      devices: task.devices.map((d) => d.device_id),
    });
  }
  const sent = new Map<string, Sent[]>();
  for (const device of users.keys()) {
    const lines: Sent[] = [];
    for (const entry of await connection.transcript(device)) {
      if (entry.type === 'broadcast') continue;
      lines.push({
        at: ms(entry.at),
        type: entry.type,
        task: entry.task_id,
        ...(entry.text === undefined ? {} : { text: entry.text }),
        ...(entry.cause === undefined ? {} : { cause: entry.cause }),
      });
    }
    sent.set(device, lines);
  }
  const recording = await control.recording();
  const history: ServiceHistory = {
    tasks,
    users,
    events: events.map((e) => ({
      type: e.content.type,
      task: e.task.id,
      at: ms(e.timestamp),
      ...(e.content.device === undefined ? {} : { device: e.content.device }),
      ...(e.content.status === undefined ? {} : { status: e.content.status }),
    })),
    sent,
    ...fromRecording(recording.records, ms, account),
  };
  return { history, dropped: recording.dropped };
}

/** DELETE answers, taps and network changes, from the session recording's records. */
function fromRecording(
  records: readonly RecordLine[],
  ms: (at: string) => number,
  account: { subscriberId: string; devices: ReadonlySet<string> },
): Pick<ServiceHistory, 'deletes' | 'taps' | 'links'> {
  const alertPath = new RegExp(
    `/subscribers/${escapeRegExp(encodeURIComponent(account.subscriberId))}/api/v1/alerts/([^/]+)$`,
  );
  const deletes: ServiceHistory['deletes'] = [];
  const taps: ServiceHistory['taps'] = [];
  const links: ServiceHistory['links'] = [];
  const ordered = [...records].sort((a, b) => a.seq - b.seq);
  // This run's part: after the last session record (the run's reset of the stub, or the start
  // of the recording), even on a stub that was recording before.
  const since = ordered.findLastIndex((r) => r.kind === 'session');
  for (const record of ordered.slice(since + 1)) {
    const at = ms(record.time);
    const device =
      typeof record.device === 'string' && account.devices.has(record.device)
        ? record.device
        : undefined;
    if (record.kind === 'request') {
      const request = record.request as { method?: string; path?: string; status?: number | null };
      const match = alertPath.exec(request.path ?? '');
      if (request.method === 'DELETE' && match && typeof request.status === 'number')
        deletes.push({ task: decodeURIComponent(match[1]!), at, status: request.status });
    } else if (record.kind === 'tap' && device && typeof record.result === 'string') {
      taps.push({
        device,
        at,
        result: record.result,
        ...(typeof record.task_id === 'string' ? { task: record.task_id } : {}),
      });
    } else if (record.kind === 'connect' && device && record.already !== true) {
      links.push({ device, at, online: true });
    } else if (record.kind === 'close' && device) {
      links.push({ device, at, online: false });
    }
  }
  return { deletes, taps, links };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
