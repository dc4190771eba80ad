/**
 * The floors under `bench:fleet`'s fan-out, on the same machine with the same number of
 * WebSockets. A bare `ws` server in a child process sends one play-sized frame to every client,
 * FAN_OUT_CHUNK per turn of its event loop as the stub does; N bare `ws` clients in this
 * process note when each frame arrives, and
 *
 * - **sockets**: do nothing else (no parsing, no machine, no reply): no simulator delivers
 *   faster than this here;
 * - **sockets + machine**: also take the frame's PLAY through one badge machine each (the
 *   package's BadgeRunner, as a fleet's badge does, without its link, clock or listeners):
 *   what keeping xstate as the model of a badge adds to the thread that runs the badges.
 *
 * Two rounds each, alternating on the same sockets (the better of the two counts: a floor).
 * bench/fleet.bench.ts prints badge-sim's first play beside them, as ratios. Alone:
 *
 *   npm run build && BENCH_BADGES=10000 node --import tsx bench/fleet-floor-run.ts
 *
 * Latency runs from the server's first send (not from an HTTP request, as in fleet-run.ts:
 * the floors have none). The last line of stdout is `FLOOR {json}`.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { WebSocket, WebSocketServer } from 'ws';
import { FAN_OUT_CHUNK } from '../server-stub/engine/fan-out.ts';
import type { BadgeIo } from '../simulator/badge.machine.ts';
import { percentile, readNumber, stopChild, stopOnExit } from './bench-support.ts';

const CLIENTS = Math.round(readNumber('BENCH_BADGES', 10_000, 100_000));
/** Connects in flight at once, as a fleet's CONNECT_WINDOW. */
const CONNECT_WINDOW = 256;
const CONNECT_TIMEOUT_MS = 120_000;
const DELIVERY_TIMEOUT_MS = 30_000;
/** Idle before each round, as fleet-run.ts's fleet is before its POST. */
const QUIET_MS = 1_000;
const ROUNDS = 2;

/** One round: arrival after the server's first send. */
export interface FloorRound {
  /** From the server's first send to its last (ms). */
  sendMs: number;
  received: number;
  p50: number;
  p99: number;
  max: number;
}

export interface FloorResult {
  clients: number;
  /** The better round (lower p99) of each kind. */
  sockets: FloorRound;
  machine: FloorRound;
}

interface Sent {
  firstSendAt: number;
  lastSendAt: number;
}

/** The server role: listens on loopback, sends one frame to everyone each time it is told. */
function serve(): void {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  const clients: WebSocket[] = [];
  let seq = 0;
  wss.on('connection', (ws) => clients.push(ws));
  wss.on('listening', () => {
    const address = wss.address();
    process.send!({ port: typeof address === 'object' && address ? address.port : 0 });
  });
  process.on('message', (taskId: string) => {
    const firstSendAt = performance.timeOrigin + performance.now();
    let next = 0;
    const chunk = () => {
      const end = Math.min(clients.length, next + FAN_OUT_CHUNK);
      // Each frame is made for its socket, as the stub makes each badge's (its own seq).
      for (; next < end; next++) {
        clients[next]!.send(
          JSON.stringify({
            type: 'play',
            seq: ++seq,
            at: Date.now(),
            task_id: taskId,
            name: 'Fleet bench',
            text: 'Fleet bench',
            repeat: 0,
          }),
        );
      }
      if (next < clients.length) setImmediate(chunk);
      else process.send!({ firstSendAt, lastSendAt: performance.timeOrigin + performance.now() });
    };
    chunk();
  });
  process.on('disconnect', () => process.exit(0));
}

function nextMessage<T>(child: ChildProcess, timeoutMs: number, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the floor's server sent no ${what} in ${timeoutMs} ms`)),
      timeoutMs,
    );
    child.once('message', (message) => {
      clearTimeout(timer);
      resolve(message as T);
    });
  });
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** CLIENTS sockets, CONNECT_WINDOW connecting at once; `onFrame(i)` hears client i's frames. */
async function connectAll(port: number, onFrame: (client: number) => void): Promise<WebSocket[]> {
  const sockets: WebSocket[] = [];
  const deadline = performance.now() + CONNECT_TIMEOUT_MS;
  let connecting = 0;
  let failed: Error | undefined;
  const check = () => {
    if (failed) throw new Error(`a client could not connect: ${failed.message}`);
    if (performance.now() > deadline)
      throw new Error(
        `${sockets.length - connecting} of ${CLIENTS} connected in ${CONNECT_TIMEOUT_MS} ms`,
      );
  };
  for (let i = 0; i < CLIENTS; i++) {
    while (connecting >= CONNECT_WINDOW) {
      check();
      await pause(5);
    }
    connecting++;
    const ws = new WebSocket(`ws://127.0.0.1:${port}/`);
    ws.once('open', () => connecting--);
    ws.once('error', (error) => {
      failed ??= error;
    });
    ws.on('message', () => onFrame(i));
    sockets.push(ws);
  }
  while (connecting > 0) {
    check();
    await pause(5);
  }
  check();
  return sockets;
}

