// `sandbox start` as a user runs it: a real child process of bin/sandbox.js (the built dist/, which
// CI builds before testing). The banner, a clean SIGTERM/SIGINT exit, and one-line failures.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { s2sBody } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';
import type { S2SPaymentView } from '../../src/views/s2s.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = `${ROOT}bin/sandbox.js`;
const ANSI = /\u001b\[[0-9;]*m/g;

interface Run {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function run(args: string[]): Run {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete env.FORCE_COLOR;
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, out: () => out.replace(ANSI, ''), err: () => err.replace(ANSI, ''), exit };
}

/** Waits for the process to end; kills it and fails when it does not within the deadline. */
async function ended(r: Run, timeoutMs = 45_000) {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      r.child.kill('SIGKILL');
      reject(new Error(`the sandbox process did not exit within ${timeoutMs} ms; stdout: ${r.out()} stderr: ${r.err()}`));
    }, timeoutMs);
  });
  try {
    return await Promise.race([r.exit, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** The lines a failed start printed on stderr. */
function errorLines(r: Run): string[] {
  return r
    .err()
    .split('\n')
    .filter((line) => line.trim() !== '');
}

beforeAll(() => {
  expect(existsSync(`${ROOT}dist/cli/program.js`), 'dist/ is missing: run `npm run build` before the tests (CI does)').toBe(true);
});

describe('sandbox start (a real process)', () => {
  it('prints the banner with the seeded credentials and "Listening on", answers, and exits 0 on SIGTERM', async () => {
    const r = run(['start', '--port', '0', '--db', ':memory:']);
    try {
      const url = await waitFor(
        () => /Listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(r.out())?.[1],
        '"Listening on" in the output',
        45_000,
      );
      const banner = r.out();
      for (const text of [
        'paysandbox',
        'Sandbox Merchant',
        'terNO 1001',
        'pk_test_1001',
        'pv_test_1001',
        'sk_test_sandbox',
        'whsec_test_sandbox',
        'terNO 2002',
        url,
      ]) {
        expect(banner).toContain(text);
      }
      const health = await fetch(`${url}/_sandbox/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ status: 'ok' });
      const payment = await fetch(`${url}/api/s2s`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(s2sBody()),
      });
      expect(payment.status).toBe(200);
      expect(((await payment.json()) as S2SPaymentView).authurl.startsWith(`${url}/authenticate/`)).toBe(true);
    } finally {
      r.child.kill('SIGTERM');
    }
    expect(await ended(r)).toEqual({ code: 0, signal: null });
    expect(r.err()).toBe('');
  });

  it('exits 0 on SIGINT (Ctrl-C) too', async () => {
    const r = run(['start', '--port', '0', '--db', ':memory:', '--quiet']);
    await waitFor(() => r.out().includes('Listening on'), '"Listening on"', 45_000);
    expect(r.out()).not.toContain('pk_test_1001');
    r.child.kill('SIGINT');
    expect(await ended(r)).toEqual({ code: 0, signal: null });
  });

  it('says in one line that a busy port is already in use, exit 1, no stack trace', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as AddressInfo).port;
    try {
      const r = run(['start', '--port', String(port), '--db', ':memory:']);
      expect((await ended(r)).code).toBe(1);
      const lines = errorLines(r);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain('already in use');
      expect(lines[0]).toContain(String(port));
      expect(r.err()).not.toMatch(/\n\s+at /);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it.each([
    ['--retry bogus', ['--retry', 'bogus'], '--retry'],
    ['--port abc', ['--port', 'abc'], '--port'],
    ['--log-format xml', ['--log-format', 'xml'], '--log-format'],
    ['an unwritable --db path', ['--db', '/proc/nope/x.db'], '/proc/nope/x.db'],
  ])('%s: one line naming it, exit 1, no stack trace', async (_name, flags, named) => {
    const r = run(['start', '--port', '0', '--db', ':memory:', ...flags]);
    expect((await ended(r)).code).toBe(1);
    const lines = errorLines(r);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^sandbox: /);
    expect(lines[0]).toContain(named);
    expect(r.err()).not.toMatch(/\n\s+at /);
    expect(r.out()).not.toContain('Listening on');
  });
});
