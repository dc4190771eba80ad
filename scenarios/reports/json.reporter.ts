import type { Reporter, RunSummary } from '../runner/reporter.ts';

/**
 * Everything that happened, as JSON. No wall-clock time in it: the same scenarios and seed
 * give byte-identical reports (task ids, event ids, timestamps, transcripts).
 */
export function createJsonReporter(): Reporter {
  return {
    onEnd(summary: RunSummary) {
      return `${JSON.stringify(
        {
          passed: summary.passed,
          failed: summary.failed,
          scenarios: summary.reports,
          loadErrors: summary.loadErrors,
          ...(summary.coverage ? { coverage: summary.coverage } : {}),
        },
        null,
        2,
      )}\n`;
    },
  };
}
