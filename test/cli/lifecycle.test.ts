// The sandbox's process lifecycle the way CI scripts drive it: real bash scripts start the built
// CLI through npx, npm start or node_modules/.bin/sandbox, in a project directory outside this
// repository. Whatever ends the script (its trap, `kill $!` on the wrapper, or simply exiting),
// the sandbox must be gone within a few seconds and must not hold the script's stdout open: the
// orphan of a killed npx kept a piped CI step waiting for ten minutes.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBuiltCli, startCliSandbox } from '../helpers/cli-sandbox.js';
import { startFakeMerchant, type FakeMerchant } from '../helpers/fake-merchant.js';
import { s2sBody } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** A merchant's project with paysandbox installed: node_modules/paysandbox and its bin link. */
function merchantProject(): string {
  const project = mkdtempSync(join(tmpdir(), 'merchant-ci-'));
  mkdirSync(join(project, 'node_modules/.bin'), { recursive: true });
  symlinkSync(root, join(project, 'node_modules/paysandbox'));
  symlinkSync('../paysandbox/bin/sandbox.js', join(project, 'node_modules/.bin/sandbox'));
  return project;
}

/**
 * Runs a bash script with piped stdout, as a CI runner does. `released` says whether the pipes
 * closed within 5 s of bash exiting: a process left behind holding them is what hung the CI step.
 */
