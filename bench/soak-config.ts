/**
 * The size and goal of a bench/soak.bench.ts run, from its flags and environment (see that file).
 */
import { parseArgs } from 'node:util';
import { readNumber } from './bench-support.ts';
import { GOALS } from './goals.ts';

const HOUR_MS = 3600 * 1000;
/** A round of alerts, and what it lasts on the virtual clock. */
export const ROUND_MS = 5 * 60 * 1000;
export const ROUNDS_AN_HOUR = HOUR_MS / ROUND_MS;
export const START_TIMEOUT_MS = 120_000;
export const CONNECT_TIMEOUT_MS = 120_000;
/**
 * The stub runs as the image runs it (decision H9): glibc keeps at most 2 malloc arenas, so
 * memory freed by retention leaves RSS. `MALLOC_ARENA_MAX=` (empty) in the environment
 * measures glibc's default instead.
 */
export const STUB_MALLOC_ARENA_MAX = process.env.MALLOC_ARENA_MAX ?? '2';

/** The goal (issue 28, point 5) and the tolerance of "flat" (see the header). */
export const GOAL_BADGES = 1_000;
export const GOAL_HOURS = 24;
export const FLAT_MIB_PER_HOUR = GOALS.soakMiBPerHour;

export const { values: flags } = parseArgs({
  options: {
    badges: { type: 'string' },
    hours: { type: 'string' },
    warmup: { type: 'string' },
    reset: { type: 'boolean' },
  },
  allowPositionals: false,
});

export const BADGES = Math.round(setting('badges', 'BENCH_BADGES', GOAL_BADGES, 20_000));
export const HOURS = Math.round(setting('hours', 'BENCH_HOURS', GOAL_HOURS, 24 * 14));
export const WARMUP_HOURS = warmupHours();
export const ROUNDS = HOURS * ROUNDS_AN_HOUR;
export const TIMEOUT_MS = readNumber('BENCH_TIMEOUT_S', 3_600, 86_400) * 1000;
export const EXTRA_STUB_ARGS = (process.env.BENCH_STUB_ARGS ?? '').split(/\s+/).filter(Boolean);

function setting(flag: 'badges' | 'hours' | 'warmup', env: string, fallback: number, max: number) {
  const text = flags[flag];
  if (text === undefined) return readNumber(env, fallback, max);
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0 || value > max) {
    throw new Error(`--${flag} must be a number in (0, ${max}], got '${text}'`);
  }
  return value;
}

function warmupHours(): number {
  const value = Math.round(
    setting('warmup', 'BENCH_WARMUP', Math.min(12, Math.floor(HOURS / 2)), 24 * 14),
  );
  if (value >= HOURS - 1)
    throw new Error(`--warmup (${value} h) must leave at least 2 hours of the ${HOURS} to measure`);
  return value;
}
