// examples/php-merchant's test script, run against a sandbox process started from the build (one
// merchant of its own, created by the script with `sandbox merchants create --json`). Skipped
// with a message where php is not installed; .ci/run installs php-cli, so CI always runs it.
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { startCliSandbox } from '../helpers/cli-sandbox.js';
import { EXAMPLES, SANDBOX_CLI, exampleCases, installed, listCases, runSuite } from './example-suite.js';

const DIR = join(EXAMPLES, 'php-merchant');
const SCRIPT = 'tests/shop-test.php';

if (!installed('php')) {
  describe('examples/php-merchant', () => {
    it.skip('php is not installed: install php-cli (apt-get install php-cli) to run the PHP example shop', () => {});
  });
} else {
  describe('examples/php-merchant: a plain PHP 8 shop against a sandbox process', () => {
    exampleCases(listCases('php', [SCRIPT, '--list'], DIR), async () => {
      const sandbox = await startCliSandbox(['--db', ':memory:', '--quiet', '--retry', 'none']);
      try {
        return await runSuite('php', [SCRIPT], DIR, { SANDBOX_URL: sandbox.url, SANDBOX_CLI });
      } finally {
        await sandbox.stop();
      }
    });
  });
}
