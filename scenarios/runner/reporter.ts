/**
 * A reporter is an object of optional hooks (the vitest and Playwright shape); the runner
 * calls them in order. Reporters are registered in one map by name.
 */
import type { CoverageReport } from './coverage.ts';
import type { ScenarioReport } from './run-scenario.ts';

export interface RunSummary {
  passed: number;
  failed: number;
  reports: ScenarioReport[];
  /** Files that could not be loaded: each counts as a failure. */
  loadErrors: { source: string; message: string }[];
  /**
   * With `--coverage`: which transitions of the badge machine and of the alert model the run
   * exercised, and which decision rows its scenarios name.
   */
  coverage?: CoverageReport;
}

export interface Reporter {
  onStart?(total: number): void;
  onScenarioStart?(index: number, total: number, name: string): void;
  onScenarioEnd?(report: ScenarioReport, wallMs: number): void;
  onLoadError?(source: string, message: string): void;
  /** Returns the report's text when it writes one (JUnit, JSON). */
  onEnd?(summary: RunSummary): string | undefined;
}

/** The run in one line, as the console ends with it and `run -o FILE` says it on stderr. */
export function summaryLine(summary: Pick<RunSummary, 'passed' | 'failed'>): string {
  return summary.failed === 0
    ? 'all scenarios passed'
    : `${summary.failed} of ${summary.passed + summary.failed} scenarios failed`;
}
