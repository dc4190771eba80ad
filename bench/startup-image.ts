/**
 * The image's start, for `npm run bench:startup`, where a Docker engine answers: from
 * `docker start` of a created container to the stub's first 200, beside the same image running
 * a bare Node HTTP server (what docker and Node cost before any badge-sim code runs).
 */
import { spawn, spawnSync } from 'node:child_process';
import { freePort, median, pause, untilOk } from './startup-measure.ts';
import type { InstalledPackage } from './startup-package.ts';

export interface ImageFigures {
  tag: string;
  floorMs: number;
  firstOkMs: number;
  idleRssMiB: number;
}

const BUILT_TAG = 'badge-sim-startup-bench:latest';
/** The base CI builds from this machine's own Node (container/build-local-base.sh). */
const LOCAL_BASE = 'badge-sim/node-base:local';
const BARE_SERVER =
  "require('node:http').createServer((q, s) => s.end('ok')).listen(8080, '0.0.0.0')";

function docker(args: string[], timeoutMs = 60_000): string {
  const result = spawnSync('docker', args, { encoding: 'utf8', timeout: timeoutMs });
  if (result.error || result.status !== 0) {
    throw new Error(`docker ${args.join(' ')}: ${result.error?.message ?? result.stderr}`);
  }
  return result.stdout.trim();
}

function dockerAnswers(): boolean {
  const result = spawnSync('docker', ['info'], { encoding: 'utf8', timeout: 10_000 });
  return !result.error && result.status === 0;
}

/** BENCH_STARTUP_IMAGE, or the image built from the installed package's own Dockerfile. */
function imageTag(pkg: InstalledPackage): string {
  const given = process.env.BENCH_STARTUP_IMAGE;
  if (given) return given;
  const base =
    process.env.BENCH_STARTUP_NODE_IMAGE ??
    (spawnSync('docker', ['image', 'inspect', LOCAL_BASE]).status === 0 ? LOCAL_BASE : undefined);
  process.stderr.write(`docker build of the installed package (base ${base ?? 'the default'})…\n`);
  docker(
    [
      'build',
      '-q',
      '-t',
      BUILT_TAG,
      ...(base ? ['--build-arg', `NODE_IMAGE=${base}`] : []),
      pkg.installed,
    ],
    600_000,
  );
  return BUILT_TAG;
}

/** Creates a container, times `docker start` to its first 200, then runs `after` and removes it. */
async function startToOk<T>(
  createArgs: string[],
  path: string,
  after: (id: string) => T,
): Promise<{ ms: number; value: T }> {
  const port = await freePort();
  const id = docker(['create', '-p', `127.0.0.1:${port}:8080`, ...createArgs]);
  try {
    const started = performance.now();
    const starting = spawn('docker', ['start', id], { stdio: 'ignore' });
    let failed = false;
    starting.once('exit', (code) => {
      failed = code !== 0;
    });
    const ms = await untilOk(`http://127.0.0.1:${port}${path}`, started, () => failed, 60_000);
    await pause(1_000);
    return { ms, value: after(id) };
  } finally {
    docker(['rm', '-f', id]);
  }
}

/** The RSS of the container's PID 1 (the stub), read with the image's own node. */
function pid1RssMiB(id: string): number {
  const status = docker([
    'exec',
    id,
    'node',
    '-e',
    "process.stdout.write(require('node:fs').readFileSync('/proc/1/status', 'utf8'))",
  ]);
  return Number(status.match(/VmRSS:\s+(\d+)/)?.[1] ?? Number.NaN) / 1024;
}

/** The image's figures, medians of `repeats` starts; undefined where no Docker engine answers. */
export async function measureImage(
  pkg: InstalledPackage,
  repeats: number,
): Promise<ImageFigures | undefined> {
  if (!dockerAnswers()) return undefined;
  const tag = imageTag(pkg);
  const floor: number[] = [];
  const firstOk: number[] = [];
  const rss: number[] = [];
  for (let round = 1; round <= repeats; round++) {
    process.stderr.write(`image round ${round}/${repeats}\n`);
    floor.push(
      (await startToOk(['--entrypoint', 'node', tag, '-e', BARE_SERVER], '/', () => 0)).ms,
    );
    const stub = await startToOk([tag], '/_stub/health', pid1RssMiB);
    firstOk.push(stub.ms);
    rss.push(stub.value);
  }
  return { tag, floorMs: median(floor), firstOkMs: median(firstOk), idleRssMiB: median(rss) };
}
