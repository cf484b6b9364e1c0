// `sandbox start` as a child process, the way a user or a CI script runs the built CLI: on a free
// port (--port 0) with --ready-file, resolved once the URL is written there and its "Listening on"
// line is read. Keeps what the child printed; stop() is Ctrl-C's SIGTERM, kill() the crash.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor } from './wait-for.js';

/** bin/sandbox.js, which imports the build in dist/. */
export const BIN = fileURLToPath(new URL('../../bin/sandbox.js', import.meta.url));

/** A running `sandbox start` child. */
export interface CliSandbox {
  url: string;
  child: ChildProcess;
  /** Everything written to stdout so far. */
  readonly stdout: string;
  /** Everything written to stderr so far. */
  readonly stderr: string;
  /** SIGTERM, then waits for the exit (a clean shutdown). */
  stop(): Promise<void>;
  /** SIGKILL, then waits for the exit. */
  kill(): Promise<void>;
}

/** How a CLI child runs: its directory, extra environment variables, and (startCliSandbox) whether to pass --port 0. */
export interface CliOptions {
  /** Run bin/sandbox.js through its own #! line, as `npx sandbox` does, instead of under this node. */
  shebang?: boolean;
  cwd?: string;
  /** Added to this process's environment. */
  env?: NodeJS.ProcessEnv;
  /** false leaves --port 0 out, so SANDBOX_PORT or the default decides. */
  port?: false;
}

/** Runs the built CLI to completion: `sandbox ...args`, its exit code and output (no colours). */
export function runBuiltCli(args: string[], options: Pick<CliOptions, 'cwd' | 'env'> = {}) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd: options.cwd, timeout: 30_000, env: { ...process.env, NO_COLOR: '1', ...options.env } },
      (err, stdout, stderr) => {
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

/** How long a start may take to write its ready file and banner before the test fails. */
const READY_WAIT_MS = 45_000;

/**
 * Starts `sandbox start --port 0 --ready-file <temp> ...args`. With `shebang`, the bin runs through
 * its own #! line as `npx sandbox` does; otherwise under this node.
 */
export async function startCliSandbox(args: string[], options: CliOptions = {}): Promise<CliSandbox> {
  const dir = mkdtempSync(join(tmpdir(), 'paysandbox-cli-'));
  const readyFile = join(dir, 'ready');
  const argv = ['start', ...(options.port === false ? [] : ['--port', '0']), '--ready-file', readyFile, ...args];
  const spawnOptions = { cwd: options.cwd, env: { ...process.env, ...options.env } };
  const child = options.shebang ? spawn(BIN, argv, spawnOptions) : spawn(process.execPath, [BIN, ...argv], spawnOptions);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const end = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  let url: string;
  try {
    url = await waitFor(
      () => {
        if (child.exitCode !== null) throw new Error(`sandbox start exited with ${child.exitCode}: ${stdout}${stderr}`);
        return existsSync(readyFile) ? readFileSync(readyFile, 'utf8').trim() || undefined : undefined;
      },
      'the sandbox ready file',
      // Only bounds a hang: at load 11 on 2 cores a start that makes a CA (an RSA key) passed 15 s.
      READY_WAIT_MS,
    );
    // The sandbox prints "Listening on" (and its banner) before it writes the ready file, but this
    // process may not have read the pipe yet: a poll (a timer) runs before pipe reads on a turn of
    // the event loop, so a busy test worker saw the file with stdout still empty (#38.10). Resolve
    // once the line is read, so every test finds the whole banner in `stdout`.
    const listening = `Listening on ${url}\n`;
    await waitFor(
      () => {
        if (child.exitCode !== null) throw new Error(`sandbox start exited with ${child.exitCode}: ${stdout}${stderr}`);
        return stdout.includes(listening);
      },
      `"${listening.trim()}" on the sandbox's stdout`,
      READY_WAIT_MS,
    );
  } catch (err) {
    await end('SIGKILL');
    throw err;
  }
  return {
    url,
    child,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    stop: () => end('SIGTERM'),
    kill: () => end('SIGKILL'),
  };
}
