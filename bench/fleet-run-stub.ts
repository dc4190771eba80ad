/**
 * The stub of bench/fleet-run.ts: a child process started with the CLI from dist/, exactly as a
 * user would, listening on 127.0.0.1; stopped with SIGTERM, killed if the bench itself fails.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { awaitChildLine, stopChild } from './bench-support.ts';
import { START_TIMEOUT_MS } from './fleet-run-config.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = new URL('../dist/', import.meta.url);

let stub: ChildProcess | undefined;

export async function startStubProcess(
  count: number,
): Promise<{ url: string; pid: number; startMs: number }> {
  const t0 = performance.now();
  const nodeArgs = (process.env.BENCH_STUB_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const args = [
    ...nodeArgs,
    '--enable-source-maps',
    fileURLToPath(new URL('cli/badge-sim.js', DIST)),
    'stub',
    '--port',
    '0',
    '--generate',
    String(count),
  ];
  args.push('--seed', '1', '--clock', 'real', '--quiet');
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  stub = child;
  createInterface({ input: child.stderr! }).on('line', (line) =>
    process.stderr.write(`[stub] ${line}\n`),
  );
  child.once('exit', (code, signal) => {
    if (stub === child && !stopping) {
      process.stderr.write(`[stub] exited unexpectedly (${signal ?? `code ${code}`})\n`);
    }
  });
  // The stub keeps writing to stdout (a stop message at most); the reader drains it.
  const url = await awaitChildLine(
    child,
    (line) => /control API\s+(http:\/\/127\.0\.0\.1:\d+)\/_stub\b/.exec(line)?.[1],
    { name: 'the stub', expected: 'control API URL', timeoutMs: START_TIMEOUT_MS },
  );
  return { url, pid: child.pid!, startMs: performance.now() - t0 };
}

let stopping = false;

/** SIGTERM (the stub closes its connections and exits), then SIGKILL after 5 s. */
export async function stopStub(): Promise<void> {
  if (!stub) return;
  stopping = true;
  await stopChild(stub);
}

export function killStub(): void {
  if (stub && stub.exitCode === null && stub.signalCode === null) stub.kill('SIGKILL');
}
