import type { Reporter } from '../runner/reporter.ts';
import { createConsoleReporter } from './console.reporter.ts';
import { createHtmlReporter } from './html.reporter.ts';
import { createJsonReporter } from './json.reporter.ts';
import { createJunitReporter } from './junit.reporter.ts';

/** Every reporter by the name `--reporter` takes. */
export const REPORTERS = {
  console: createConsoleReporter,
  junit: createJunitReporter,
  json: createJsonReporter,
  html: createHtmlReporter,
} as const satisfies Record<string, () => Reporter>;

export type ReporterName = keyof typeof REPORTERS;
export type { Reporter } from '../runner/reporter.ts';
