// `sandbox verify`: the body and headers a fake merchant really received, given as a file (or on
// standard input) and --header flags, with the secret a handler used; the answer is one line (the
// cause with --json as the API gives it) and the exit code is 0 only for a valid signature.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../helpers/cli-harness.js';
import { useSandboxWithMerchant } from '../helpers/sandbox-with-merchant.js';
import { CREDS, s2sBody } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';

const env = useSandboxWithMerchant();
let dir: string;
let hook: { body: string; headers: Record<string, string> };
/** --header flags for the signing headers of the webhook, as a handler would log them. */
let headerFlags: string[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sandbox-verify-'));
  const { json } = await env.http.post('/api/s2s', s2sBody({ ccno: '4242424242424242', webhook_url: `${env.merchant.url}/hook` }));
  const received = await waitFor(() => env.merchant.at('/hook').find((r) => r.body.includes(json.transID)), 'the webhook');
  hook = { body: received.body, headers: received.headers as Record<string, string> };
  headerFlags = ['X-Sandbox-Signature', 'X-Sandbox-Delivery-Id', 'X-Sandbox-Timestamp'].flatMap((name) => [
    '--header',
    `${name}: ${hook.headers[name.toLowerCase()]}`,
  ]);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Writes `text` to a file of the test's directory; answers its path. */
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const verify = (args: string[], stdin?: string) => runCli(['verify', ...args, '--url', env.sandbox.url], stdin);

it('prints "signature valid" and exits 0 for the body and headers as received, with the right secret', async () => {
  const run = await verify(['--body', file('body', hook.body), ...headerFlags, '--secret', CREDS.secret]);
  expect(run.error).toBeUndefined();
  expect(run.out).toMatch(/^signature valid: the hex HMAC-SHA256 of the raw body .* matches under the secret you sent/);
  expect(run.exitCode).toBe(0);
});

it('reads the body from standard input when no --body is given', async () => {
  const run = await verify([...headerFlags, '--secret', CREDS.secret], hook.body);
  expect(run.exitCode).toBe(0);
  expect(run.out).toMatch(/^signature valid/);
});

it('names the cause and exits 1: a secret with its newline, a body file that echo wrote', async () => {
  const secret = await verify(['--body', file('body', hook.body), ...headerFlags, '--secret', `${CREDS.secret}\n`]);
  expect(secret.exitCode).toBe(1);
  expect(secret.out).toMatch(/^signature INVALID \(secret_whitespace\): the secret your handler uses ends with a newline/);
  const echoed = await verify(['--body', file('echoed', `${hook.body}\n`), ...headerFlags, '--secret', CREDS.secret]);
  expect(echoed.exitCode).toBe(1);
  expect(echoed.out).toMatch(/^signature INVALID \(body_changed\): the body ends with "\\n"/);
});

it('--json prints the answer as the API gives it, and still exits 1 when invalid', async () => {
  const run = await verify(['--body', file('body', hook.body), ...headerFlags, '--secret', CREDS.other.secret, '--json']);
  expect(run.exitCode).toBe(1);
  const answer = JSON.parse(run.out);
  expect(answer).toMatchObject({ valid: false, cause: 'other_secret' });
  expect(answer.message).toContain("merchant mer_other's webhook secret");
  expect(Object.keys(answer)).toEqual(['valid', 'cause', 'message']);
});

it('refuses a --header without a colon and a body file that is not there, in one line', async () => {
  const bad = await verify(['--body', file('body', hook.body), '--header', 'X-Sandbox-Signature sha256=abc']);
  expect(bad.error).toBe(
    '--header "X-Sandbox-Signature sha256=abc" is not "Name: value"; give one header per --header, e.g. --header "X-Sandbox-Signature: sha256=..."',
  );
  const missing = await verify(['--body', join(dir, 'nothing-here'), ...headerFlags]);
  expect(missing.error).toMatch(/^--body .*nothing-here cannot be read \(ENOENT\): give the file the raw body is in$/);
});
