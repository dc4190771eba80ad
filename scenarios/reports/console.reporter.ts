import { clearLine } from 'node:readline';
import { styleText } from 'node:util';
import type { Failure } from '../checks/expectations.ts';
import type { CoverageReport } from '../runner/coverage.ts';
import { type Reporter, type RunSummary, summaryLine } from '../runner/reporter.ts';
import type { ScenarioReport } from '../runner/run-scenario.ts';

// Decided here, not by styleText's own check (which Node 20 releases differ on): colour on a
// terminal unless NO_COLOR is set.
const color = process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (format: Parameters<typeof styleText>[0]) => (text: string) =>
  color ? styleText(format, text, { validateStream: false }) : text;
const green = paint('green');
const red = paint('red');
const dim = paint('dim');
const bold = paint('bold');
const yellow = paint('yellow');

/** Back to the start of the progress line on stderr, and blank it. */
const rewindProgress = () => {
  process.stderr.write('\r');
  clearLine(process.stderr, 1);
};

/** What the run noticed that is not a failure (a badge the clock went on without), one a line. */
export function formatNotes(report: ScenarioReport): string[] {
  return (report.notes ?? []).map((note) => `  ${yellow('!')} ${note}`);
}

/** Expected and actual side by side, the first difference marked with `>`. */
export function formatFailure(failure: Failure): string {
  const lines = [`  ${bold(failure.what)}: ${failure.message}`];
  // A scenario that could not run (a device it names is missing, …) has nothing to compare.
  if (failure.expected.length === 0 && failure.actual.length === 0) return lines[0]!;
  const width = Math.min(60, Math.max(8, ...failure.expected.map((l) => l.length)));
  const rows = Math.max(failure.expected.length, failure.actual.length);
  lines.push(`      ${'expected'.padEnd(width)}   actual`);
  for (let i = 0; i < rows; i++) {
    const mark = i === failure.firstDifference ? red('>') : ' ';
    const expected = (failure.expected[i] ?? (i < failure.expected.length ? '' : '—')).padEnd(
      width,
    );
    const actual = failure.actual[i] ?? '—';
    const line = `    ${mark} ${expected}   ${actual}`;
    lines.push(i === failure.firstDifference ? red(line) : line);
  }
  return lines.join('\n');
}

export function formatReport(report: ScenarioReport): string {
  const lines = [
    `${red('✗')} ${report.name} ${dim(`(${report.source})`)}`,
    `  proves: ${report.proves}`,
    ...formatNotes(report),
  ];
  for (const failure of report.failures) lines.push(formatFailure(failure));
  lines.push(`  seed ${report.seed}; run it again: ${report.rerun}`);
  if (report.trace !== undefined) lines.push(`  trace: ${report.trace}`);
  return lines.join('\n');
}

/** One line a scenario, the failures in full, a progress line on a terminal. */
/**
 * The coverage of `--coverage` in words: the three shares on one line, then what is missing:
 * each transition never taken, and the decision rows no scenario names, their ids grouped by
 * prefix (the JSON and HTML reports give each row's case).
 */
export function coverageText(coverage: CoverageReport): string {
  const { badge_machine: badge, alert_model: alert, decisions } = coverage;
  const lines = [
    `\ncoverage: badge machine ${badge.exercised}/${badge.transitions} transitions (${badge.percent} %), alert model ${alert.exercised}/${alert.transitions} (${alert.percent} %), decision rows ${decisions.touched}/${decisions.rows} (${decisions.percent} %)`,
  ];
  if (badge.missing.length > 0)
    lines.push('  badge machine, never taken:', ...badge.missing.map((key) => `    ${key}`));
  if (alert.missing.length > 0)
    lines.push('  alert model, never taken:', ...alert.missing.map((key) => `    ${key}`));
  if (decisions.missing.length > 0) {
    const groups = new Map<string, string[]>();
    for (const { id } of decisions.missing) {
      const prefix = id.replace(/[0-9].*$/, '');
      groups.set(prefix, [...(groups.get(prefix) ?? []), id]);
    }
    lines.push(
      '  decision rows no scenario names:',
      ...[...groups.values()].map((ids) => `    ${ids.join(' ')}`),
    );
  }
  return `${lines.join('\n')}\n`;
}

export function createConsoleReporter(out: NodeJS.WritableStream = process.stdout): Reporter {
  const progress = process.stderr.isTTY;
  const clear = () => progress && rewindProgress();
  return {
    onScenarioStart(index, total, name) {
      if (!progress) return;
      rewindProgress();
      process.stderr.write(`[${index + 1}/${total}] ${name}`);
    },
    onScenarioEnd(report, wallMs) {
      clear();
      if (report.passed) {
        out.write(`${green('✓')} ${report.name} ${dim(`${Math.round(wallMs)} ms`)}\n`);
        for (const line of formatNotes(report)) out.write(`${line}\n`);
        if (report.trace !== undefined) out.write(`  ${dim(`trace: ${report.trace}`)}\n`);
      } else out.write(`${formatReport(report)}\n`);
    },
    onLoadError(source, message) {
      clear();
      out.write(`${red('✗')} ${source}\n  ${message}\n`);
    },
    onEnd(summary: RunSummary) {
      clear();
      out.write(`\n${(summary.failed === 0 ? green : red)(summaryLine(summary))}\n`);
      if (summary.coverage) out.write(coverageText(summary.coverage));
      return undefined;
    },
  };
}
