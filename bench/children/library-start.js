// A test suite's first moments, in a fresh node process: `import('paysandbox')` (dist/paysandbox.js, the bundle package.json exports),
// `startSandbox()` (its defaults: an in-memory database, a free port), then the first answered
// request over HTTP (start-steps.js). Prints one JSON line: each step's wall time and the process's CPU time, in ms.
import { timeStartSteps } from './start-steps.js';

await timeStartSteps(
  () => import('../../dist/paysandbox.js'),
  ({ startSandbox }) => startSandbox(),
);
