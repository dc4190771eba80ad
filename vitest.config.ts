import { defineConfig } from 'vitest/config';
import { dockerUnavailable } from './test/support/docker.ts';

const CONTAINER_TESTS = ['test/container/**/*.test.ts', 'examples/vitest-container/**/*.test.ts'];

// The container tests run where a Docker engine answers, and always under CI=true (where a
// missing engine must fail the run, not skip it).
const noDocker = process.env.CI === 'true' ? undefined : dockerUnavailable();
// (vitest reads this file more than once: say it once.)
if (noDocker && !process.env.BADGE_SIM_SAID_NO_DOCKER) {
  console.warn(`badge-sim: container tests skipped: ${noDocker}`);
  process.env.BADGE_SIM_SAID_NO_DOCKER = '1';
}

export default defineConfig({
  test: {
    reporters: ['default', './test/support/summary-reporter.ts'],
    // Generous: CLI tests start several processes, and CI machines are shared (two cores).
    testTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['**/*.test.ts'],
          exclude: ['node_modules/**', 'dist/**', ...CONTAINER_TESTS],
        },
      },
      ...(noDocker
        ? []
        : [
            {
              extends: true as const,
              test: {
                name: 'container',
                include: CONTAINER_TESTS,
                globalSetup: ['./test/container/global-setup.ts'],
                // The files share one container: one at a time.
                fileParallelism: false,
                testTimeout: 60_000,
                hookTimeout: 120_000,
              },
            },
          ]),
    ],
  },
});
