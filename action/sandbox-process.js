// The sandbox process the Action starts and stops: which paysandbox runs and with what flags, how
// to tell it is still the same process (a pid alone may be reused by the time the post step runs),
// how to ask it over HTTP, and how to stop it. Standard library only (see runner.js).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';

/** This Action's own version: its repository's package.json, the same file at the tag a workflow pins. */
export const ACTION_VERSION = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version;

/**
 * How the step runs paysandbox. Without a version: the project's own copy
 * (node_modules/.bin/paysandbox, after `npm ci`), or in a checkout of paysandbox itself (its CI,
 * `uses: ./`) the checkout's bin/sandbox.js, else `npx --yes paysandbox@<this Action's version>`.
 * With a version: `npx --yes paysandbox@<version>`. Each runs with the `node` on PATH
 * (setup-node's), the one `npm ci` built better-sqlite3 for, never the runner's own node.
 */
export function sandboxCommand(cwd, version) {
  if (!version) {
    const bin = join(cwd, 'node_modules', '.bin', 'paysandbox');
    if (existsSync(bin)) return { file: bin, args: [], shown: 'node_modules/.bin/paysandbox' };
    const own = join(cwd, 'bin', 'sandbox.js');
    if (packageName(cwd) === 'paysandbox' && existsSync(own)) return { file: own, args: [], shown: 'bin/sandbox.js' };
  }
  const spec = `paysandbox@${version || ACTION_VERSION}`;
  return { file: 'npx', args: ['--yes', spec], shown: `npx --yes ${spec}` };
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
