// The ready file of `sandbox start --ready-file FILE` only ever names a sandbox that answers: it
// is written whole once the sandbox answers, removed when it stops, and the file a SIGKILLed
// sandbox leaves behind is never taken for a live one by `sandbox wait --ready-file`, so a second
// run of a CI script in the same folder gets the new sandbox's URL, not the dead one's.
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectGone, merchantProject, runScript } from '../helpers/bash-script.js';
import { runCli } from '../helpers/cli-harness.js';
import { runBuiltCli } from '../helpers/cli-sandbox.js';
import { startTestServer } from '../helpers/test-sandbox.js';

const field = (stdout: string, name: string) => new RegExp(`^${name} (\\S+)$`, 'm').exec(stdout)?.[1];

describe('sandbox start --ready-file', () => {
  it('writes the URL whole (no temporary file left), and removes the file when the sandbox stops', async () => {
    const project = merchantProject();
    const script = `#!/usr/bin/env bash
set -euo pipefail
node_modules/.bin/sandbox start --port 0 --db :memory: --quiet --ready-file .sandbox/url &
PID=$!
for i in $(seq 100); do [ -s .sandbox/url ] && break; sleep 0.1; done
echo "url $(cat .sandbox/url)"
echo "files $(ls -A .sandbox | tr '\\n' ,)"
kill $PID; wait $PID
[ -e .sandbox/url ] && echo "after left" || echo "after removed"
`;
    const run = await runScript(project, script);
    expect(run.code, run.stderr).toBe(0);
    expect(field(run.stdout, 'url')).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(field(run.stdout, 'files')).toBe('.gitignore,url,');
    expect(field(run.stdout, 'after')).toBe('removed');
  });

  it('a second run in the same folder after a SIGKILL gets the new sandbox from sandbox wait --ready-file, never the dead one', async () => {
    const project = merchantProject();
    const start = 'node_modules/.bin/sandbox start --port 0 --db :memory: --quiet --ready-file .sandbox/url --pid-file';
    const first = await runScript(
      project,
      `#!/usr/bin/env bash
${start} > /dev/null &
for i in $(seq 100); do [ -s .sandbox/url ] && break; sleep 0.1; done
echo "url $(cat .sandbox/url)"
kill -9 $(cat .sandbox/sandbox.pid)
`,
    );
    const dead = field(first.stdout, 'url')!;
    await expectGone(dead, Number(readFileSync(join(project, '.sandbox/sandbox.pid'), 'utf8')));
    // SIGKILL gives no process a chance to clean up: the file still names the dead sandbox.
    expect(readFileSync(join(project, '.sandbox/url'), 'utf8')).toBe(`${dead}\n`);
    // The next start removes it before anything else, so even a start that then fails (its port is taken) does.
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    try {
      const failed = await runBuiltCli(
        ['start', '--port', String((blocker.address() as AddressInfo).port), '--db', ':memory:', '--quiet', '--ready-file', '.sandbox/url'],
        { cwd: project },
      );
      expect(failed.stderr).toMatch(/already in use/);
      expect(existsSync(join(project, '.sandbox/url'))).toBe(false);
    } finally {
      blocker.close();
    }
    writeFileSync(join(project, '.sandbox/url'), `${dead}\n`);

    const second = await runScript(
      project,
      `#!/usr/bin/env bash
set -euo pipefail
${start} > /dev/null &
echo "url $(node_modules/.bin/sandbox wait --ready-file .sandbox/url --timeout 20s)"
node_modules/.bin/sandbox stop
`,
    );
    expect(second.code, second.stderr).toBe(0);
    const url = field(second.stdout, 'url')!;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(url).not.toBe(dead);
    expect(existsSync(join(project, '.sandbox/url'))).toBe(false);
  });

  it("a second start that is refused (the database is taken) leaves the running sandbox's file alone", async () => {
    const project = merchantProject();
    const start = 'node_modules/.bin/sandbox start --port 0 --db .sandbox/shared.db --quiet --ready-file .sandbox/url';
    const run = await runScript(
      project,
      `#!/usr/bin/env bash
${start} --pid-file > /dev/null &
for i in $(seq 100); do [ -s .sandbox/url ] && break; sleep 0.1; done
echo "url $(cat .sandbox/url)"
${start} 2> refused.txt; echo "status $?"
echo "after $(cat .sandbox/url)"
node_modules/.bin/sandbox stop > /dev/null
`,
    );
    expect(field(run.stdout, 'status')).toBe('1');
    expect(readFileSync(join(project, 'refused.txt'), 'utf8')).toMatch(/^sandbox: another sandbox, pid \d+ on port \d+/);
    expect(field(run.stdout, 'after')).toBe(field(run.stdout, 'url'));
  });
});

describe('sandbox wait --ready-file', () => {
  const dir = () => mkdtempSync(join(tmpdir(), 'paysandbox-ready-'));

  it('prints the URL of the sandbox the file names once it answers (JSON with --json), and waits for an event there with --event', async () => {
    const sandbox = await startTestServer();
    try {
      const file = join(dir(), 'url');
      writeFileSync(file, `${sandbox.url}\n`);
      expect((await runCli(['wait', '--ready-file', file, '--timeout', '5s'])).out).toBe(sandbox.url);
      expect(JSON.parse((await runCli(['wait', '--ready-file', file, '--json'])).out)).toEqual({ url: sandbox.url });
      // A webhook to a port that is down is still a delivery of the event (`--status any`).
      await fetch(`${sandbox.url}/_sandbox/events/trigger`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"type":"payment.authorized","to":"http://127.0.0.1:9/hook"}',
      });
      const run = await runCli(['wait', '--ready-file', file, '--event', 'payment.authorized', '--status', 'any', '--timeout', '5s']);
      expect(run.exitCode).toBe(0);
      expect(run.out).toMatch(/^found: whd_\w+ payment\.authorized/);
    } finally {
      await sandbox.close();
    }
  });

  it('exits 1 after the timeout when the file names a sandbox that does not answer, saying so', async () => {
    const file = join(dir(), 'url');
    writeFileSync(file, 'http://127.0.0.1:9\n');
    const run = await runCli(['wait', '--ready-file', file, '--timeout', '300ms']);
    expect(run.exitCode).toBe(1);
    expect(run.error).toBe(
      `no sandbox became ready: ${file} names http://127.0.0.1:9: no sandbox answers at http://127.0.0.1:9 (a sandbox writes the file once it answers and removes it when it stops; one killed with SIGKILL leaves it behind)`,
    );
  });

  it('exits 1 after the timeout when there is no file', async () => {
    const folder = dir();
    const run = await runCli(['wait', '--ready-file', join(folder, 'url'), '--timeout', '300ms']);
    expect(run.exitCode).toBe(1);
    expect(run.error).toMatch(new RegExp(`^no sandbox became ready: ${join(folder, 'url')} does not exist yet `));
    expect(readdirSync(folder)).toEqual([]);
  });
});
