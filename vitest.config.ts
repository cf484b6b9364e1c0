import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// The suite in projects by what a test needs (`npm test` runs them all: scripts/run-tests.js).
// `unit` is what a change needs first: modules tested alone, in seconds. `routes` is the whole app
// in process (app.request, no socket, no child process), imported once per worker. `fuzz` is in
// process too but CPU-bound; the rest start real servers, processes or Chromium.
// `npm run test:<project>` runs one; CONTRIBUTING.md has each one's size and time.

/** Whole-app tests in process outside test/routes: no socket, no child process. */
const IN_PROCESS = [
  'test/contract/request-schemas.test.ts',
  'test/reliability/job-runner-faults.test.ts',
  'test/security/isolation.test.ts',
  'test/security/page-headers.test.ts',
  'test/security/pages.test.ts',
  'test/security/webhook-targets.test.ts',
  'test/unit/conformance.test.ts',
  'test/unit/event-publisher.test.ts',
];
/** Files of test/routes that also start a real server and a fake merchant on sockets: they run with e2e. */
const ON_SOCKETS = ['test/routes/refund.test.ts'];
/** The whole-app in-process files. */
const APP = [
  ...readdirSync(join(import.meta.dirname, 'test/routes'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.test.ts'))
    .map((file) => `test/routes/${file}`),
  ...IN_PROCESS,
];
/** The files of test/unit that test a module alone. */
const UNIT = readdirSync(join(import.meta.dirname, 'test/unit'))
  .filter((file) => file.endsWith('.test.ts'))
  .map((file) => `test/unit/${file}`)
  .filter((file) => !IN_PROCESS.includes(file));
/** Every test file of the suite. */
const ALL = readdirSync(join(import.meta.dirname, 'test'), { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.test.ts'))
  .map((file) => `test/${file}`);
/**
 * The files that replace a module (vi.mock): the replacement must reach the modules under test, so
 * each needs a fresh module graph of its own (`isolated`), not the one the files of a worker share.
 */
const MOCKING = ALL.filter((file) => /\bvi\.(?:mock|doMock)\(/.test(readFileSync(join(import.meta.dirname, file), 'utf8')));

export default defineConfig({
  // Vite 8 transforms with oxc (an esbuild option here is ignored with a warning).
  oxc: { jsx: { runtime: 'automatic', importSource: 'hono/jsx' } },
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Most files wait on sockets, child processes and Chromium more than they compute, so two more
    // files than there are cores run at once (vitest's default, cores - 1, ran one file at a time
    // on a 2-core machine). Tests never depend on speed, so sharing the cores changes no result.
    maxWorkers: availableParallelism() + 2,
    // Once per run: the webhook sender thread bundled, so sandboxes started from src/ send from a
    // thread as the package does (test/setup/sender-thread.ts, test/helpers/test-sandbox.ts); and
    // the folder of the one packed install of the package (test/setup/packed-template.ts).
    globalSetup: ['test/setup/sender-thread.ts', 'test/setup/packed-template.ts'],
    // The JSON report lets .ci/run print one plain "N passed, N failed" line (scripts/test-summary.js);
    // scripts/run-tests.js names one file per run.
    reporters: ['default', 'json'],
    outputFile: { json: 'test-artifacts/vitest-run.json' },
    projects: [
      // No project is isolated but `isolated`: a worker imports the modules once for all its files
      // instead of once per file, in a process it keeps (an isolated file costs a new process and
      // the whole app's import: unit took 38 s of CPU isolated, 14 s not; the whole run's workers
      // spent 571 s of CPU isolated). Files restore what they change (spies, fake timers, env, cwd)
      // and stop what they start.
      { extends: true, test: { name: 'unit', include: UNIT, exclude: MOCKING, isolate: false } },
      { extends: true, test: { name: 'routes', include: APP, exclude: [...ON_SOCKETS, ...MOCKING], isolate: false } },
      // test/security/secrets.test.ts among them starts real servers: e2e's limits.
      { extends: true, test: { name: 'isolated', include: MOCKING, testTimeout: 60_000, hookTimeout: 120_000 } },
      // In process too, but thousands of generated requests per route: minutes of CPU. A test is
      // 200 requests of one route, and several files share the cores with the rest of the run, so
      // its time-out (which only bounds a hang) is longer: 30 s was hit at load 25 on 2 cores.
      {
        extends: true,
        test: {
          name: 'fuzz',
          include: ['test/fuzz/**/*.test.ts'],
          exclude: MOCKING,
          isolate: false,
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/{e2e,reliability,security,contract,library}/**/*.test.ts', ...ON_SOCKETS],
          exclude: [...IN_PROCESS, ...MOCKING],
          isolate: false,
          // These start processes and servers on the same 2 cores as the rest of the run (a
          // sandbox start took over 10 s at load 15): a test's limit only bounds a hang.
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      // Each test runs built CLI processes (several sandboxes each): the same loaded cores.
      {
        extends: true,
        test: {
          name: 'cli',
          include: ['test/cli/**/*.test.ts'],
          exclude: MOCKING,
          isolate: false,
          testTimeout: 90_000,
          hookTimeout: 120_000,
        },
      },
      // Chromium renders on the same 2 cores as the rest of the run: a page load took seconds at
      // load 20 in CI, so a test's limit (which only bounds a hang) is longer here.
      {
        extends: true,
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          exclude: MOCKING,
          isolate: false,
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      // Binds the fixed ports the pages print (4010, 3000): scripts/private-network.js runs it in a network namespace of its own.
      // Its scripts run npx, npm and sandboxes as a reader would, beside the rest of `npm test` on the
      // same 2 cores (docs/ci.md's CI script took 71 s at load 12, over 180 s at load 18): limits
      // that only bound a hang, hooks (which copy and remove a packed install) included.
      { extends: true, test: { name: 'docs', include: ['test/docs/**/*.test.ts'], testTimeout: 60_000, hookTimeout: 120_000 } },
      { extends: true, test: { name: 'examples', include: ['test/examples/**/*.test.ts'], exclude: MOCKING, isolate: false } },
      // Builds the image and runs it with podman: minutes on a first build, so not in `npm test`
      // (scripts/run-tests.js does not list it); `npm run test:container` runs it. Its globalSetup
      // builds the image once for all its files, before any starts.
      {
        extends: true,
        test: {
          name: 'container',
          include: ['test/container/**/*.test.ts'],
          globalSetup: ['test/setup/container-image.ts'],
          testTimeout: 180_000,
        },
      },
    ],
  },
});
