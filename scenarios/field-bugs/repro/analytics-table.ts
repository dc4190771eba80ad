/**
 * The columns of the analytics listing, as the original command-line tool prints them: what
 * `badge-sim analytics` writes (cli/analytics.command.ts) and `badge-sim repro` reads back
 * (scenarios/field-bugs/repro/read-export.ts). One list, so the two cannot drift apart.
 */
export const ANALYTICS_TABLE_COLUMNS = [
  'WORKFLOW ID',
  'TYPE',
  'CATEGORY',
  'INSTANCE ID',
  'TIMESTAMP',
  'USER ID',
  'CONTENT',
] as const;
