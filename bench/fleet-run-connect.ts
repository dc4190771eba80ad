/**
 * How bench/fleet-run.ts waits for its fleet to connect: `waitUntilConnected`, with a sampler
 * beside it that notes when 50, 90, 99 and 100 % were online and writes the progress line.
 */
import type { FleetHandle } from '../simulator/fleet-options.ts';
import type { WorkerFleetHandle } from '../simulator/fleet-workers.ts';
import {
  BADGES,
  CONNECT_TIMEOUT_MS,
  PROGRESS_EVERY,
  QUIET_EVERY,
  SAMPLE_MS,
} from './fleet-run-config.ts';
import { progress, progressEnd, progressLine, seconds } from './fleet-run-format.ts';

export interface ConnectResult {
  /** ms after t0 when the sampler first saw every badge online. */
  allAt: number | undefined;
  /** ms after t0 when `waitUntilConnected` resolved or gave up. */
  waitedAt: number;
  milestones: [number, number][];
  error?: string;
}

/** `waitUntilConnected`, with a sampler beside it for milestones and the progress line. */
export async function waitForConnections(
  handle: FleetHandle | WorkerFleetHandle,
  t0: number,
): Promise<ConnectResult> {
  const total = BADGES;
  const marks = [50, 90, 99, 100];
  const milestones: [number, number][] = [];
  let samples = 0;
  let allAt: number | undefined;
  let shown = -1;
  const sample = () => {
    const online = handle.connectedCount();
    const at = performance.now() - t0;
    while (marks.length > 0 && online >= Math.ceil((marks[0]! / 100) * total)) {
      milestones.push([marks.shift()!, at]);
    }
    if (online === total && allAt === undefined) allAt = at;
    const due = samples % PROGRESS_EVERY === 0;
    const changed = online !== shown || process.stderr.isTTY || samples % QUIET_EVERY === 0;
    samples++;
    if ((due && changed) || (online === total && online !== shown)) {
      shown = online;
      progressLine(`connected ${online}/${total} after ${seconds(at)}`);
    }
  };
  // Bounded: cleared when the wait ends, and the wait itself is bounded by CONNECT_TIMEOUT_MS.
  const sampler = setInterval(sample, SAMPLE_MS);
  let error: string | undefined;
  try {
    await handle.waitUntilConnected(total, CONNECT_TIMEOUT_MS);
  } catch (e) {
    error = e instanceof Error ? e.message : String(e);
  } finally {
    clearInterval(sampler);
  }
  const waitedAt = performance.now() - t0;
  sample();
  progressEnd();
  if (error) progress(`waitUntilConnected: ${error}`);
  return { allAt, waitedAt, milestones, error };
}
