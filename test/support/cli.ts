/** Runs the badge-sim CLI as a user would: a real process. */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

export const BIN = fileURLToPath(new URL('../../bin/badge-sim.js', import.meta.url));

/**
 * Every child still running when the test worker exits is killed: a test that times out is
 * abandoned by vitest, so its `await using` never disposes.
 */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export interface RunningCli {
  child: ChildProcess;
  output(): string;
  errors(): string;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Starts a long-running command and waits until its output contains `ready`. */
export async function startCli(
  args: string[],
  ready: string | RegExp,
  env: Record<string, string> = {},
  cwd?: string,
): Promise<RunningCli> {
  const { child, text } = spawnCli(args, env, cwd);
  child.once('exit', () => running.delete(child));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  };
  try {
    await expect
      .poll(
        () =>
          (typeof ready === 'string' ? text.stdout.includes(ready) : ready.test(text.stdout)) ||
          child.exitCode !== null,
        {
          timeout: 45_000,
          interval: 50,
        },
      )
      .toBe(true);
    if (child.exitCode !== null)
      throw new Error(`badge-sim ${args.join(' ')} exited ${child.exitCode}: ${text.stderr}`);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    child,
    output: () => text.stdout,
    errors: () => text.stderr,
    [Symbol.asyncDispose]: stop,
  };
}

/** Starts `badge-sim stub` and returns its base URL with the process handle. */
export async function startStubProcess(args: string[] = []) {
  const cli = await startCli(['stub', '--port', '0', '--quiet', ...args], 'Press Ctrl+C to stop.');
  const url = /control API\s+(http:\/\/\S+)\/_stub/.exec(cli.output())![1]!;
  return Object.assign(cli, { url });
}

/**
 * A command runs as on a developer's machine unless a test gives `CI` itself: under CI, `run`
 * keeps failed scenarios' traces (TR8) and says so, which tests of other output do not expect.
 */
const NOT_CI = { CI: '' };

/** Runs a command to its end. */
export function runCli(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    timeout: 45_000,
    env: { ...process.env, ...NOT_CI, ...env },
  });
}

/**
 * Runs a command to its end without blocking this worker, so that independent commands run
 * side by side (`await Promise.all([...])`): what `runCli` returns, as a promise.
 */
export function runCliAsync(
  args: string[],
  /** Added to this process's environment; a variable given as undefined is left out. */
  env: Record<string, string | undefined> = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const { child, text } = spawnCli(args, env);
  const killer = setTimeout(() => child.kill('SIGKILL'), 45_000);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (status) => {
      clearTimeout(killer);
      running.delete(child);
      resolve({ status, ...text });
    });
  });
}

/** `badge-sim` started in a child process, killed when this worker exits; its output as it comes. */
function spawnCli(args: string[], env: Record<string, string | undefined>, cwd?: string) {
  const child = spawn(process.execPath, [BIN, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...NOT_CI, ...env },
    cwd,
  });
  running.add(child);
  const text = { stdout: '', stderr: '' };
  child.stdout!.on('data', (chunk) => {
    text.stdout += chunk;
  });
  child.stderr!.on('data', (chunk) => {
    text.stderr += chunk;
  });
  return { child, text };
}
