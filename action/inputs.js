// The Action's inputs (action.yml), read and checked once for both steps. Empty means "not given":
// `sandbox start` then takes the option's SANDBOX_* variable from the step's env, else its default.
import { input } from './runner.js';

/** When the post step prints the sandbox's log. */
export const PRINT_LOG = ['on-failure', 'always', 'never'];

/** The inputs by name; throws an Error naming the input when one is not a value it takes. */
export function readInputs() {
  const inputs = Object.fromEntries(
    ['port', 'db', 'scenario', 'signature', 'fixtures', 'version', 'print-log', 'job-status'].map((name) => [name, input(name)]),
  );
  if (!PRINT_LOG.includes(inputs['print-log']))
    throw new Error(`the input print-log must be ${PRINT_LOG.join(', ')}; got "${inputs['print-log']}"`);
  return inputs;
}
