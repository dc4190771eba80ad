/**
 * A fleet split over worker threads (`startFleet({ workers: n })`, `badge-sim devices
 * --workers n`), so that a large fleet uses several cores: the selected devices are cut into n
 * contiguous slices, each thread runs an ordinary fleet of its slice (fleet-worker.ts) under
 * the fleet's one session (decision D13), and this handle adds their reports up. Badges live in
 * their threads: the handle gives counts, summaries and first-play times, not Badge objects.
 * The threads follow the stub's clock as any fleet by URL does; moving a virtual clock is for
 * the stub's control API (decision SC1).
 */
import { randomBytes } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import type { StubControlClient } from '../client/control-client.ts';
import { addActivity, emptyActivity, type FleetActivityCounts } from './fleet-activity.ts';
import {
  checkOpenFiles,
  connectAndSettle,
  connectionOf,
  FleetError,
  StubUnreachableError,
} from './fleet-connect.ts';
import {
  emptySummary,
  type FleetOptions,
  type FleetSummary,
  selectDevices,
} from './fleet-options.ts';
import { roomForBadges } from './open-files.ts';
import { DEFAULT_RECONNECT, type ReconnectOptions } from './transport.ts';

/** At most this many worker threads (more than cores only costs memory). */
export const MAX_WORKERS = 64;

/** What a fleet in worker threads offers: the whole fleet's numbers, one handle. */
export interface WorkerFleetHandle extends AsyncDisposable {
  /** Badges in the fleet, over every thread. */
  readonly total: number;
  /** Threads running badges. */
  readonly workers: number;
  /** Badges online, as last reported (every 100 ms). */
  connectedCount(): number;
  /** Online, connecting, reconnecting and offline counts over every thread, as last reported. */
  summary(): FleetSummary;
  /** States, what was heard and tapped, errors: over every thread, as last reported. */
  activity(): FleetActivityCounts;
  /** Asks every thread for its numbers now (the next `summary()` and `activity()` see them). */
  refresh(): Promise<void>;
  /** Waits (real time) until `count` badges (all by default) are online. */
  waitUntilConnected(count?: number, timeoutMs?: number): Promise<void>;
  /** Resolves when every thread's badges have had every frame they sent handled. */
  settled(): Promise<void>;
  /** When each badge first heard the alert (epoch ms; one of the 16 most recent alerts). */
  firstPlays(taskId: string): Promise<number[]>;
  close(): Promise<void>;
}

/** Main thread to worker. */
export type ToWorker =
  | { id: number; what: 'settle' | 'report' | 'close' }
  | { id: number; what: 'firstPlays'; taskId: string };

/** Worker to main thread. */
export type WorkerMessage =
  | { type: 'report'; summary: FleetSummary; activity: FleetActivityCounts }
  | { type: 'failed'; message: string }
  | {
      type: 'reply';
      id: number;
      value?: unknown;
      error?: string;
      /** The error was the stub lost (its network code): a wait may go on. */
      unreachable?: string;
    };

/**
 * The young generation of each fleet thread, in MB. A thread's badges are long-lived; what they
 * allocate per frame dies young. With V8's default (as large as the main thread's), two threads of
 * 5,000 badges each held 30 KB of RSS per badge and never handed it back; with 4 MB, about 12.5
 * KB once idle (bench:fleet --workers 2, decision SC1).
 */
const WORKER_YOUNG_GENERATION_MB = 4;

