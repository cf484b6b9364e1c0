// The pid file of `sandbox start --pid-file`, which `sandbox stop` reads: the process id on one
// line, written once the sandbox answers and removed when it exits cleanly.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { ensureDirectory } from '../store/sandbox-dir.js';
import { CliError } from './cli-error.js';

/** Where --pid-file writes and `sandbox stop` reads when no file is named. */
export const DEFAULT_PID_FILE = '.sandbox/sandbox.pid';

/** Writes this process's pid to `path`, creating its directory. */
export function writePidFile(path: string): void {
  ensureDirectory(dirname(path));
  writeFileSync(path, `${process.pid}\n`);
}

/** The pid in `path`, undefined when there is no such file; throws on a file that holds no pid. */
export function readPidFile(path: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const pid = Number(text.trim());
  if (!Number.isInteger(pid) || pid <= 0) throw new CliError(`${path} does not hold a process id (it holds "${text.trim().slice(0, 40)}")`);
  return pid;
}

/** Removes `path` if it still names this process (a newer sandbox may have taken the file over). */
export function removeOwnPidFile(path: string): void {
  try {
    if (readPidFile(path) === process.pid) rmSync(path, { force: true });
  } catch {
    // Nothing to clean up, or nothing we may clean up.
  }
}
