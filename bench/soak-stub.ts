/**
 * The stub of bench/soak.bench.ts: a child process on the virtual clock, as the image runs it,
 * whose memory is asked over IPC after a full GC (bench/soak-probe.ts).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { awaitChildLine, stopChild } from './bench-support.ts';
import { BADGES, EXTRA_STUB_ARGS, START_TIMEOUT_MS, STUB_MALLOC_ARENA_MAX } from './soak-config.ts';
import type { Memory } from './soak-growth.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

let stub: ChildProcess | undefined;
let stopping = false;

/** The running stub's pid. */
export function stubPid(): number | undefined {
  return stub?.pid;
}

export async function startStubProcess(): Promise<string> {
  stopping = false;
  const args = [
    '--expose-gc',
    '--import',
    'tsx',
    '--import',
    './bench/soak-probe.ts',
    'bin/badge-sim.js',
    'stub',
    '--port',
    '0',
    '--generate',
    String(BADGES),
    '--seed',
    '1',
    '--clock',
    'virtual',
    '--quiet',
    ...EXTRA_STUB_ARGS,
  ];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    env: { ...process.env, MALLOC_ARENA_MAX: STUB_MALLOC_ARENA_MAX },
  });
  stub = child;
  child.stderr!.on('data', (chunk: Buffer) => process.stderr.write(`[stub] ${chunk}`));
  child.once('exit', (code, signal) => {
    if (stub === child && !stopping) {
      process.stderr.write(`[stub] exited unexpectedly (${signal ?? `code ${code}`})\n`);
    }
  });
  return awaitChildLine(
    child,
    (line) => /control API\s+(http:\/\/127\.0\.0\.1:\d+)\/_stub\b/.exec(line)?.[1],
    { name: 'the stub', expected: 'control API URL', timeoutMs: START_TIMEOUT_MS },
  );
}

let asked = 0;

/** The stub's memory after a full GC, asked over IPC (bench/soak-probe.ts). */
export function stubMemory(): Promise<Memory> {
  const child = stub!;
  const id = ++asked;
  return new Promise<Memory>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.off('message', listen);
      reject(new Error('the stub did not answer the memory probe within 30 s'));
    }, 30_000);
    const listen = (message: unknown) => {
      const answer = message as (Memory & { type: string; id: number; gc: boolean }) | null;
      if (answer?.type !== 'memory' || answer.id !== id) return;
      clearTimeout(timer);
      child.off('message', listen);
      if (!answer.gc) reject(new Error('the stub runs without --expose-gc'));
      const { rss, heapUsed, heapTotal, external, codeSpace, malloced, newSpace, oldSpace } =
        answer;
      resolve({ rss, heapUsed, heapTotal, external, codeSpace, malloced, newSpace, oldSpace });
    };
    child.on('message', listen);
    child.send({ type: 'memory', id });
  });
}

/** SIGTERM (the stub closes its connections and exits), then SIGKILL after 5 s. */
export async function stopStub(): Promise<void> {
  if (!stub) return;
  stopping = true;
  await stopChild(stub);
  stub = undefined;
}

export function killStub(): void {
  if (stub && stub.exitCode === null && stub.signalCode === null) stub.kill('SIGKILL');
}
