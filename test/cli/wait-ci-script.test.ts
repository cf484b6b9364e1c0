// The CI-script flow with real processes of the built CLI (bin/sandbox.js -> dist/): start on a
// free port with --ready-file and --auto-authenticate, pay, then `sandbox wait` exits 0 or 1.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCliSandbox, type CliSandbox } from '../helpers/cli-sandbox.js';
import { startFakeMerchant, type FakeMerchant } from '../helpers/fake-merchant.js';
import { s2sBody } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = join(root, 'bin/sandbox.js');

/** Runs the built CLI to completion. */
function sandboxCli(args: string[]) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { cwd: root, timeout: 30_000, env: { ...process.env, NO_COLOR: '1' } },
      (err, stdout, stderr) => {
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

let sandbox: CliSandbox;
let url: string;
let merchant: FakeMerchant;

beforeAll(async () => {
  expect(existsSync(join(root, 'dist/cli/program.js')), 'dist/ is missing: run npm run build first').toBe(true);
  merchant = await startFakeMerchant();
  sandbox = await startCliSandbox(['--db', ':memory:', '--quiet', '--retry', 'none', '--auto-authenticate', 'approve'], { cwd: root });
  url = sandbox.url;
});

afterAll(async () => {
  await sandbox.stop();
  await merchant.close();
});

describe('sandbox start for CI scripts', () => {
  it('writes the URL to --ready-file and prints the plain "Listening on <url>" line', async () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await waitFor(() => sandbox.stdout.includes('Listening on'), 'the listening line');
    expect(sandbox.stdout).toBe(`Listening on ${url}\n`);
  });

  it('--auto-authenticate approves the challenge, and `sandbox wait` exits 0 for the webhook', async () => {
    const res = await fetch(`${url}/api/s2s`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(s2sBody({ webhook_url: `${merchant.url}/hook` })),
    });
    const payment = (await res.json()) as { transID: string; order_status: string };
    expect(payment.order_status).toBe('0');
    const run = await sandboxCli([
      'wait',
      '--url',
      url,
      '--event',
      'payment.authorized',
      '--to',
      `${merchant.url}/hook`,
      '--timeout',
      '10s',
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^found: whd_\w+ payment\.authorized -> .* succeeded after 1 attempt \(last answer 200\)\n$/);
    expect(merchant.at('/hook')[0]!.body).toContain(`transID=${payment.transID}`);
  });

  it('`sandbox wait` exits 1 and prints what it saw when the event never comes', async () => {
    const run = await sandboxCli(['wait', '--url', url, '--event', 'chargeback.created', '--timeout', '300ms']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /no succeeded delivery of chargeback\.created within 300ms; deliveries of any event, newest first \(1\):\n {2}whd_\w+ payment\.authorized/,
    );
  });
});
