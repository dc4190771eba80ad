/** What every `npm run bench:*` script shares: environment lines, numbers, percentiles, child servers. */
import type { ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import os from 'node:os';
import { createInterface } from 'node:readline';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Fixtures } from '../fixtures/fixtures.schema.ts';
import { CONTROL_PREFIX } from '../protocol/control-api.schema.ts';

/** The installed version of a package, or `?`. */
function packageVersion(name: string): string {
  try {
    return (createRequire(import.meta.url)(`${name}/package.json`) as { version: string }).version;
  } catch {
    return '?';
  }
}

/** The Markdown lines that say where and with what a bench ran. */
export function environmentLines(packages: string[], withMemory = false): string {
  const cpus = os.cpus();
  const memory = withMemory ? `, ${(os.totalmem() / 1024 / 1024).toFixed(1)} MB RAM` : '';
  return [
    `- date: ${new Date().toISOString()}`,
    `- node ${process.version}, ${packages.map((p) => `${p} ${packageVersion(p)}`).join(', ')}`,
    `- ${cpus.length} × ${cpus[0]?.model ?? 'unknown CPU'}, ${os.platform()} ${os.release()}${memory}`,
  ].join('\n');
}

/** The 1-minute load average, for "was the machine quiet?". */
export function loadavg(): string {
  return os.loadavg()[0]!.toFixed(2);
}

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

/** A positive number from the environment (BENCH_*), or the default; says what to fix. */
export function readNumber(name: string, fallback: number, max: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0 || value > max) {
    throw new Error(`${name} must be a number in (0, ${max}], got '${text}'`);
  }
  return value;
}

/**
 * Waits for the line of a child's stdout that `pick` finds a value in (it sees every line,
 * also after, so the pipe keeps draining); fails if the child errors, exits first, or is
 * silent about it for `timeoutMs`.
 */
export function awaitChildLine<T>(
  child: ChildProcess,
  pick: (line: string) => T | undefined,
  what: { name: string; expected: string; timeoutMs: number },
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(error);
    };
    const timer = setTimeout(
      () => fail(new Error(`${what.name} printed no ${what.expected} in ${what.timeoutMs} ms`)),
      what.timeoutMs,
    );
    child.once('error', fail);
    child.once('exit', (code, signal) =>
      fail(new Error(`${what.name} exited before it was ready (${signal ?? `code ${code}`})`)),
    );
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const value = pick(line);
      if (value !== undefined && !settled) {
        settled = true;
        clearTimeout(timer);
        resolve(value);
      }
    });
  });
}

/** SIGTERM, then SIGKILL if the child has not exited within 5 s. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

/** What a bench reads of a process's memory, in bytes. */
export interface ProcessMemory {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
}

/** The `gc` function, exposed at run time when node did not start with --expose-gc. */
export function exposeGc(): (() => void) | undefined {
  const existing = (globalThis as { gc?: () => void }).gc;
  if (existing) return existing;
  try {
    v8.setFlagsFromString('--expose-gc');
    return runInNewContext('gc') as () => void;
  } catch {
    return undefined;
  }
}

/** This process's memory after a full GC (twice: the first may leave work for finalisers). */
export function memoryAfterGc(gc: (() => void) | undefined): ProcessMemory {
  gc?.();
  gc?.();
  const { rss, heapUsed, heapTotal, external } = process.memoryUsage();
  return { rss, heapUsed, heapTotal, external };
}

/** The group every bench alerts: all devices of the first account. */
const EVERYONE = 'Everyone';

/**
 * Loads the stub's fixtures again with one more group, `Everyone`, holding every device of the
 * first account, and returns the groups to alert. Beyond the stub's body limit (about 11,000
 * devices) the generated groups instead, which together hold every device.
 */
export async function putEveryoneGroup(url: string, fixtures: Fixtures): Promise<string[]> {
  const account = fixtures.accounts[0]!;
  const withEveryone: Fixtures = {
    accounts: [
      {
        ...account,
        groups: [
          ...account.groups.filter((g) => g.name !== EVERYONE),
          { id: 'bench-everyone', name: EVERYONE, members: account.devices.map((d) => d.id) },
        ],
      },
      ...fixtures.accounts.slice(1),
    ],
  };
  const body = JSON.stringify(withEveryone);
  // Beyond the limit the stub may close the connection before the body is sent: not tried.
  if (Buffer.byteLength(body) > FIXTURES_BODY_LIMIT) return generatedGroups(account);
  const put = await fetch(`${url}${CONTROL_PREFIX}/fixtures`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body,
  });
  const answer = await put.text();
  if (put.ok) return [EVERYONE];
  if (put.status !== 413) {
    throw new Error(
      `PUT ${CONTROL_PREFIX}/fixtures (${body.length} bytes) answered ${put.status}: ${answer.slice(0, 300)}`,
    );
  }
  return generatedGroups(account);
}

/** The stub's body limit (1 MiB). */
const FIXTURES_BODY_LIMIT = 1024 * 1024;

/** The generated groups of an account, which together hold every device. */
function generatedGroups(account: Fixtures['accounts'][number]): string[] {
  const covered = new Set(account.groups.flatMap((g) => g.members));
  if (account.devices.some((d) => !covered.has(d.id))) {
    throw new Error('the fixtures are too large to add a group, and their groups miss devices');
  }
  return account.groups.map((g) => g.name);
}

/**
 * A bench's child never outlives the bench, however it ends (short of SIGKILL): `stop` runs on
 * exit, and on SIGINT or SIGTERM (after `before`, e.g. ending a progress line) before exiting.
 */
export function stopOnExit(stop: () => void, before: () => void = () => {}): void {
  process.once('exit', stop);
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    process.once(signal, () => {
      before();
      stop();
      process.exit(code);
    });
  }
}
