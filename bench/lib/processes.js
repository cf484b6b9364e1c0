// Child processes of the bench: the sandbox as a user runs it (`node bin/sandbox.js start`), the
// bare Hono baseline, and helper scripts. Servers under test run in their own process so the
// load generator's CPU is not charged to them (on 2 cores both still share the machine).
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from './http.js';

/** The project root (bench/ sits in it). */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A temporary directory removed by `cleanupTemp()` at the end of the run. */
const tempRoot = mkdtempSync(join(tmpdir(), 'paysandbox-bench-'));
let tempCount = 0;

/** A fresh path inside the run's temp directory, e.g. tempPath('create', '.db'). */
export function tempPath(name, suffix = '') {
  tempCount += 1;
  return join(tempRoot, `${name}-${tempCount}${suffix}`);
}

/** Removes every temp file of the run (databases, ready files). */
export function cleanupTemp() {
  rmSync(tempRoot, { recursive: true, force: true });
}

const live = new Set();

/** Kills every child still running (a crash of the bench must not leave servers behind). */
export function killAll() {
  for (const child of live) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

/** Tracks a child: its last output, and a promise of its exit. */
export function track(child, label) {
  live.add(child);
  let output = '';
  const keep = (chunk) => {
    output = (output + chunk.toString('utf8')).slice(-8000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise((resolve) =>
    child.once('exit', (code, signal) => {
      live.delete(child);
      resolve({ code, signal });
    }),
  );
  return { output: () => output, exited, label };
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Waits until `path` holds a line of text (the ready file), or the child exits, or the deadline passes. */
async function readReadyFile(path, tracked, deadlineMs) {
  const deadline = performance.now() + deadlineMs;
  let exited = false;
  tracked.exited.then(() => (exited = true));
  for (;;) {
    try {
      const text = readFileSync(path, 'utf8').trim();
      if (text) return text;
    } catch {
      // not written yet
    }
    if (exited) throw new Error(`${tracked.label} exited before it was ready:\n${tracked.output()}`);
    if (performance.now() > deadline) throw new Error(`${tracked.label} was not ready within ${deadlineMs} ms:\n${tracked.output()}`);
    await sleep(2);
  }
}

/** A child server: its URL and pid, and ways to stop it. */
export function handle(child, tracked, url, spawnedAt) {
  return {
    url,
    pid: child.pid,
    spawnedAt,
    output: tracked.output,
    exited: tracked.exited,
    /** SIGTERM: the clean shutdown a user gets with Ctrl-C. */
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return tracked.exited;
    },
    /** SIGKILL: the crash. */
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      return tracked.exited;
    },
  };
}

/**
 * The node flags on bin/sandbox.js's `#!/usr/bin/env -S node ...` line: what `npx sandbox` and
 * `npm start` run with, so the bench measures the same process a user gets.
 */
export const SANDBOX_NODE_FLAGS = readFileSync(join(ROOT, 'bin/sandbox.js'), 'utf8')
  .split('\n')[0]
  .split(/\s+/)
  .filter((word) => word.startsWith('--'));

/** Starts `sandbox start --port 0 --db <db> --quiet --ready-file <f>` and resolves once it wrote its URL. */
export async function startSandbox({ db, flags = [] }) {
  const readyFile = tempPath('ready', '.txt');
  const spawnedAt = performance.now();
  const child = spawn(
    process.execPath,
    [
      ...SANDBOX_NODE_FLAGS,
      join(ROOT, 'bin/sandbox.js'),
      'start',
      '--port',
      '0',
      '--db',
      db,
      '--quiet',
      '--ready-file',
      readyFile,
      ...flags,
    ],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const tracked = track(child, 'sandbox start');
  const url = await readReadyFile(readyFile, tracked, 15_000);
  return { ...handle(child, tracked, url, spawnedAt), readyFile };
}

/** Starts a bench/children script that writes its URL to the ready file given as its first argument. */
export async function startScript(script, args = [], { ipc = false, nodeFlags = [] } = {}) {
  const readyFile = tempPath('ready', '.txt');
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, [...nodeFlags, join(ROOT, 'bench/children', script), readyFile, ...args], {
    cwd: ROOT,
    stdio: ipc ? ['ignore', 'pipe', 'pipe', 'ipc'] : ['ignore', 'pipe', 'pipe'],
  });
  const tracked = track(child, script);
  const url = await readReadyFile(readyFile, tracked, 15_000);
  return { ...handle(child, tracked, url, spawnedAt), child };
}

/** A port on 127.0.0.1 that was free a moment ago, for servers that cannot listen on port 0 and say which port they got. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts `prism mock <document> -p <port> -h 127.0.0.1 -v error` (@stoplight/prism-cli, static
 * examples) and resolves once it answers HTTP. `-v error` is Prism's --quiet: the sandbox is
 * measured without its per-request log line, so the peer is too.
 */
export async function startPrismMock(documentPath) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const spawnedAt = performance.now();
  const child = spawn(
    process.execPath,
    [join(ROOT, 'node_modules/.bin/prism'), 'mock', documentPath, '-p', String(port), '-h', '127.0.0.1', '-v', 'error'],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const tracked = track(child, 'prism mock');
  let exited = false;
  tracked.exited.then(() => (exited = true));
  // With -v error Prism prints nothing when it is ready, so poll until it answers (its start took
  // over 30 s at load 20; the limit only bounds a hang).
  const deadline = performance.now() + 90_000;
  for (;;) {
    if (exited) throw new Error(`prism mock exited before it was ready:\n${tracked.output()}`);
    try {
      await request(`${url}/openapi.json`, { timeoutMs: 1000 });
      break;
    } catch {
      if (performance.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`prism mock did not answer within 90 s:\n${tracked.output()}`);
      }
      await sleep(50);
    }
  }
  return handle(child, tracked, url, spawnedAt);
}

/** Resident and peak resident memory of a process, in MB (Linux /proc). */
export function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
}

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** CPU time a process has used so far (user + system), in ms, from /proc/<pid>/stat. */
export function cpuMsOf(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

/**
 * CPU time of a process's main thread (the event loop, where the one SQLite writer runs), in ms:
 * /proc/<pid>/task/<pid>/stat. The rest of cpuMsOf is other threads: V8's GC helpers, libuv's
 * pool, and worker threads.
 */
export function mainThreadCpuMsOf(pid) {
  const fields = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

/**
 * Waits until a server has gone quiet (at most 5% of a core or one clock tick, whichever is more,
 * over a window of `windowMs`: 300 ms, 100 ms in quick mode; at most `maxMs`), so background work
 * one run left behind (webhooks, refunds completing) is not charged to the next.
 */
export async function settle(pid, maxMs = 20_000, windowMs = 300) {
  const quietMs = Math.max(windowMs * 0.05, TICK_MS);
  const deadline = performance.now() + maxMs;
  for (;;) {
    const before = cpuMsOf(pid);
    await sleep(windowMs);
    if (cpuMsOf(pid) - before <= quietMs || performance.now() > deadline) return;
  }
}
