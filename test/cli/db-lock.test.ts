// One sandbox per database file: a second `sandbox start` (or startSandbox()) on a --db another
// sandbox has open refuses to start, naming that sandbox's pid and port, instead of running beside
// it with a clock of its own. A sandbox killed with SIGKILL leaves nothing that blocks the next
// start, and `:memory:` databases are never shared.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/index.js';
import { lockAddress, lockDatabase } from '../../src/server/db-lock.js';
import { runBuiltCli, startCliSandbox } from '../helpers/cli-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';

const folder = () => mkdtempSync(join(tmpdir(), 'paysandbox-lock-'));
const portOf = (url: string) => new URL(url).port;
const refusal = (db: string, pid: number, url: string) =>
  `another sandbox, pid ${pid} on port ${portOf(url)} (${url}), is using the database ${db}: two sandboxes on one file would disagree about the time and the webhooks; stop it first (npx sandbox stop, or kill ${pid}), or give this one another --db (or :memory:)`;

describe('sandbox start on a database another sandbox has open', () => {
  it('exits 1 naming the other one, which keeps running; after a SIGKILL of that one, a new start takes the file', async () => {
    const dir = folder();
    const db = join(dir, 'shared.db');
    const first = await startCliSandbox(['--db', db, '--quiet']);
    try {
      const second = await runBuiltCli(['start', '--port', '0', '--db', db, '--quiet'], { cwd: dir });
      expect(second.code).toBe(1);
      expect(second.stderr).toBe(`sandbox: ${refusal(db, first.child.pid!, first.url)}\n`);
      expect(second.stdout).toBe('');
      // The same file by another spelling is the same database.
      const relative = await runBuiltCli(['start', '--port', '0', '--db', 'shared.db', '--quiet'], { cwd: dir });
      expect(relative.stderr).toBe(`sandbox: ${refusal('shared.db', first.child.pid!, first.url)}\n`);
      expect((await fetch(`${first.url}/_sandbox/health`)).status).toBe(200);
    } finally {
      await first.kill();
    }
    const third = await startCliSandbox(['--db', db, '--quiet']);
    await third.stop();
  });

  it('two :memory: sandboxes run side by side', async () => {
    const [a, b] = await Promise.all([startCliSandbox(['--db', ':memory:', '--quiet']), startCliSandbox(['--db', ':memory:', '--quiet'])]);
    await Promise.all([a.stop(), b.stop()]);
  });
});

describe('startSandbox() on a database another sandbox has open', () => {
  it('rejects naming the sandbox that has it; once that one is closed, the file is free again', async () => {
    const db = join(folder(), 'library.db');
    const first = await startSandbox({ db });
    try {
      await expect(startSandbox({ db })).rejects.toThrow(refusal(db, process.pid, first.url));
    } finally {
      await first.close();
    }
    const again = await startSandbox({ db });
    await again.close();
  });

  it('two :memory: sandboxes in one process do not lock each other', async () => {
    const [a, b] = await Promise.all([startSandbox(), startSandbox()]);
    await Promise.all([a.close(), b.close()]);
  });
});

describe('the lock as a socket file (macOS and other systems without abstract sockets)', () => {
  const MODULE = fileURLToPath(new URL('../../dist/server/db-lock.js', import.meta.url));

  it('is refused while its owner lives and taken over once the owner was killed with SIGKILL', async () => {
    const db = join(folder(), 'mac.db');
    const address = lockAddress(db, 'darwin');
    expect(address).toMatch(/paysandbox-db-[0-9a-f]{32}\.sock$/);
    // Another process holds the lock the way a sandbox on macOS would, then dies without cleaning up.
    const holder = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { lockDatabase } = await import(${JSON.stringify(MODULE)}); const lock = await lockDatabase(${JSON.stringify(db)}, 'darwin'); lock.url = 'http://127.0.0.1:4999'; console.log('locked'); setInterval(() => {}, 1000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      let out = '';
      holder.stdout.on('data', (chunk: Buffer) => (out += chunk));
      await waitFor(() => out.includes('locked'), 'the other process to hold the lock');
      await expect(lockDatabase(db, 'darwin')).rejects.toThrow(refusal(db, holder.pid!, 'http://127.0.0.1:4999'));
    } finally {
      holder.kill('SIGKILL');
      await new Promise((resolve) => holder.once('exit', resolve));
    }
    expect(existsSync(address)).toBe(true);
    const lock = await lockDatabase(db, 'darwin');
    await lock!.release();
    expect(existsSync(address)).toBe(false);
  });
});
