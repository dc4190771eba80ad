/**
 * The size and goals of one bench/fleet-run.ts run, from its environment (see that file).
 */
import { exposeGc, readNumber } from './bench-support.ts';

export const BADGES = Math.round(readNumber('BENCH_BADGES', 10_000, 100_000));
export const WORKERS = Number(process.env.BENCH_WORKERS ?? 0);
export const CONNECT_TIMEOUT_MS = readNumber('BENCH_CONNECT_TIMEOUT_S', 120, 600) * 1000;
/**
 * How long both processes sit idle, before the fleet and once it is online, for their settled
 * memory. Right after the connects, much of the RSS is heap V8 has committed for the handshakes'
 * garbage and not yet handed back; its memory reducer does that after some seconds idle (about 20
 * here, 55 s after a burst of plays). The goals are judged on the settled figures; both are
 * printed. 0: not measured.
 */
export const SETTLE_S =
  process.env.BENCH_SETTLE_S === '0' ? 0 : Math.round(readNumber('BENCH_SETTLE_S', 90, 600));
/** How long the alert may take to reach every badge before the bench stops waiting. */
export const PLAY_WAIT_MS = 30_000;
/** How long the stub may take to print its banner (generating 10,000 devices takes a few s). */
export const START_TIMEOUT_MS = 120_000;
export const SAMPLE_MS = 50;
export const PROGRESS_EVERY = 10; // samples: a progress line every 0.5 s
/** Off a terminal, an unchanged count is written again only this often (samples: 10 s). */
export const QUIET_EVERY = 200;

/** The goals (issue 17): the POST answers at once, every badge plays soon, memory per badge. */
export const POST_GOAL_MS = 20;
export const PLAY_GOAL_MS = BADGES > 10_000 ? 1500 : 300;
export const FLEET_MEMORY_GOAL_KB = 12;
export const STUB_MEMORY_GOAL_KB = 8;

/** A full GC, where node runs with --expose-gc. */
export const gc = exposeGc();
