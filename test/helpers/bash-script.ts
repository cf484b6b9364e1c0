// Runs bash scripts the way a CI runner does (stdout piped) and checks that the sandbox a script
// started is gone afterwards: process, port and the pipes it could hold open.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor } from './wait-for.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * A merchant's project outside this repository with paysandbox installed as npm links it: this
 * checkout as node_modules/paysandbox, and its bin as node_modules/.bin/sandbox and .bin/paysandbox.
 */
export function merchantProject(): string {
  const project = mkdtempSync(join(tmpdir(), 'merchant-ci-'));
  mkdirSync(join(project, 'node_modules/.bin'), { recursive: true });
  symlinkSync(ROOT, join(project, 'node_modules/paysandbox'));
  for (const name of ['sandbox', 'paysandbox']) symlinkSync('../paysandbox/bin/sandbox.js', join(project, 'node_modules/.bin', name));
  return project;
}

/** How a script ended; `released`: its pipes closed within 5 s of bash exiting. */
export interface ScriptRun {
  code: number;
  stdout: string;
  stderr: string;
  released: boolean;
}

/**
 * Writes `script` to ci.sh in `cwd` and runs it with bash, stdout piped as a CI runner does.
 * `released` says whether the pipes closed within 5 s of bash exiting: a process left behind
 * holding them is what hung the CI step.
 */
export function runScript(cwd: string, script: string, env: NodeJS.ProcessEnv = {}): Promise<ScriptRun> {
  writeFileSync(join(cwd, 'ci.sh'), script, { mode: 0o755 });
  // npm must not look for updates or packages on the network; the bin is installed locally.
  const npmEnv = { npm_config_update_notifier: 'false', npm_config_offline: 'true', npm_config_fund: 'false', NO_COLOR: '1' };
  const child = spawn('bash', ['ci.sh'], { cwd, env: { ...process.env, ...npmEnv, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => {
    let code = -1;
    const done = (released: boolean) => resolve({ code, stdout, stderr, released });
    child.once('exit', (exitCode) => {
      code = exitCode ?? -1;
      setTimeout(() => done(false), 5000).unref();
    });
    child.once('close', () => done(true));
  });
}

/** True while process `pid` runs; exited but not reaped yet (a zombie) counts as gone. */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    // Exited and reaped between the two looks (ESRCH or ENOENT from /proc): not running.
    return false;
  }
  return stat[stat.lastIndexOf(')') + 2] !== 'Z';
}

/** Polls until the sandbox's port refuses connections and its process is gone (`withinMs`, 3 s unless told). */
export async function expectGone(url: string, pid: number, withinMs = 3000): Promise<void> {
  try {
    await waitFor(
      async () =>
        !isRunning(pid) &&
        (await fetch(`${url}/_sandbox/health`).then(
          () => false,
          () => true,
        )),
      `sandbox ${pid} at ${url} to stop`,
      withinMs,
      50,
    );
  } finally {
    // Never leave an orphan behind a failing test.
    if (isRunning(pid)) process.kill(pid, 'SIGKILL');
  }
}

/** The live processes whose working directory is `dir` (or under it): what a script left behind. */
export function processesIn(dir: string): { pid: number; command: string }[] {
  const found: { pid: number; command: string }[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || !isRunning(Number(name))) continue;
    try {
      const cwd = readlinkSync(`/proc/${name}/cwd`);
      if (cwd === dir || cwd.startsWith(`${dir}/`))
        found.push({ pid: Number(name), command: readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').join(' ').trim() });
    } catch {
      // Gone meanwhile, or another user's process: not the script's.
    }
  }
  return found;
}
