// The harness of the CLI tests: startCliSandbox resolves with the whole banner already read. The
// sandbox prints "Listening on" before it writes its ready file, but a test process that was busy
// while it started (a loaded machine, another test file in the worker) found the file on a timer
// before reading the pipe, and `stdout` lacked the line: test/cli/https.test.ts failed once so (#38.10).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { startCliSandbox } from '../helpers/cli-sandbox.js';

it('startCliSandbox resolves with the "Listening on" line read, even when this process was busy while the sandbox started', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'paysandbox-helper-'));
  const pidFile = join(dir, 'sandbox.pid');
  try {
    const starting = startCliSandbox(['--db', ':memory:', '--quiet', '--pid-file', pidFile], { cwd: dir });
    // Busy, as a loaded worker is, until the sandbox has printed its line and written its files (the
    // pid file right before the ready file). From an immediate: the next turn of the event loop then
    // starts with the timers, among them the helper's poll, before it reads the pipe.
    await new Promise<void>((resolve) =>
      setImmediate(() => {
        const block = new Int32Array(new SharedArrayBuffer(4));
        while (!existsSync(pidFile)) Atomics.wait(block, 0, 0, 20);
        Atomics.wait(block, 0, 0, 50);
        resolve();
      }),
    );
    const sandbox = await starting;
    try {
      expect(sandbox.stdout).toContain(`Listening on ${sandbox.url}\n`);
    } finally {
      await sandbox.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
