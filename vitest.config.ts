import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['**/*.test.ts'],
    exclude: ['node_modules/**', 'dist/**'],
    reporters: ['default', './test/support/summary-reporter.ts'],
    testTimeout: 20_000,
  },
});
