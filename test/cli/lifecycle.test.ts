// The sandbox's process lifecycle the way CI scripts drive it: real bash scripts start the built
// CLI through npx, npm start or node_modules/.bin/sandbox, in a project directory outside this
// repository. Whatever ends the script (`kill $!` on the wrapper, or simply exiting), the sandbox
// must be gone within a few seconds and must not hold the script's stdout open: the orphan of a
// killed npx kept a piped CI step waiting for ten minutes. docs/ci.md's script, whose trap runs
// `sandbox stop`, runs in test/docs/ci-script.test.ts against the packed package.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectGone, isRunning, merchantProject, processesIn, runScript } from '../helpers/bash-script.js';
import { runBuiltCli, startCliSandbox } from '../helpers/cli-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

const field = (stdout: string, name: string) => new RegExp(`^${name} (\\S+)$`, 'm').exec(stdout)?.[1];

beforeAll(() => {
  expect(existsSync(join(root, 'dist/sandbox.js')), 'dist/ is missing: run npm run build first').toBe(true);
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
# npm start and npx take seconds to start on a busy machine: wait up to 60 s for the ready file.
for i in $(seq 600); do [ -s .sandbox/url ] && break; sleep 0.1; done
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

describe('the sandbox stops by itself when the process that started it is killed with SIGKILL', () => {
  // npx and npm start run the bin under npm's own `sh -c`, which outlives a SIGKILLed npm: the
  // sandbox watches npm itself. A script's `&` makes the script the parent.
  const cases: Array<[string, string, string]> = [
    ['npx sandbox start ... & and kill -9 $! (npm exec)', 'npx sandbox start', 'kill -9 $SANDBOX_PID'],
    ['npm start -- ... & and kill -9 $! (npm start)', `npm --prefix ${root} start --`, 'kill -9 $SANDBOX_PID'],
    ['node_modules/.bin/sandbox start ... & and kill -9 of the script that started it', 'node_modules/.bin/sandbox start', 'kill -9 $$'],
  ];

  it.each(cases)('%s', async (_, command, kill) => {
    const project = merchantProject();
    const script = `#!/usr/bin/env bash
set -euo pipefail
# npm start runs in the package's folder, where a --db elsewhere needs its folder to exist.
mkdir -p .sandbox
${command} --port 0 --db $PWD/.sandbox/ci.db --quiet --ready-file $PWD/.sandbox/url --pid-file $PWD/.sandbox/sandbox.pid &
SANDBOX_PID=$!
# npm start and npx take seconds to start on a busy machine: wait up to 60 s for the ready file.
for i in $(seq 600); do [ -s .sandbox/url ] && break; sleep 0.1; done
echo "url $(cat .sandbox/url)"; echo "pid $(cat .sandbox/sandbox.pid)"
echo "killed_at $(date +%s%3N)"
${kill}
`;
    const run = await runScript(project, script);
    const url = field(run.stdout, 'url')!;
    const pid = Number(field(run.stdout, 'pid'));
    expect(url, run.stdout + run.stderr).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // The watch polls every 250 ms and an idle machine stops well within 2 s (docs/ci.md); at CI
    // load the stop itself once took 2.2 s, so the bound tells a watch that fires from none at all
    // (nothing else would stop this sandbox), not the machine's speed.
    await expectGone(url, pid, 10_000);
    expect(Date.now() - Number(field(run.stdout, 'killed_at'))).toBeLessThan(10_000);
    expect(run.released).toBe(true);
    // It stopped cleanly, as on SIGTERM: its files are gone and the database is closed (no WAL left).
    expect(existsSync(join(project, '.sandbox/url'))).toBe(false);
    expect(existsSync(join(project, '.sandbox/sandbox.pid'))).toBe(false);
    expect(existsSync(join(project, '.sandbox/ci.db-wal'))).toBe(false);
  });

  it('names the process it watched when that one goes', async () => {
    const project = merchantProject();
    const script = `#!/usr/bin/env bash
npx sandbox start --port 0 --db :memory: --quiet --ready-file .sandbox/url > sandbox.log &
NPX=$!
for i in $(seq 100); do [ -s .sandbox/url ] && break; sleep 0.1; done
kill -9 $NPX
echo "npx $NPX"
`;
    const run = await runScript(project, script);
    const npx = field(run.stdout, 'npx');
    const line = await waitFor(() => /^the process .*$/m.exec(readFileSync(join(project, 'sandbox.log'), 'utf8'))?.[0], 'the stop line');
    expect(line).toBe(
      `the process that started the sandbox (npm exec, pid ${npx}) exited: finishing in-flight webhooks and closing the database...`,
    );
  });

  it('--keep-running outlives the script that started it, until sandbox stop', async () => {
    const project = merchantProject();
    const script = `#!/usr/bin/env bash
set -euo pipefail
node_modules/.bin/sandbox start --keep-running --port 0 --db :memory: --quiet --ready-file .sandbox/url --pid-file > /dev/null 2>&1 &
for i in $(seq 100); do [ -s .sandbox/url ] && break; sleep 0.1; done
echo "url $(cat .sandbox/url)"; echo "pid $(cat .sandbox/sandbox.pid)"
`;
    const run = await runScript(project, script);
    const url = field(run.stdout, 'url')!;
    const pid = Number(field(run.stdout, 'pid'));
    try {
      // A window of four watch intervals (250 ms each): a watching sandbox would have stopped in it.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(isRunning(pid)).toBe(true);
      expect((await fetch(`${url}/_sandbox/health`)).status).toBe(200);
      const stop = await runBuiltCli(['stop'], { cwd: project });
      expect(stop.stdout).toBe(`stopped sandbox (pid ${pid})\n`);
    } finally {
      await expectGone(url, pid);
    }
  });
});

describe('sandbox receive stops when the npx that started it is killed', () => {
  // npx runs receive under npm's own `sh -c`, which outlives a killed npm: without the parent watch
  // receive kept running and holding its port, so the next `receive --port 3000` found it busy.
  it.each(['TERM', 'KILL'])('kill -%s of npx frees the port and leaves no receive behind', async (signal) => {
    const project = merchantProject();
    const script = `#!/usr/bin/env bash
npx sandbox receive --port 0 2> receive.log &
NPX=$!
# npx takes seconds to start on a busy machine: wait up to 60 s for the banner.
for i in $(seq 600); do grep -q 'receiving webhooks at' receive.log && break; sleep 0.1; done
echo "url $(grep -o 'http://[^ ]*' receive.log | head -1)"
kill -${signal} $NPX
`;
    const run = await runScript(project, script);
    const url = field(run.stdout, 'url')!;
    expect(url, run.stdout + run.stderr).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const left = () => processesIn(project).filter((p) => p.command.includes('receive'));
    try {
      await waitFor(
        async () =>
          left().length === 0 &&
          (await fetch(url, { method: 'POST' }).then(
            () => false,
            () => true,
          )),
        'receive to stop and free its port',
        3000,
        50,
      );
    } finally {
      for (const p of left()) process.kill(p.pid, 'SIGKILL');
    }
    // npm passes a TERM on to its shell, which goes first; a KILL leaves the shell, and npm is the one gone.
    expect(readFileSync(join(project, 'receive.log'), 'utf8')).toMatch(
      /^the process that started receive \((npm exec|sh), pid \d+\) exited: stopping$/m,
    );
  });
});

describe('the .sandbox folder', () => {
  it('gets a .gitignore of * when sandbox start creates it, so its database is never committed', async () => {
    const project = merchantProject();
    const sandbox = await startCliSandbox(['--quiet', '--pid-file'], { cwd: project });
    await sandbox.stop();
    expect(existsSync(join(project, '.sandbox/sandbox.db'))).toBe(true);
    expect(readFileSync(join(project, '.sandbox/.gitignore'), 'utf8')).toMatch(/^\*$/m);
  });

  it('is left as it is when the merchant made it', async () => {
    const project = merchantProject();
    mkdirSync(join(project, '.sandbox'));
    writeFileSync(join(project, '.sandbox/known-state.json'), '{}');
    const sandbox = await startCliSandbox(['--quiet', '--pid-file'], { cwd: project });
    await sandbox.stop();
    expect(existsSync(join(project, '.sandbox/sandbox.db'))).toBe(true);
    expect(existsSync(join(project, '.sandbox/.gitignore'))).toBe(false);
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
    expect(run.stderr).toBe(
      'sandbox: no pid file at .sandbox/sandbox.pid: start the sandbox with --pid-file .sandbox/sandbox.pid, or name the file with --pid-file\n',
    );
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
