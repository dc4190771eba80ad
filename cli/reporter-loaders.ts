import type { Reporter, ReporterName } from '../scenarios/reports/index.ts';

/**
 * Each reporter by the name `--reporter` takes, loaded only when chosen (JUnit brings an XML
 * library, HTML its page), so `run --help` reads the names and loads none. The same table as
 * scenarios/reports/index.ts, which the library and its tests use: `satisfies` keeps the names
 * the same.
 */
export const REPORTER_MODULES = {
  console: async () =>
    (await import('../scenarios/reports/console.reporter.ts')).createConsoleReporter,
  junit: async () => (await import('../scenarios/reports/junit.reporter.ts')).createJunitReporter,
  json: async () => (await import('../scenarios/reports/json.reporter.ts')).createJsonReporter,
  html: async () => (await import('../scenarios/reports/html.reporter.ts')).createHtmlReporter,
} satisfies Record<
  ReporterName,
  () => Promise<(stream?: NodeJS.WritableStream, options?: { output?: string }) => Reporter>
>;

/** The names `--reporter` takes. */
export const REPORTER_NAMES = Object.keys(REPORTER_MODULES) as ReporterName[];
