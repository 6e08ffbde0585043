import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // End-to-end tests spawn the built binary; archives and big lists take a moment on a 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Under CI, also write machine-readable results so .ci/run can print a plain pass/fail count.
    reporters: process.env.CI ? ['default', ['json', { outputFile: 'test-results.json' }]] : ['default'],
  },
});