function runScript(cwd: string, script: string, env: NodeJS.ProcessEnv = {}) {
  writeFileSync(join(cwd, 'ci.sh'), script, { mode: 0o755 });
  // npm must not look for updates or packages on the network; the bin is installed locally.
  const npmEnv = { npm_config_update_notifier: 'false', npm_config_offline: 'true', npm_config_fund: 'false', NO_COLOR: '1' };
  const child = spawn('bash', ['ci.sh'], { cwd, env: { ...process.env, ...npmEnv, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise<{ code: number; stdout: string; stderr: string; released: boolean }>((resolve) => {
    let code = -1;
    const done = (released: boolean) => resolve({ code, stdout, stderr, released });
    child.once('exit', (exitCode) => {
      code = exitCode ?? -1;
      setTimeout(() => done(false), 5000).unref();
    });
    child.once('close', () => done(true));
  });
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // Exited but not reaped yet (a zombie) counts as gone.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat[stat.lastIndexOf(')') + 2] !== 'Z';
}

/** Polls until the sandbox's port refuses connections and its process is gone (3 s at most). */
async function expectGone(url: string, pid: number): Promise<void> {
  try {
    await waitFor(async () => !isRunning(pid) && (await fetch(`${url}/_sandbox/health`).then(() => false, () => true)), `sandbox ${pid} at ${url} to stop`, 3000, 50);
  } finally {
    // Never leave an orphan behind a failing test.
    if (isRunning(pid)) process.kill(pid, 'SIGKILL');
  }
}

const field = (stdout: string, name: string) => new RegExp(`^${name} (\\S+)$`, 'm').exec(stdout)?.[1];

const SUITE_LINE = 'GATEWAY_URL=$SANDBOX_URL npm run test:integration   # your suite pays against the sandbox';
const URL_LINE = 'export SANDBOX_URL=$(cat .sandbox/url)';

/** The script under "A CI script" in docs/ci.md, exactly as a user copies it. */
function documentedScript(): string {
  const doc = readFileSync(join(root, 'docs/ci.md'), 'utf8');
  const script = /### A CI script\n\n```bash\n([\s\S]*?)```/.exec(doc)?.[1];
  // The test swaps these two lines for its own suite and a report of the URL and pid.
  if (!script?.includes(SUITE_LINE) || !script.includes(URL_LINE)) throw new Error('docs/ci.md: the CI script changed; update test/cli/lifecycle.test.ts');
  return script;
}

let merchant: FakeMerchant;

beforeAll(async () => {
  expect(existsSync(join(root, 'dist/sandbox.js')), 'dist/ is missing: run npm run build first').toBe(true);
  merchant = await startFakeMerchant();
});

afterAll(() => merchant.close());

describe('the CI script of docs/ci.md', () => {
  it('runs as written (with a suite of its own): the trap stops the sandbox with sandbox stop, and the script ends at once', async () => {
    const project = merchantProject();
    // The suite step of the documented script, here: two payments (the scenario fails the first 3-D Secure).
    writeFileSync(
      join(project, 'suite.mjs'),
      `for (const reference of ['order-1', 'order-2']) {
  const res = await fetch(process.env.GATEWAY_URL + '/api/s2s', { method: 'POST', headers: { 'content-type': 'application/json' }, body: process.env.PAYMENT.replace('REF', reference) });
  console.log(reference, (await res.json()).order_status);
}\n`,
    );
    const payment = JSON.stringify(s2sBody({ reference: 'REF', webhook_url: `${merchant.url}/hook` }));
    const script = documentedScript()
      .replace(SUITE_LINE, 'GATEWAY_URL=$SANDBOX_URL node suite.mjs')
      .replace(URL_LINE, `${URL_LINE}\necho "url $SANDBOX_URL"; echo "pid $(cat .sandbox/sandbox.pid)"`);
    const run = await runScript(project, script, { PAYMENT: payment });
    const url = field(run.stdout, 'url')!;
    const pid = Number(field(run.stdout, 'pid'));
    expect(run.code, run.stderr).toBe(0);
    expect(run.released).toBe(true);
    expect(run.stdout).toMatch(/^order-1 0\norder-2 0\n/m);
    expect(run.stdout).toMatch(/^found: whd_\w+ payment\.authorized -> .* succeeded after 1 attempt/m);
    expect(run.stdout).toContain(`stopped sandbox (pid ${pid})`);
    await expectGone(url, pid);
    expect(existsSync(join(project, '.sandbox/sandbox.pid'))).toBe(false);
  });
});

describe('the sandbox stops when the process a script started goes away', () => {
  // Each starter runs the sandbox under a wrapper process (npm exec, npm run + sh) or directly.
  const starters: Array<[string, string, 'kill' | 'exit']> = [
    ['npx sandbox start ... & and kill $!', 'npx sandbox start', 'kill'],
    ['npm start -- ... & and kill $!', `npm --prefix ${root} start --`, 'kill'],
    ['node_modules/.bin/sandbox start ... & and the script exits without killing it', 'node_modules/.bin/sandbox start', 'exit'],
  ];

  it.each(starters)('%s', async (_, command, end) => {
    const project = merchantProject();
    const script = `#!/usr/bin/env bash
set -euo pipefail
mkdir -p .sandbox
${command} --port 0 --db :memory: --quiet --ready-file $PWD/.sandbox/url --pid-file $PWD/.sandbox/sandbox.pid &
SANDBOX_PID=$!
for i in $(seq 100); do [ -s .sandbox/url ] && break; sleep 0.1; done
echo "url $(cat .sandbox/url)"; echo "pid $(cat .sandbox/sandbox.pid)"
${end === 'kill' ? 'kill $SANDBOX_PID' : 'true'}
`;
    const run = await runScript(project, script);
    const url = field(run.stdout, 'url')!;
    const pid = Number(field(run.stdout, 'pid'));
    expect(url, run.stdout + run.stderr).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(run.code, run.stderr).toBe(0);
    await expectGone(url, pid);
    // The script's stdout was released within seconds of its end, not held by an orphan.
    expect(run.released).toBe(true);
  });

  it('kill $PID; wait $PID succeeds with a file database: exit status 0, database closed', async () => {
    const project = merchantProject();
    const script = `#!/usr/bin/env bash
set -euo pipefail
node_modules/.bin/sandbox start --port 0 --db .sandbox/ci.db --quiet --ready-file .sandbox/url &
PID=$!
for i in $(seq 100); do [ -s .sandbox/url ] && break; sleep 0.1; done
kill $PID
status=0; wait $PID || status=$?
echo "status $status"
`;
    mkdirSync(join(project, '.sandbox'));
    const run = await runScript(project, script);
    expect(field(run.stdout, 'status'), run.stderr).toBe('0');
    expect(run.stdout).toContain('SIGTERM: finishing in-flight webhooks and closing the database...');
    // The last connection's close checkpoints the WAL and removes it.
    expect(existsSync(join(project, '.sandbox/ci.db'))).toBe(true);
    expect(existsSync(join(project, '.sandbox/ci.db-wal'))).toBe(false);
  });
});

describe('startSandbox().close() with a file database', () => {
  it('resolves and closes the database, so a plain node script ends with status 0', async () => {
    const project = merchantProject();
    writeFileSync(
      join(project, 'close.mjs'),
      `import { startSandbox } from 'paysandbox';
const sandbox = await startSandbox({ db: 'close.db' });
await sandbox.close();
console.log('closed, database open: ' + sandbox.server.db.open);\n`,
    );
    const run = await runScript(project, 'node close.mjs\n');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('closed, database open: false\n');
  });
});

describe('sandbox stop', () => {
  it('without a pid file exits 1 and says how to get one', async () => {
    const project = merchantProject();
    const run = await runBuiltCli(['stop'], { cwd: project });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('sandbox: no pid file at .sandbox/sandbox.pid: start the sandbox with --pid-file .sandbox/sandbox.pid, or name the file with --pid-file\n');
  });

  it('after a sandbox was killed with SIGKILL, exits 0 and removes the pid file it left', async () => {
    const project = merchantProject();
    const sandbox = await startCliSandbox(['--db', ':memory:', '--quiet', '--pid-file'], { cwd: project });
    await sandbox.kill();
    const run = await runBuiltCli(['stop'], { cwd: project });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`sandbox (pid ${sandbox.child.pid}) is not running; removed .sandbox/sandbox.pid\n`);
    expect(existsSync(join(project, '.sandbox/sandbox.pid'))).toBe(false);
  });

  it('stops a sandbox started with --pid-file, which removes the file, and says so', async () => {
    const project = merchantProject();
    const sandbox = await startCliSandbox(['--db', ':memory:', '--quiet', '--pid-file'], { cwd: project });
    const pidFile = join(project, '.sandbox/sandbox.pid');
    expect(readFileSync(pidFile, 'utf8')).toBe(`${sandbox.child.pid}\n`);
    const run = await runBuiltCli(['stop'], { cwd: project });
    expect(run.stdout).toBe(`stopped sandbox (pid ${sandbox.child.pid})\n`);
    expect(await waitFor(() => sandbox.child.exitCode !== null && { code: sandbox.child.exitCode }, 'the exit event')).toEqual({ code: 0 });
    expect(existsSync(pidFile)).toBe(false);
    await expectGone(sandbox.url, sandbox.child.pid!);
  });
});
