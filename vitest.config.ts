import { defineConfig } from 'vitest/config';

// The suite in projects by speed (`npm test` runs them in this order, each its own vitest run:
// scripts/run-tests.js). `unit` is what a change needs first: pure rules and in-process routes
// (app.request, no socket). `fuzz` is in process too but CPU-bound; the rest start real servers,
// processes or Chromium. `npm run test:<project>` runs one; README.md "Developing paysandbox" has
// each one's size and time.

/** In-process tests outside test/unit and test/routes: no socket, no child process. */
const IN_PROCESS = [
  'test/contract/request-schemas.test.ts',
  'test/reliability/job-runner-faults.test.ts',
  'test/security/isolation.test.ts',
  'test/security/page-headers.test.ts',
  'test/security/pages.test.ts',
  'test/security/webhook-targets.test.ts',
];

export default defineConfig({
  // Vite 8 transforms with oxc (an esbuild option here is ignored with a warning).
  oxc: { jsx: { runtime: 'automatic', importSource: 'hono/jsx' } },
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // The JSON report lets .ci/run print one plain "N passed, N failed" line (scripts/test-summary.js);
    // scripts/run-tests.js names one file per project.
    reporters: ['default', 'json'],
    outputFile: { json: 'test-artifacts/vitest-run.json' },
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts', 'test/routes/**/*.test.ts', ...IN_PROCESS] } },
      // In process too, but thousands of generated requests per route: minutes of CPU.
      { extends: true, test: { name: 'fuzz', include: ['test/fuzz/**/*.test.ts'] } },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/{e2e,reliability,security,contract,library}/**/*.test.ts'],
          exclude: IN_PROCESS,
        },
      },
      { extends: true, test: { name: 'cli', include: ['test/cli/**/*.test.ts'] } },
      { extends: true, test: { name: 'browser', include: ['test/browser/**/*.test.ts'] } },
      // Binds the fixed ports the pages print (4010, 3000): scripts/private-network.js runs it in a network namespace of its own.
      { extends: true, test: { name: 'docs', include: ['test/docs/**/*.test.ts'] } },
      { extends: true, test: { name: 'examples', include: ['test/examples/**/*.test.ts'] } },
      // Builds the image and runs it with podman: minutes on a first build, so not in `npm test`
      // (scripts/run-tests.js does not list it); `npm run test:container` runs it.
      { extends: true, test: { name: 'container', include: ['test/container/**/*.test.ts'], testTimeout: 180_000 } },
    ],
  },
});
