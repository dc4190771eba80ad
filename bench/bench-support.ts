/** What every `npm run bench:*` script shares: environment lines, numbers, percentiles. */
import { createRequire } from 'node:module';
import os from 'node:os';

/** The installed version of a package, or `?`. */
export function packageVersion(name: string): string {
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
