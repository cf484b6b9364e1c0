// Holds the write lock of a database file from another process (bench/children/hold-write-lock.js)
// for a while, as a second process writing to the same --db would.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor } from './wait-for.js';

const SCRIPT = fileURLToPath(new URL('../../bench/children/hold-write-lock.js', import.meta.url));

/** A running lock holder: `released` resolves once it rolled back and exited. */
export interface LockHolder {
  released: Promise<void>;
  /** Ends the holder now (test cleanup). */
  kill(): void;
}

/** Resolves once another process holds the write lock of `dbPath`; it lets go after `holdMs`. */
export async function holdWriteLock(dbPath: string, holdMs: number): Promise<LockHolder> {
  const dir = mkdtempSync(join(tmpdir(), 'paysandbox-lock-'));
  const readyFile = join(dir, 'ready');
  const child = spawn(process.execPath, [SCRIPT, readyFile, dbPath, String(holdMs)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const released = new Promise<void>((resolve, reject) =>
    child.once('exit', (code) => {
      rmSync(dir, { recursive: true, force: true });
      if (code === 0) resolve();
      else reject(new Error(`the lock holder exited with ${code}: ${stderr}`));
    }),
  );
  // Keep a failure before the lock was taken from going unhandled while we wait for the ready file.
  released.catch(() => undefined);
  await waitFor(
    () => {
      if (child.exitCode !== null) throw new Error(`the lock holder exited before it held the lock: ${stderr}`);
      try {
        return readFileSync(readyFile, 'utf8').includes('locked');
      } catch {
        return false;
      }
    },
    'the other process to hold the write lock',
    10_000,
  );
  return { released, kill: () => child.exitCode === null && child.kill() };
}
