/**
 * What `badge-sim run --coverage` counts over a run of scenarios (decisions CV1–CV4): the badge
 * machine's transitions its badges took, the alert model's named transitions its stubs' histories
 * show, and the rows of docs/decisions.md its passing scenarios name.
 */
import { type ServiceHistory, transitionsIn } from '../../model/observe.ts';
import {
  describeTransition,
  type LifecycleTransition,
  lifecycleTransitions,
} from '../../model/transitions.ts';
import { BadgeCoverage, type TransitionCoverageReport } from '../../simulator/badge-coverage.ts';
import { type DecisionRow, decisionRows } from '../format/decision-rows.ts';

/** Which rows of docs/decisions.md the run's scenarios name. */
export interface DecisionCoverageReport {
  rows: number;
  touched: number;
  /** Whole per cent, rounded down: 100 only when nothing is missing. */
  percent: number;
  /** The rows no passing scenario of the run names, in the file's order. */
  missing: DecisionRow[];
}

/** The JSON report's `coverage`. */
export interface CoverageReport {
  badge_machine: TransitionCoverageReport;
  alert_model: TransitionCoverageReport;
  decisions: DecisionCoverageReport;
}

/** Collects the coverage of a run; give it to `runSuite` (or `runScenario`) as `coverage`. */
export class RunCoverage {
  /** The badges' transitions: give `badges.inspect` to every badge of the run. */
  readonly badges = new BadgeCoverage();
  readonly #alert = new Set<LifecycleTransition>();
  readonly #decisions = new Set<string>();

  /** A scenario's stub history: the alert model's transitions it shows. */
  addHistory(history: ServiceHistory): void {
    for (const id of transitionsIn(history)) this.#alert.add(id);
  }

  /** The decision rows a passing scenario names. */
  addDecisions(ids: readonly string[]): void {
    for (const id of ids) this.#decisions.add(id);
  }

  report(): CoverageReport {
    const all = lifecycleTransitions();
    const missing = all.filter((id) => !this.#alert.has(id)).map(describeTransition);
    const rows = decisionRows();
    const untouched = rows.filter((row) => !this.#decisions.has(row.id));
    return {
      badge_machine: this.badges.report(),
      alert_model: share(all.length, missing),
      decisions: {
        rows: rows.length,
        touched: rows.length - untouched.length,
        percent: percent(rows.length - untouched.length, rows.length),
        missing: untouched.map((row) => ({ ...row })),
      },
    };
  }
}

function share(transitions: number, missing: string[]): TransitionCoverageReport {
  const exercised = transitions - missing.length;
  return { transitions, exercised, percent: percent(exercised, transitions), missing };
}

function percent(part: number, whole: number): number {
  return whole === 0 ? 100 : Math.floor((100 * part) / whole);
}

/**
 * The coverage of shards run apart, as one run's (`merge-reports`): what any shard exercised
 * counts, so what is missing is what every shard missed. Reports of one badge-sim version.
 */
export function mergeCoverage(reports: readonly CoverageReport[]): CoverageReport | undefined {
  if (reports.length === 0) return undefined;
  const missedByAll = <T>(lists: T[][], key: (t: T) => string): T[] =>
    lists[0]!.filter((item) => lists.every((list) => list.some((o) => key(o) === key(item))));
  const transitions = (pick: (r: CoverageReport) => TransitionCoverageReport) => {
    const first = pick(reports[0]!);
    return share(
      first.transitions,
      missedByAll(
        reports.map((r) => pick(r).missing),
        (k) => k,
      ),
    );
  };
  const decisions = reports[0]!.decisions;
  const missing = missedByAll(
    reports.map((r) => r.decisions.missing),
    (row) => row.id,
  );
  return {
    badge_machine: transitions((r) => r.badge_machine),
    alert_model: transitions((r) => r.alert_model),
    decisions: {
      rows: decisions.rows,
      touched: decisions.rows - missing.length,
      percent: percent(decisions.rows - missing.length, decisions.rows),
      missing,
    },
  };
}
