/**
 * What `npm run bench:startup` measures of one process: its wall time from spawn to exit (or
 * to a first 200), its CPU time and peak RSS (told by a preload at its exit), and the RSS of a
 * process still running.
 */
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';

export interface ProcessFigures {
  wallMs: number;
  /** User + system CPU time of the process, in ms. */
  cpuMs: number;
  /** Its peak resident set, in MiB. */
  maxRssMiB: number;
}

/**
 * Loaded into each measured process by NODE_OPTIONS (`node -e 0` too, so the floor pays the
 * same): at exit it writes what `process.resourceUsage()` says of the whole process.
 */
const USAGE_PRELOAD = `import { writeFileSync } from 'node:fs';
const file = process.env.BENCH_STARTUP_USAGE;
if (file) process.once('exit', () => {
  const usage = process.resourceUsage();
  writeFileSync(file, JSON.stringify({ cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000, maxRssKiB: usage.maxRSS }));
});
`;

export class ProcessMeter {
  private readonly preload: string;
  private count = 0;

  constructor(private readonly work: string) {
    this.preload = join(work, 'usage-preload.mjs');
    writeFileSync(this.preload, USAGE_PRELOAD);
  }

  /** The environment of a measured process: a user's (PATH, HOME) and the preload. */
  env(usageFile: string): NodeJS.ProcessEnv {
    return {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NO_COLOR: '1',
      NODE_OPTIONS: `--import=${this.preload}`,
      BENCH_STARTUP_USAGE: usageFile,
    };
  }

  usageFile(): string {
    return join(this.work, `usage-${++this.count}.json`);
  }

  /** Runs a command to its end (at most `timeoutMs`); fails on a non-zero exit. */
  async run(
    command: string,
    args: string[],
    cwd: string,
    timeoutMs = 60_000,
  ): Promise<ProcessFigures> {
    const usageFile = this.usageFile();
    const started = performance.now();
    const child = spawn(command, args, {
      cwd,
      env: this.env(usageFile),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr!.on('data', (chunk) => {
      output += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (status) => resolve(status));
    });
    const wallMs = performance.now() - started;
    clearTimeout(timer);
    if (code !== 0) {
      throw new Error(`${command} ${args.join(' ')} exited ${code}:\n${output.slice(-2000)}`);
    }
    return { wallMs, ...this.readUsage(usageFile) };
  }

  readUsage(usageFile: string): { cpuMs: number; maxRssMiB: number } {
    const usage = JSON.parse(readFileSync(usageFile, 'utf8')) as {
      cpuMs: number;
      maxRssKiB: number;
    };
    rmSync(usageFile, { force: true });
    return { cpuMs: usage.cpuMs, maxRssMiB: usage.maxRssKiB / 1024 };
  }
}

/** A port free on 127.0.0.1 now (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** One GET; its status, or 0 when nothing answers (yet). */
export function statusOf(url: string, timeoutMs = 1_000): Promise<number> {
  return new Promise((resolve) => {
    const request = get(url, { agent: false, timeout: timeoutMs }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.once('timeout', () => request.destroy());
    request.once('error', () => resolve(0));
  });
}

/**
 * Asks `url` every few ms until it answers 200: the ms since `started`. Fails after
 * `timeoutMs`, or when `exited()` says the server is gone.
 */
export async function untilOk(
  url: string,
  started: number,
  exited: () => boolean,
  timeoutMs = 30_000,
): Promise<number> {
  for (;;) {
    if ((await statusOf(url)) === 200) return performance.now() - started;
    if (exited()) throw new Error(`the server of ${url} exited before it answered 200`);
    if (performance.now() - started > timeoutMs)
      throw new Error(`${url}: no 200 in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 3));
  }
}

/** The resident set of a running process, and its peak so far, in MiB (Linux's /proc). */
export function rssOf(pid: number): { rssMiB: number; peakMiB: number } {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    // No /proc (macOS): ps has the resident set, not the peak.
    const kib = Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }));
    return { rssMiB: kib / 1024, peakMiB: Number.NaN };
  }
  const kib = (name: string) =>
    Number(status.match(new RegExp(`${name}:\\s+(\\d+)`))?.[1] ?? Number.NaN);
  return { rssMiB: kib('VmRSS') / 1024, peakMiB: kib('VmHWM') / 1024 };
}

/** The CPU time (user + system) a running process has used so far, in ms (Linux's /proc). */
export function cpuOf(pid: number): number {
  try {
    // Fields 14 and 15 (utime, stime), in clock ticks (100 a second on Linux), after the name.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

export const median = (values: number[]) => {
  const sorted = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** Waits `ms` of real time (a bench waits for a server to be idle; tests never do). */
export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
