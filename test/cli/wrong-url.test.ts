// Pointing a command at something that is not a sandbox (a merchant receiver, say) is one clear
// line, not a JSON parse stack trace; a closed pipe (`| head`) ends the process quietly.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { startFakeMerchant } from '../helpers/fake-merchant.js';
import { runCli } from '../helpers/cli-harness.js';
import { startTestServer } from '../helpers/test-sandbox.js';

const receiver = await startFakeMerchant();
afterAll(() => receiver.close());

it('a URL that answers but is not a sandbox is named in one line with the likely mix-up', async () => {
  const run = await runCli(['wait', '--event', 'payment.authorized', '--timeout', '1s', '--url', receiver.url]);
  expect(run.error).toMatch(/is not a sandbox's control API/);
  expect(run.error).toContain('--to');
});

it('a reader that closes the pipe early ends the command with exit 0 and no stack trace', async () => {
  const sandbox = await startTestServer();
  try {
    // Enough deliveries for the table to outgrow the pipe buffer the reader never drains.
    for (let i = 0; i < 300; i++)
      await fetch(`${sandbox.url}/_sandbox/events/trigger`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"type":"payment.authorized"}',
      });
    const bin = fileURLToPath(new URL('../../bin/sandbox.js', import.meta.url));
    const child = spawn(process.execPath, [bin, 'webhooks', 'list', '--limit', '1000', '--url', sandbox.url], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(stderr).not.toMatch(/EPIPE|at /);
    expect(code).toBe(0);
  } finally {
    await sandbox.close();
  }
});

it('a --url that is not a URL says it is malformed, not that no sandbox answers there', async () => {
  for (const url of ['notaurl', 'ftp://127.0.0.1:4010', 'http//127.0.0.1']) {
    const run = await runCli(['webhooks', 'list', '--url', url]);
    expect(run.error).toBe(`--url "${url}" is malformed: give the sandbox's base URL, such as http://127.0.0.1:4010`);
  }
});

it('a misused command (unknown command or option, missing argument) is one line on stderr with exit 1', async () => {
  const bin = fileURLToPath(new URL('../../bin/sandbox.js', import.meta.url));
  for (const args of [['nosuch'], ['webhooks', 'show'], ['start', '--bogus']]) {
    const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code, args.join(' ')).toBe(1);
    expect(stderr).toMatch(
      /^sandbox: (unknown command 'nosuch'|missing required argument 'delivery-id'|unknown option '--bogus') \(see sandbox --help\)\n$/,
    );
  }
});
