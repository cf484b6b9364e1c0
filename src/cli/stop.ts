// `sandbox stop [--pid-file FILE] [--timeout 15s]`: the other half of `sandbox start --pid-file`,
// for scripts. Sends SIGTERM (the clean shutdown: in-flight webhooks finish, the database is
// closed) and waits for the process to exit, so the next step may reuse the port or the database.
import { readFileSync, rmSync } from 'node:fs';
import type { Command } from 'commander';
import { CliError } from './cli-error.js';
import { timeoutFlag } from './flag-checks.js';
import { DEFAULT_PID_FILE, readPidFile } from './pid-file.js';
import type { CliIo } from './io.js';

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: it exists but belongs to someone else, which is still "running".
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  // An exited process its parent has not reaped yet still answers kill(pid, 0); /proc tells.
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}

/** Adds `sandbox stop`. */
export function addStopCommand(program: Command, io: CliIo): void {
  program
    .command('stop')
    .description('stop a sandbox started with --pid-file, and wait until it has exited')
    .option('--pid-file <file>', 'the file given to sandbox start --pid-file', DEFAULT_PID_FILE)
    .option('--timeout <duration>', 'how long to wait for the clean shutdown, e.g. 15s', '15s')
    .action(async (flags: { pidFile: string; timeout: string }) => {
      const timeoutMs = timeoutFlag(flags.timeout, '15s or 1m');
      const pid = readPidFile(flags.pidFile);
      if (pid === undefined)
        throw new CliError(
          `no pid file at ${flags.pidFile}: start the sandbox with --pid-file ${flags.pidFile}, or name the file with --pid-file`,
        );
      if (!isRunning(pid)) {
        // A sandbox killed with SIGKILL leaves its file behind; stopping it again is not an error.
        rmSync(flags.pidFile, { force: true });
        io.out(`sandbox (pid ${pid}) is not running; removed ${flags.pidFile}`);
        return;
      }
      process.kill(pid, 'SIGTERM');
      const deadline = Date.now() + timeoutMs;
      while (isRunning(pid)) {
        if (Date.now() > deadline)
          throw new CliError(`sandbox (pid ${pid}) is still running ${flags.timeout} after SIGTERM; kill -9 ${pid} ends it at once`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      io.out(`stopped sandbox (pid ${pid})`);
    });
}
