/**
 * How long the engine keeps what happened (docs/decisions.md H1, H2): events at least 7 days
 * (the spec's default window), and ended tasks and transcript lines as long as events: a task
 * that ended more than 7 days ago is forgotten, as if it never existed.
 */
export const EVENT_RETENTION_MS = 7 * 24 * 3600 * 1000;
export const TASK_RETENTION_MS = EVENT_RETENTION_MS;
export const TRANSCRIPT_RETENTION_MS = EVENT_RETENTION_MS;