/** A badge machine per client, online and idle, driven as a fleet's badge drives its own. */
async function machines(): Promise<{
  play: (client: number, taskId: string) => void;
  stop: (taskId: string) => void;
}> {
  const dist = new URL('../dist/simulator/badge-runner.js', import.meta.url);
  if (!existsSync(dist)) throw new Error('dist/ has no package: run `npm run build` first');
  const { BadgeRunner } = (await import(
    dist.href
  )) as typeof import('../simulator/badge-runner.ts');
  const io: BadgeIo = {
    open() {},
    close() {},
    send() {},
    speakAloud() {},
    startClipTimer() {},
    stopClipTimer() {},
  };
  const runners = Array.from({ length: CLIENTS }, (_, i) => {
    const runner = new BadgeRunner({ deviceId: `floor-${i}`, io }, () => {});
    runner.send({ type: 'CONNECT' });
    runner.send({ type: 'CONNECTED', user: `user-${i}` });
    return runner;
  });
  return {
    play: (client, taskId) =>
      runners[client]!.send({
        type: 'PLAY',
        taskId,
        name: 'Fleet bench',
        text: 'Fleet bench',
        repeat: 0,
        durationMs: 60_000,
      }),
    // Back to idle, so that every round's PLAY takes the path a fleet's first play takes.
    stop: (taskId) => {
      for (const runner of runners) runner.send({ type: 'STOP', taskId, cause: 'cancelled' });
    },
  };
}

async function measure(): Promise<void> {
  const print = (line = '') => process.stdout.write(`${line}\n`);
  const badges = await machines();
  const server = fork(fileURLToPath(import.meta.url), ['--server'], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  stopOnExit(() => server.kill('SIGKILL'));
  const { port } = await nextMessage<{ port: number }>(server, 30_000, 'port');

  let arrivals: number[] = [];
  let withMachine = false;
  let taskId = '';
  const sockets = await connectAll(port, (client) => {
    // Like fleet-run.ts's first play: noted once the badge is playing.
    if (withMachine) badges.play(client, taskId);
    arrivals.push(performance.timeOrigin + performance.now());
  });

  const round = async (kind: 'sockets' | 'machine', n: number): Promise<FloorRound> => {
    await pause(QUIET_MS);
    arrivals = [];
    withMachine = kind === 'machine';
    taskId = `floor-${kind}-${n}`;
    const sent = nextMessage<Sent>(server, DELIVERY_TIMEOUT_MS, 'end of sends');
    server.send(taskId);
    const { firstSendAt, lastSendAt } = await sent;
    const deadline = performance.now() + DELIVERY_TIMEOUT_MS;
    while (arrivals.length < CLIENTS && performance.now() < deadline) await pause(10);
    const latencies = arrivals.map((t) => t - firstSendAt).sort((a, b) => a - b);
    if (withMachine) badges.stop(taskId);
    return {
      sendMs: lastSendAt - firstSendAt,
      received: latencies.length,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      max: latencies.at(-1) ?? Number.NaN,
    };
  };
  const better = (a: FloorRound | undefined, b: FloorRound) => (a && a.p99 <= b.p99 ? a : b);
  let bare: FloorRound | undefined;
  let machine: FloorRound | undefined;
  for (let n = 1; n <= ROUNDS; n++) {
    bare = better(bare, await round('sockets', n));
    machine = better(machine, await round('machine', n));
  }
  const result: FloorResult = { clients: CLIENTS, sockets: bare!, machine: machine! };

  const line = (what: string, r: FloorRound) =>
    `- ${what}: the server's sends took ${r.sendMs.toFixed(1)} ms; arrival after the first send ` +
    `p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, max ${r.max.toFixed(1)} ms ` +
    `(${r.received.toLocaleString('en-US')}/${CLIENTS.toLocaleString('en-US')} arrived)`;
  print(
    `### Floors: ${CLIENTS.toLocaleString('en-US')} bare WebSockets (better of ${ROUNDS} rounds)`,
  );
  print(line('sockets alone', result.sockets));
  print(line('sockets + one badge machine PLAY each', result.machine));
  print();
  print(`FLOOR ${JSON.stringify(result)}`);
  for (const ws of sockets) ws.terminate();
  await stopChild(server);
}

if (process.argv.includes('--server')) serve();
else
  await measure().catch((error: Error) => {
    process.stderr.write(`bench:fleet floors: ${error.message}\n`);
    process.exit(1);
  });
