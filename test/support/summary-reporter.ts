/**
 * Ends every test run with the plain line CI reads: `N passed, N failed, N skipped`.
 * (CI does not read vitest's own summary.) Before it, the slowest test files, so whoever
 * watches the suite's time (CI must stay under 30 minutes on two cores) sees where it goes.
 */
import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<unknown>,
    reason: 'passed' | 'failed' | 'interrupted',
  ): void {
    let passed = 0;
    let failed = unhandledErrors.length;
    let skipped = 0;
    for (const module of testModules) {
      if (module.state() === 'failed' && [...module.children.allTests()].length === 0) failed++;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
    }
    // A run that failed outside any test (a global setup that threw) still counts as a failure.
    if (reason !== 'passed' && failed === 0) failed = 1;
    process.stdout.write(slowestFiles(testModules));
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}

/** The files that took longest (importing them and running their tests), slowest first. */
function slowestFiles(testModules: ReadonlyArray<TestModule>, count = 12): string {
  const timed = testModules.map((module) => {
    const { collectDuration, duration } = module.diagnostic();
    return { file: module.relativeModuleId, seconds: (collectDuration + duration) / 1000 };
  });
  timed.sort((a, b) => b.seconds - a.seconds);
  const total = timed.reduce((sum, { seconds }) => sum + seconds, 0);
  const lines = timed
    .slice(0, count)
    .map(({ file, seconds }) => `  ${seconds.toFixed(1).padStart(6)} s  ${file}`);
  return `\nslowest test files (of ${timed.length}, ${total.toFixed(0)} s in all, over the workers):\n${lines.join('\n')}\n`;
}