export async function startFleetInWorkers(
  options: FleetOptions & { workers: number },
): Promise<WorkerFleetHandle> {
  const { workers: asked } = options;
  if (!(Number.isInteger(asked) && asked >= 1 && asked <= MAX_WORKERS))
    throw new FleetError(`badge-sim: workers must be a whole number from 1 to ${MAX_WORKERS}`);
  // A function of this thread cannot reach badges in others.
  if (options.inspect !== undefined)
    throw new FleetError('badge-sim: inspect cannot be used with workers (badges run in threads)');
  if (options.tts !== undefined && typeof options.tts !== 'string')
    throw new FleetError(
      "badge-sim: with workers, tts must be an engine's name (each thread makes its own)",
    );
  // The threads reach the stub by URL; what else they need is the connection's to say.
  const connection = connectionOf(options, (code) => new FleetError(code));
  const url = connection.url;
  const ca = options.ca ?? connection.ca;
  let fixtures: Awaited<ReturnType<StubControlClient['fixtures']>>;
  try {
    fixtures = await connection.fixtures();
  } catch (error) {
    throw new FleetError(
      `badge-sim: cannot read the fixtures of the stub at ${url} (${(error as Error).message}): is it running?`,
    );
  }
  const ids = selectDevices(fixtures, options).map((d) => d.id);
  // The threads share this process's open files: the whole fleet must fit under its limit.
  checkOpenFiles(ids.length, roomForBadges(), connection.socketsPerBadge ?? 1);
  const session = options.session ?? randomBytes(12).toString('base64url');
  const count = Math.max(1, Math.min(asked, ids.length));
  const slices = Array.from({ length: count }, (_, k) =>
    ids.slice(Math.floor((k * ids.length) / count), Math.floor(((k + 1) * ids.length) / count)),
  );
  const { workers: _w, stub: _s, inspect: _i, count: _c, shard: _h, ...rest } = options;
  const threads = slices.map(
    (devices) =>
      new FleetThread({
        ...rest,
        stub: url,
        ...(ca === undefined ? {} : { ca }),
        session,
        devices,
        group: undefined,
        subscriberId: undefined,
      }),
  );
  try {
    await Promise.all(threads.map((t) => t.started));
  } catch (error) {
    await Promise.all(threads.map((t) => t.terminate()));
    throw error;
  }
  const reconnect =
    options.reconnect === false ? false : { ...DEFAULT_RECONNECT, ...options.reconnect };
  return new WorkerFleet(threads, ids.length, url, reconnect);
}

/** One worker thread and what it last reported. */
class FleetThread {
  readonly #worker: Worker;
  readonly #replies = new Map<
    number,
    { resolve: (v: unknown) => void; reject: (e: Error) => void }
  >();
  #nextId = 0;
  #failure: Error | undefined;
  #closing = false;
  summary: FleetSummary | undefined;
  activity: FleetActivityCounts = emptyActivity();
  /** Told of each report, and of a failure. */
  readonly onReport = new Set<() => void>();
  readonly started: Promise<void>;

