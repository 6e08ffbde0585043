import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Probes chromium and the SARIF validator once: tests that need a missing one are skipped, except under CI=true.
    globalSetup: ['test/support/global-setup.ts'],
    // End-to-end tests spawn the built binary; archives and big lists take a moment on a 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Tests never reach the network: a scan that would download Karpenter's CRDs gets a refused connection (tests of
    // the download start their own local server), and nothing is cached in the user's real cache directory.
    env: { KARPDOCTOR_CRDS_BASE_URL: 'http://127.0.0.1:9', XDG_CACHE_HOME: join(tmpdir(), `karpdoctor-test-cache-${process.pid}`) },
    // Under CI, also write machine-readable results so .ci/run can print a plain pass/fail count.
    reporters: process.env.CI ? ['default', ['json', { outputFile: 'test-results.json' }]] : ['default'],
  },
});
