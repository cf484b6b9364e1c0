// The sandbox process the Action starts and stops: which paysandbox runs and with what flags, how
// to tell it is still the same process (a pid alone may be reused by the time the post step runs),
// how to ask it over HTTP, and how to stop it. Standard library only (see runner.js).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** This Action's own checkout: the repository at the ref a workflow's `uses:` names, paysandbox's source. */
export const ACTION_DIR = fileURLToPath(new URL('..', import.meta.url));

/**
 * How the step runs paysandbox. With a version: `npx --yes paysandbox@<version>` from the npm
 * registry. Without: the project's own copy (node_modules/.bin/paysandbox, after `npm ci`); in a
 * checkout of paysandbox itself (its CI, `uses: ./`) the checkout's bin/sandbox.js; else the
 * Action's own checkout's bin/sandbox.js, which is the package's source at the Action's ref:
 * `install` then names that folder when it is not built yet (main runs `npm ci` there, which builds
 * it). Each runs with the `node` on PATH (setup-node's), the one `npm ci` built better-sqlite3 for,
 * never the runner's own node.
 * @param {string} cwd
 * @param {string} version
 * @param {string} [actionDir]
 * @returns {{ file: string, args: string[], shown: string, install?: string }}
 */
export function sandboxCommand(cwd, version, actionDir = ACTION_DIR) {
  if (version) {
    const spec = `paysandbox@${version}`;
    return { file: 'npx', args: ['--yes', spec], shown: `npx --yes ${spec}` };
  }
  const bin = join(cwd, 'node_modules', '.bin', 'paysandbox');
  if (existsSync(bin)) return { file: bin, args: [], shown: 'node_modules/.bin/paysandbox' };
  const own = join(cwd, 'bin', 'sandbox.js');
  if (packageName(cwd) === 'paysandbox' && existsSync(own)) return { file: own, args: [], shown: 'bin/sandbox.js' };
  const action = join(actionDir, 'bin', 'sandbox.js');
  const built = existsSync(join(actionDir, 'dist', 'sandbox.js')) && existsSync(join(actionDir, 'node_modules', 'better-sqlite3'));
  return { file: action, args: [], shown: action, ...(built ? {} : { install: actionDir }) };
}

/**
 * The lines of npm's own error in a log (`npm error code E404`, `npm error 404 Not Found - GET
 * ...`), joined; not the closing "A complete log of this run can be found in" line, which says
 * nothing of what went wrong. Undefined when the log holds no npm error.
 */
export function npmError(text) {
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => /^npm (?:error|ERR!) /.test(line) && !/A complete log of this run can be found in/.test(line))
    .map((line) => line.replace(/^npm (?:error|ERR!) /, ''));
  return lines.length ? `npm error ${lines.slice(0, 4).join('; ')}` : undefined;
}

function packageName(dir) {
  try {
    return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).name;
  } catch {
    return undefined;
  }
}

/**
 * The `sandbox start` arguments for the inputs. --keep-running: the process that started it (this
 * step's node) exits at once, and the sandbox must outlive it until the post step stops it.
 */
export function startArguments(inputs, files) {
  const optional = ['scenario', 'signature', 'fixtures'].flatMap((name) => (inputs[name] ? [`--${name}`, inputs[name]] : []));
  return [
    'start',
    '--port',
    inputs.port,
    '--db',
    inputs.db,
    ...optional,
    '--ready-file',
    files.ready,
    '--pid-file',
    files.pid,
    '--keep-running',
  ];
}

/**
 * What tells process `pid` apart from a later one with the same pid: its start time as `ps`
 * prints it (Linux and macOS). Undefined when there is no such process or it has exited and
 * waits to be reaped (a zombie).
 */
export function processIdentity(pid) {
  try {
    const [stat, ...started] = execFileSync('ps', ['-o', 'stat=,lstart=', '-p', String(pid)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    })
      .trim()
      .split(/\s+/);
    return stat && !stat.startsWith('Z') ? started.join(' ') : undefined;
  } catch {
    // ps exits 1 when there is no such process.
    return undefined;
  }
}

/** Resolves true once process `pid` (known by `identity`) has gone, false at `deadline`. */
export async function waitUntilGone(pid, identity, deadline) {
  while (processIdentity(pid) === identity) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return true;
}

/** Resolves true once no process of group `group` is left, false at `deadline`. */
export async function waitUntilGroupGone(group, deadline) {
  while (signal(-group, 0)) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return true;
}

/**
 * Stops process group `group` (a launcher started detached, and everything under it): SIGTERM,
 * then SIGKILL after `graceMs`. Resolves false when the group had gone already.
 */
export async function stopGroup(group, graceMs = 5000) {
  if (!signal(-group, 'SIGTERM')) return false;
  if (!(await waitUntilGroupGone(group, Date.now() + graceMs))) signal(-group, 'SIGKILL');
  await waitUntilGroupGone(group, Date.now() + 2000);
  return true;
}

/** Sends `signal` to `pid`; false when it had gone already. */
export function signal(pid, name) {
  try {
    process.kill(pid, name);
    return true;
  } catch {
    return false;
  }
}

/**
 * GET `path` of the sandbox at `url`: the parsed JSON of a 2xx answer, else it throws. No
 * keep-alive (agent: false), so an idle connection never holds the step's node open; the control
 * token, if the job set one, as the sandbox asks for it.
 */
export function getJson(url, path) {
  const token = process.env.SANDBOX_CONTROL_TOKEN;
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, url),
      { agent: false, timeout: 2000, headers: token ? { authorization: `Bearer ${token}` } : {} },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => {
          if (res.statusCode >= 200 && res.statusCode < 300) resolve(JSON.parse(body));
          else reject(new Error(`GET ${path} answered ${res.statusCode}: ${body.slice(0, 200)}`));
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`GET ${path} did not answer within 2 s`)));
    req.on('error', reject);
    req.end();
  });
}
