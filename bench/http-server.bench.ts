/**
 * The server side of `npm run bench:http`, run in a child process so that the load generator
 * and the server never share one event loop:
 *
 *   node --import tsx bench/http-server.bench.ts bare | stub | stub-events
 *
 * - `bare`: a plain fastify 5 app, no validation: `POST /bare` and `GET /bare` answer
 *   `{ task_id: 'x' }`; `GET /bare-events` answers 100 canned events through the stub's own
 *   response schema (for comparison only: same payload, none of the stub's work).
 * - `stub`: the real stub (`startStub`) on the virtual clock, default fixtures.
 * - `stub-events`: the same, with as many events as an account keeps (EVENTS_CAP, 50,000)
 *   stored in account 100001 before the port is announced (alerts created, then cancelled,
 *   acknowledged or timed out through `core.engine`).
 *
 * Every server listens on 127.0.0.1 only. Protocol on stdout, one line each:
 * `INFO <json>` (optional, before the port), then `PORT <n>` once the server accepts requests.
 * Exits on SIGTERM or SIGINT, and when its stdin closes (the parent went away).
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { formatTimestamp } from '../clock/clock.ts';
import { type AnalyticEvent, EventList } from '../protocol/service-api.schema.ts';
import { parseTimestamp } from '../protocol/timestamp.ts';
import { EVENTS_CAP } from '../server-stub/engine/event-store.ts';
import { startStub } from '../server-stub/start-stub.ts';
import type { StubCore } from '../server-stub/stub-core.ts';

export type ServerKind = 'bare' | 'stub' | 'stub-events';
const SERVER_KINDS: readonly ServerKind[] = ['bare', 'stub', 'stub-events'];

/** What `stub-events` stores before it listens. */
const FILL = {
  subscriberId: '100001',
  group: 'Nurses',
  /** As many as the stub keeps an account (decision V8): past it the oldest are dropped. */
  targetEvents: EVENTS_CAP,
  /** Virtual time between two fill alerts: events spread over hours, well inside retention. */
  stepMs: 1000,
} as const;

/** What a `stub-events` child reports in its `INFO` line. */
export interface FillInfo {
  alerts: number;
  /** Events counted by paging through `engine.events` after the fill. */
  storedEvents: number;
  byType: Record<string, number>;
  firstEventAt: string;
  lastEventAt: string;
  /** An instant halfway between the first and the last event (ISO 8601, ms). */
  middle: string;
  fillMs: number;
}

const HOST = '127.0.0.1';

async function main(): Promise<void> {
  const kind = process.argv[2] as ServerKind | undefined;
  if (!kind || !SERVER_KINDS.includes(kind)) {
    throw new Error(`usage: http-server.bench.ts ${SERVER_KINDS.join(' | ')} (got '${kind}')`);
  }

  let close: () => Promise<void>;
  let port: number;
  if (kind === 'bare') {
    const app = await bareApp();
    await app.listen({ host: HOST, port: 0 });
    const address = app.server.address();
    port = typeof address === 'object' && address ? address.port : 0;
    close = () => app.close();
  } else {
    const stub = await startStub({ host: HOST, port: 0, clock: 'virtual', seed: 1 });
    close = () => stub.close();
    port = stub.port;
    // startStub listens at once; the port is announced only after the fill, so no request
    // can arrive before the events are stored.
    if (kind === 'stub-events') {
      const info = await fillEvents(stub.core);
      process.stdout.write(`INFO ${JSON.stringify(info)}\n`);
    }
  }

  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    // Bounded: a close that hangs (an open connection) must not keep an orphan alive.
    setTimeout(() => process.exit(0), 3000).unref();
    close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.stdin.on('end', stop);
  process.stdin.on('error', stop);
  process.stdin.resume();

  process.stdout.write(`PORT ${port}\n`);
}

async function bareApp(): Promise<FastifyInstance> {
  const app = Fastify({ logger: false });
  app.post('/bare', async () => ({ task_id: 'x' }));
  app.get('/bare', async () => ({ task_id: 'x' }));
  const canned = cannedEvents(100);
  app.get('/bare-events', { schema: { response: { 200: EventList } } }, async () => canned);
  // The floor for a response of this size: the same payload, serialised once.
  const prebuilt = JSON.stringify(canned);
  app.get('/bare-events-prebuilt', async (_request, reply) =>
    reply.type('application/json').send(prebuilt),
  );
  return app;
}

