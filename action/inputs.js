// The Action's inputs (action.yml), read and checked once for both steps. Empty means "not given":
// `sandbox start` then takes the option's SANDBOX_* variable from the step's env, else its default.
// Surrounding white space is dropped (the runner passes `print-log: " always "` as it is written).
import { input } from './runner.js';

/** When the post step prints the sandbox's log. */
export const PRINT_LOG = ['on-failure', 'always', 'never'];

/** Every input action.yml declares. */
const NAMES = ['port', 'db', 'scenario', 'signature', 'fixtures', 'version', 'print-log', 'job-status'];

/**
 * What `version` takes: a version of paysandbox on the npm registry, exact (0.1.0, 1.0.0-rc.1),
 * partial (0.1) or a dist-tag (latest). npx would take any package spec after `paysandbox@`: a
 * `file:` path, a git URL, a tarball URL or an `npm:` alias of another package, which would run
 * whatever they name with the job's secrets in its environment.
 */
const REGISTRY_VERSION = /^(?:\d+(?:\.\d+){0,2}(?:-[0-9A-Za-z.-]+)?|[a-z][a-z0-9._-]*)$/;

/** The inputs by name; throws an Error naming the input when one is not a value it takes. */
export function readInputs() {
  const inputs = Object.fromEntries(NAMES.map((name) => [name, input(name)]));
  for (const [name, value] of Object.entries(inputs)) {
    // A line break would let a value print as a workflow command of its own (::add-mask::, ::stop-commands::).
    if (/[\r\n]/.test(value)) throw new Error(`the input ${name} holds a line break; give it on one line`);
  }
  if (!PRINT_LOG.includes(inputs['print-log']))
    throw new Error(`the input print-log must be ${PRINT_LOG.join(', ')}; got "${inputs['print-log']}"`);
  if (inputs.version && !REGISTRY_VERSION.test(inputs.version))
    throw new Error(
      `the input version must be a version of paysandbox on the npm registry (0.1.0, 0.1 or a tag such as latest); got "${inputs.version}". ` +
        'To run a copy of your own, install it in the project (npm install --save-dev ./paysandbox-0.1.0.tgz) and leave version empty',
    );
  return inputs;
}
