/**
 * Whether a Docker engine answers here. Container tests need one: under CI=true its absence
 * fails the run (.ci/run starts dockerd); on a laptop without one they are left out, saying why.
 */
import { spawnSync } from 'node:child_process';

export function dockerUnavailable(): string | undefined {
  const info = spawnSync('docker', ['info', '--format', '{{.ServerVersion}}'], {
    encoding: 'utf8',
    timeout: 10_000,
  });
  if (info.error) return `no docker command (${(info.error as NodeJS.ErrnoException).code})`;
  if (info.status !== 0)
    return `no Docker engine answers (${info.stderr.trim().split('\n')[0] || `docker info exit ${info.status}`})`;
  return undefined;
}

export function imageExists(image: string): boolean {
  return spawnSync('docker', ['image', 'inspect', image], { stdio: 'ignore' }).status === 0;
}
