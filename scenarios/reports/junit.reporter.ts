import { XMLBuilder } from 'fast-xml-parser';
import type { Reporter, RunSummary } from '../runner/reporter.ts';
import { formatFailure } from './console.reporter.ts';

// The builder escapes markup characters (`<&>"'`) in attribute values and text.
const xml = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  format: true,
  indentBy: '  ',
  suppressEmptyNode: true,
  // A scenario named "true" keeps name="true", not a bare attribute.
  suppressBooleanAttributes: false,
});

// XML 1.0 forbids most control characters, and no escape can carry them, so they are
// dropped; colour codes never belong in a report, so they go first, whole.
const ANSI_COLOUR = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');
const isXmlChar = (code: number) =>
  code === 0x09 ||
  code === 0x0a ||
  code === 0x0d ||
  (code >= 0x20 && code <= 0xd7ff) ||
  (code >= 0xe000 && code <= 0xfffd) ||
  code >= 0x10000;
const clean = (text: string) =>
  [...text.replace(ANSI_COLOUR, '')].filter((c) => isXmlChar(c.codePointAt(0)!)).join('');

/** JUnit XML, what CI systems read: one testcase a scenario, the timelines in the failure. */
export function createJunitReporter(): Reporter {
  const times = new Map<string, number>();
  return {
    onScenarioEnd(report, wallMs) {
      times.set(`${report.source}#${report.name}`, wallMs);
    },
    onEnd(summary: RunSummary) {
      const cases: Record<string, unknown>[] = summary.reports.map((report) => {
        const head = {
          '@classname': clean(report.source),
          '@name': clean(report.name),
          '@time': ((times.get(`${report.source}#${report.name}`) ?? 0) / 1000).toFixed(3),
        };
        if (report.passed) return head;
        const text = `${report.failures.map(formatFailure).join('\n')}\nseed ${report.seed}; run it again: ${report.rerun}`;
        return {
          ...head,
          failure: {
            '@message': clean(report.failures[0]?.message ?? 'failed'),
            '#text': clean(text),
          },
        };
      });
      for (const error of summary.loadErrors) {
        cases.push({
          '@classname': clean(error.source),
          '@name': clean(error.source),
          '@time': '0',
          error: { '@message': clean(error.message) },
        });
      }
      return junitXml(cases);
    },
  };
}

/** A JUnit document of these test cases (each `{ '@classname', '@name', … }`): the counts made from them. */
export function junitXml(cases: Record<string, unknown>[]): string {
  const counts = {
    '@tests': String(cases.length),
    '@failures': String(cases.filter((c) => c.failure !== undefined).length),
    '@errors': String(cases.filter((c) => c.error !== undefined).length),
  };
  const document = {
    '?xml': { '@version': '1.0', '@encoding': 'UTF-8' },
    testsuites: {
      '@name': 'badge-sim scenarios',
      ...counts,
      testsuite: { '@name': 'badge-sim scenarios', ...counts, testcase: cases },
    },
  };
  return `${xml.build(document).trimEnd()}\n`;
}
