// The environment as the built CLI reads it: an empty SANDBOX_URL counts as unset (as every
// SANDBOX_* variable of sandbox start does), and a mistyped SANDBOX_* variable is named on stderr
// with the one it is closest to, instead of being ignored silently.
import { afterEach, expect, it } from 'vitest';
import { runCli } from '../helpers/cli-harness.js';
import { runBuiltCli } from '../helpers/cli-sandbox.js';
import { startTestServer } from '../helpers/test-sandbox.js';

const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
});

it('an empty SANDBOX_URL is unset: the default sandbox is asked, not a malformed empty URL refused', async () => {
  process.env.SANDBOX_URL = '';
  process.env.SANDBOX_CONTROL_TOKEN = '';
  const run = await runCli(['clock', '--json']);
  // Whether or not a sandbox listens on the default port, it is the one asked.
  if (run.error !== undefined) expect(run.error).toBe('no sandbox answers at http://127.0.0.1:4010; start one with `npx sandbox start`');
  else expect(JSON.parse(run.out)).toHaveProperty('now');
});

it('a set SANDBOX_URL still picks the sandbox', async () => {
  const sandbox = await startTestServer();
  try {
    process.env.SANDBOX_URL = sandbox.url;
    const run = await runCli(['clock', '--json']);
    expect(JSON.parse(run.out)).toHaveProperty('now');
  } finally {
    await sandbox.close();
  }
});

it('a mistyped SANDBOX_* variable is a warning naming the closest one; --json makes it a JSON line', async () => {
  const args = ['encrypt', 'a=1', '--public-key', 'pk_test_1001', '--private-key', 'pv_test_1001'];
  const text = await runBuiltCli(args, { env: { SANDBOX_PROT: '5000' } });
  expect(text.code).toBe(0);
  expect(text.stderr).toBe('sandbox: warning: SANDBOX_PROT is set, but no sandbox option reads it; did you mean SANDBOX_PORT?\n');
  const json = await runBuiltCli([...args, '--json'], { env: { SANDBOX_PROT: '5000' } });
  expect(JSON.parse(json.stderr)).toEqual({
    warning: { code: 'unknown_variable', message: 'SANDBOX_PROT is set, but no sandbox option reads it; did you mean SANDBOX_PORT?' },
  });
  expect(JSON.parse(json.stdout)).toHaveProperty('ciphertext');
});
