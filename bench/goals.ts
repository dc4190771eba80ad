/**
 * The speed goals every bench judges itself by (issue 28, "Speed is a feature"), in one place:
 * a bench prints PASS or FAIL against these and never against a looser goal of its own.
 * Ratios are measured side by side in one run (a stub route beside a bare fastify route, a
 * command beside `node -e 0`), so a slower machine moves both sides.
 *
 * `GUARD` holds the CI guard's floors (`npm run bench:guard`, run by `.ci/run`): well below the
 * goals, with margin for a noisy shared machine, so that only a real regression — the tenfold
 * kind — fails the build.
 */
export const GOALS = {
  /** GET events (100 events) against a bare route sending the same payload serialised once. */
  getEventsVsPrebuilt: 0.8,
  /** POST alerts against a bare fastify POST. */
  postAlertsVsBare: 0.6,
  /** The built-in catalogue, in one process on the virtual clock, median wall time. */
  catalogueMs: 1_000,
  /** One 300 s default-timeout scenario with 3 badges, median wall time. */
  timeoutScenarioMs: 10,
  /** `badge-sim --version` and `--help` from the installed package, wall time. */
  cliStartMs: 150,
  /** `badge-sim run one.scenario.yaml` from the installed package, end to end. */
  cliRunOneMs: 400,
  /** `badge-sim stub` from the installed package (and the image) to its first 200. */
  stubStartMs: 400,
  /** The stub's RSS once started and idle. */
  stubIdleRssMiB: 100,
  /** The stub's RSS after the HTTP load and a reset, against idle. */
  stubRssAfterLoadRatio: 1.2,
  /**
   * 1,000 badges and their stub over 24 h of virtual time hold flat memory: heap used and RSS
   * each grow less than this per virtual hour after the warm-up (a leak of one 16-byte object
   * per badge per alert would grow 0.37 MiB an hour at bench:soak's load).
   */
  soakMiBPerHour: 0.25,
  /** First-play p99 of a fan-out to 10,000 badges, against the floor measured beside it. */
  fanOutVsFloor: 1.5,
  /** A fleet of 1,000 badges: its snapshot taken, and restored, each (issue 32, point 7). */
  fleetSnapshotMs: 200,
  /** The whole world's snapshot file (stub and badges), in MiB (issue 32, point 7). */
  worldSnapshotMiB: 50,
} as const;

export const GUARD = {
  getEventsVsPrebuilt: 0.4,
  postAlertsVsBare: 0.3,
  catalogueMs: 3_000,
  cliVersionMs: 500,
} as const;

/** `**PASS**` or `**FAIL**`, as every bench prints a verdict. */
export function verdict(ok: boolean): string {
  return ok ? '**PASS**' : '**FAIL**';
}
