/** How far one `repro --search` goes: what it says in its help and when it stops. */

/** Runs one search may make at most, by default (each is one scenario run). */
export const SEARCH_MAX_RUNS = 200;
/**
 * Real time one search may take: no new run starts past it (an export of 100,000 events runs
 * for most of a minute a variant). The variants found so far are reported.
 */
export const SEARCH_MAX_MS = 120_000;
