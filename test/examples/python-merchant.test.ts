// examples/python-merchant's unittest suite, run as a merchant runs it (`python3 run_tests.py`):
// it starts one sandbox process from the build itself, creates a merchant per test class and runs
// the classes in parallel.
import { join } from 'node:path';
import { describe } from 'vitest';
import { EXAMPLES, SANDBOX_CLI, exampleCases, listCases, runSuite } from './example-suite.js';

const DIR = join(EXAMPLES, 'python-merchant');

describe('examples/python-merchant: a standard-library shop, test classes in parallel', () => {
  exampleCases(listCases('python3', ['run_tests.py', '--list'], DIR), () => runSuite('python3', ['run_tests.py'], DIR, { SANDBOX_CLI }));
});
