// The CI-script flow with real processes of the built CLI (bin/sandbox.js -> dist/): start on a
// free port with --ready-file and --auto-authenticate, pay, then `sandbox wait` exits 0 or 1.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeMerchant, type FakeMerchant } from '../helpers/fake-merchant.js';
import { s2sBody } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = join(root, 'bin/sandbox.js');

/** Runs the built CLI to completion. */
function sandboxCli(args: string[]) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [bin, ...args], { cwd: root, timeout: 30_000, env: { ...process.env, NO_COLOR: '1' } }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

let child: ChildProcess;
let stdout = '';
let url: string;
let merchant: FakeMerchant;
const readyFile = join(mkdtempSync(join(tmpdir(), 'ci-script-')), 'sandbox.url');

beforeAll(async () => {
  expect(existsSync(join(root, 'dist/cli/program.js')), 'dist/ is missing: run npm run build first').toBe(true);
  merchant = await startFakeMerchant();
  child = spawn(process.execPath, [bin, 'start', '--port', '0', '--db', ':memory:', '--quiet', '--retry', 'none', '--auto-authenticate', 'approve', '--ready-file', readyFile], { cwd: root });
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  url = (await waitFor(() => existsSync(readyFile) && readFileSync(readyFile, 'utf8').trim(), 'the ready file', 15_000)) as string;
});

afterAll(async () => {
  if (child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  await merchant.close();
});

describe('sandbox start for CI scripts', () => {
  it('writes the URL to --ready-file and prints the plain "Listening on <url>" line', async () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await waitFor(() => stdout.includes('Listening on'), 'the listening line');
    expect(stdout).toBe(`Listening on ${url}\n`);
  });

  it('--auto-authenticate approves the challenge, and `sandbox wait` exits 0 for the webhook', async () => {
    const res = await fetch(`${url}/api/s2s`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(s2sBody({ webhook_url: `${merchant.url}/hook` })) });
    const payment = (await res.json()) as { transID: string; order_status: string };
    expect(payment.order_status).toBe('0');
    const run = await sandboxCli(['wait', '--url', url, '--event', 'payment.authorized', '--to', `${merchant.url}/hook`, '--timeout', '10s']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^found: whd_\w+ payment\.authorized -> .* succeeded after 1 attempt \(last answer 200\)\n$/);
    expect(merchant.at('/hook')[0]!.body).toContain(`transID=${payment.transID}`);
  });

  it('`sandbox wait` exits 1 and prints what it saw when the event never comes', async () => {
    const run = await sandboxCli(['wait', '--url', url, '--event', 'chargeback.created', '--timeout', '300ms']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/no succeeded delivery of chargeback\.created within 300ms; deliveries of any event, newest first \(1\):\n {2}whd_\w+ payment\.authorized/);
  });
});
