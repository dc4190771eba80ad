import { formatFailure } from './console.reporter.ts';
import type { Reporter, RunSummary } from './reporter.ts';

const escapeXml = (text: string) =>
  text.replace(
    /[<>&"']/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!,
  );
// XML 1.0 forbids most control characters; colour codes never belong in a report.
const ANSI_COLOUR = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');
const clean = (text: string) =>
  [...text.replace(ANSI_COLOUR, '')]
    .filter((c) => {
      const code = c.charCodeAt(0);
      return code >= 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
    })
    .join('');

/** JUnit XML, what CI systems read: one testcase a scenario, the timelines in the failure. */
export function createJunitReporter(): Reporter {
  const times = new Map<string, number>();
  return {
    onScenarioEnd(report, wallMs) {
      times.set(`${report.source}#${report.name}`, wallMs);
    },
    onEnd(summary: RunSummary) {
      const cases = summary.reports.map((report) => {
        const time = ((times.get(`${report.source}#${report.name}`) ?? 0) / 1000).toFixed(3);
        const head = `    <testcase classname="${escapeXml(report.source)}" name="${escapeXml(report.name)}" time="${time}">`;
        if (report.passed) return `${head}</testcase>`;
        const text = clean(
          `${report.failures.map(formatFailure).join('\n')}\nseed ${report.seed}; run it again: ${report.rerun}`,
        );
        const message = escapeXml(clean(report.failures[0]?.message ?? 'failed'));
        return `${head}\n      <failure message="${message}">${escapeXml(text)}</failure>\n    </testcase>`;
      });
      for (const error of summary.loadErrors) {
        cases.push(
          `    <testcase classname="${escapeXml(error.source)}" name="${escapeXml(error.source)}" time="0">\n      <error message="${escapeXml(clean(error.message))}"/>\n    </testcase>`,
        );
      }
      const total = summary.reports.length + summary.loadErrors.length;
      return [
        '<?xml version="1.0" encoding="UTF-8"?>',
        `<testsuites name="badge-sim scenarios" tests="${total}" failures="${summary.reports.filter((r) => !r.passed).length}" errors="${summary.loadErrors.length}">`,
        `  <testsuite name="badge-sim scenarios" tests="${total}" failures="${summary.reports.filter((r) => !r.passed).length}" errors="${summary.loadErrors.length}">`,
        ...cases,
        '  </testsuite>',
        '</testsuites>',
        '',
      ].join('\n');
    },
  };
}