  constructor(options: FleetOptions) {
    this.#worker = new Worker(BOOTSTRAP, {
      eval: true,
      workerData: { ...workerEntry(), options },
      resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
    });
    this.started = new Promise<void>((resolve, reject) => {
      this.#worker.on('message', (message: WorkerMessage) => {
        if (message.type === 'report') {
          this.summary = message.summary;
          this.activity = message.activity;
          resolve();
          for (const listener of this.onReport) listener();
        } else if (message.type === 'failed') {
          this.#fail(new FleetError(message.message));
          reject(this.#failure);
        } else {
          const waiting = this.#replies.get(message.id);
          this.#replies.delete(message.id);
          if (message.unreachable !== undefined)
            waiting?.reject(new StubUnreachableError(message.error!, message.unreachable));
          else if (message.error !== undefined) waiting?.reject(new FleetError(message.error));
          else waiting?.resolve(message.value);
        }
      });
      this.#worker.on('error', (error) => {
        this.#fail(new FleetError(`badge-sim: a fleet worker thread failed: ${error.message}`));
        reject(this.#failure);
      });
      this.#worker.on('exit', (code) => {
        this.#fail(
          new FleetError(
            this.#closing
              ? 'badge-sim: the fleet is closed'
              : `badge-sim: a fleet worker thread stopped (exit code ${code})`,
          ),
        );
        reject(this.#failure);
      });
    });
  }

  get failure(): Error | undefined {
    return this.#failure;
  }

  request<T>(
    message: { what: 'settle' | 'report' | 'close' } | { what: 'firstPlays'; taskId: string },
  ): Promise<T> {
    if (this.#failure) return Promise.reject(this.#failure);
    if (this.#closing && message.what !== 'close')
      return Promise.reject(new FleetError('badge-sim: the fleet is closed'));
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      this.#replies.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.#worker.postMessage({ ...message, id } as ToWorker);
    });
  }

  async close(): Promise<void> {
    if (this.#failure) return this.terminate();
    this.#closing = true;
    let guard: NodeJS.Timeout | undefined;
    await Promise.race([
      this.request({ what: 'close' }).catch(() => undefined),
      new Promise((resolve) => {
        guard = setTimeout(resolve, CLOSE_GRACE_MS);
      }),
    ]);
    clearTimeout(guard);
    await this.terminate();
  }

  async terminate(): Promise<void> {
    this.#closing = true;
    await this.#worker.terminate();
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    // A thread gone holds no badge online: its last numbers no longer count.
    this.summary = undefined;
    for (const waiting of this.#replies.values()) waiting.reject(this.#failure);
    this.#replies.clear();
    for (const listener of this.onReport) listener();
  }
}

/** Real time a thread has to close its badges before it is stopped. */
const CLOSE_GRACE_MS = 10_000;

class WorkerFleet implements WorkerFleetHandle {
  readonly #threads: FleetThread[];
  readonly total: number;
  #closed: Promise<void> | undefined;

  readonly #url: string;
  readonly #reconnect: ReconnectOptions | false;

  constructor(
    threads: FleetThread[],
    total: number,
    url: string,
    reconnect: ReconnectOptions | false,
  ) {
    this.#threads = threads;
    this.total = total;
    this.#url = url;
    this.#reconnect = reconnect;
  }

  get workers(): number {
    return this.#threads.length;
  }

  connectedCount(): number {
    return this.summary().online;
  }

  summary(): FleetSummary {
    const sum = emptySummary(this.total);
    for (const { summary: s } of this.#threads) {
      if (!s) continue;
      sum.online += s.online;
      sum.connecting += s.connecting;
      sum.reconnecting += s.reconnecting;
      sum.offline += s.offline;
      sum.refused += s.refused;
      sum.reconnects += s.reconnects;
      sum.downForMs = Math.max(sum.downForMs, s.downForMs);
    }
    return sum;
  }

  activity(): FleetActivityCounts {
    return this.#threads.reduce((sum, t) => addActivity(sum, t.activity), emptyActivity());
  }

  async refresh(): Promise<void> {
    await Promise.all(this.#threads.map((t) => t.request({ what: 'report' })));
  }

  async waitUntilConnected(count = this.total, timeoutMs = 30_000): Promise<void> {
    const failed = this.#threads.find((t) => t.failure)?.failure;
    if (failed) throw failed;
    await connectAndSettle({
      count,
      timeoutMs,
      untilOnline: (n, ms) => this.#untilOnline(n, ms),
      settled: () => this.settled(),
      reconnect: this.#reconnect,
      timedOut: (lost) => {
        const { firstError } = this.activity();
        const { reconnecting } = this.summary();
        return new FleetError(
          `badge-sim: ${this.connectedCount()} of ${count} badges connected after ${timeoutMs} ms` +
            (lost && reconnecting > 0
              ? `; the stub at ${this.#url} is unreachable (${lost.code}), ${reconnecting} badges reconnecting`
              : firstError
                ? ` (device ${firstError})`
                : ''),
        );
      },
    });
  }

  /** True once `count` badges are online (woken by the threads' reports), false after `timeoutMs`. */
  #untilOnline(count: number, timeoutMs: number): Promise<boolean> {
    if (this.connectedCount() >= count) return Promise.resolve(true);
    return new Promise<boolean>((resolve, reject) => {
      const check = () => {
        const failed = this.#threads.find((t) => t.failure)?.failure;
        if (failed) finish(failed);
        else if (this.connectedCount() >= count) finish(true);
      };
      const guard = setTimeout(() => finish(false), timeoutMs);
      const finish = (outcome: boolean | Error) => {
        clearTimeout(guard);
        for (const t of this.#threads) t.onReport.delete(check);
        if (outcome instanceof Error) reject(outcome);
        else resolve(outcome);
      };
      for (const t of this.#threads) t.onReport.add(check);
    });
  }

  async settled(): Promise<void> {
    await Promise.all(this.#threads.map((t) => t.request({ what: 'settle' })));
  }

  async firstPlays(taskId: string): Promise<number[]> {
    const parts = await Promise.all(
      this.#threads.map((t) => t.request<number[]>({ what: 'firstPlays', taskId })),
    );
    return parts.flat().sort((a, b) => a - b);
  }

  close(): Promise<void> {
    this.#closed ??= Promise.all(this.#threads.map((t) => t.close())).then(() => undefined);
    return this.#closed;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/**
 * A thread's first code: from the TypeScript sources it registers tsx (a dev dependency) in
 * the thread before loading the entry, as bin/badge-sim.js does for the CLI; the installed
 * package's entry is JavaScript.
 */
const BOOTSTRAP = `const { workerData } = require('node:worker_threads');
(async () => {
  if (workerData.tsx) (await import(workerData.tsx)).register();
  await import(workerData.entry);
})().catch((error) => { setImmediate(() => { throw error; }); });`;

function workerEntry(): { entry: string; tsx: string | undefined } {
  const fromSource = import.meta.url.endsWith('.ts');
  const entry = new URL(`./fleet-worker.${fromSource ? 'ts' : 'js'}`, import.meta.url).href;
  // tsx's ES module entry (a require() resolution would give its CommonJS one).
  const tsx = fromSource ? import.meta.resolve('tsx/esm/api') : undefined;
  return { entry, tsx };
}