/** 100 events of the stub's shape and size, made up once. */
function cannedEvents(count: number): AnalyticEvent[] {
  const start = Date.UTC(2026, 0, 1);
  const types = ['start', 'acknowledged', 'timed_out', 'end'] as const;
  return Array.from({ length: count }, (_, i) => {
    const type = types[i % types.length]!;
    return {
      category: 'tasks',
      content:
        type === 'acknowledged'
          ? { type, device: 'Ada Mensah' }
          : type === 'end'
            ? { type, status: 'normal' }
            : { type },
      task: {
        id: `T${String(i).padStart(21, '0')}`,
        name: 'alerts',
        task_type: { major: 1, minor: 4, name: 'alerts', namespace: 'system' },
      },
      event_id: i.toString(16).padStart(32, '0'),
      timestamp: formatTimestamp(start + i * 1000),
    };
  });
}

/**
 * Stores FILL.targetEvents events in the account, through the engine (no HTTP). Alerts take
 * turns: cancelled (start, end), acknowledged by every device (start, 3 × acknowledged, end)
 * and timed out after 1 s (start, timed_out, end), one per FILL.stepMs of virtual time.
 */
async function fillEvents(core: StubCore): Promise<FillInfo> {
  const { subscriberId, group, targetEvents, stepMs } = FILL;
  const { engine, clock } = core;
  const t0 = performance.now();
  let expected = 0;
  let alerts = 0;
  while (expected < targetEvents) {
    const variant = alerts % 3;
    const { taskId } = engine.createAlert(subscriberId, {
      notification: `Fill ${alerts}`,
      groups: [group],
      timeout: variant === 2 ? 1 : 60,
    });
    expected += 1;
    if (variant === 0) {
      engine.cancelAlert(subscriberId, taskId);
      expected += 1;
    } else if (variant === 1) {
      for (const device of engine.task(taskId)!.devices) {
        engine.acknowledge(device.device_id, taskId);
        expected += 1;
      }
      expected += 1;
    } else {
      expected += 2; // timed_out and end, when the clock passes the 1 s timeout below
    }
    alerts++;
    await clock.advanceBy(stepMs);
  }
  for (const task of engine.tasks(subscriberId)) {
    if (task.state !== 'ended') throw new Error(`fill: task ${task.task_id} has not ended`);
  }

  // Count what the store really holds, through the public query (at most 100 per page).
  // A full page may end part-way through one instant, so that instant is read again.
  const byType: Record<string, number> = {};
  let stored = 0;
  let oldest = 0;
  let first: string | undefined;
  let last: string | undefined;
  for (;;) {
    const page = engine.events(subscriberId, { oldest, limit: 100 });
    if (page.length === 0) break;
    first ??= page[0]!.timestamp;
    const lastAt = page[page.length - 1]!.timestamp;
    const complete = page.length < 100;
    if (!complete && page[0]!.timestamp === lastAt) {
      throw new Error('fill: more than 100 events at one instant; cannot page through them');
    }
    for (const event of page) {
      if (!complete && event.timestamp === lastAt) continue;
      stored++;
      byType[event.content.type] = (byType[event.content.type] ?? 0) + 1;
      last = event.timestamp;
    }
    if (complete) break;
    oldest = parseTimestamp(lastAt)!;
  }
  // The last alert may pass the cap by a few events: the oldest went (V8).
  if (stored !== Math.min(expected, EVENTS_CAP)) {
    throw new Error(
      `fill: expected ${Math.min(expected, EVENTS_CAP)} stored events, counted ${stored}`,
    );
  }
  const firstAt = Date.parse(first!);
  const lastAt = Date.parse(last!);
  return {
    alerts,
    storedEvents: stored,
    byType,
    firstEventAt: first!,
    lastEventAt: last!,
    middle: new Date(firstAt + Math.round((lastAt - firstAt) / 2)).toISOString(),
    fillMs: Math.round(performance.now() - t0),
  };
}

main().catch((error: unknown) => {
  process.stderr.write(`http-server.bench: ${error instanceof Error ? error.stack : error}\n`);
  process.exit(1);
});
