// The Action's main step: starts `sandbox start` in the background for the job's later steps and
// returns once it answers, with its URL and first merchant's credentials as outputs (the secret
// ones masked) and SANDBOX_URL exported (so `npx sandbox ...` in a later step finds it). The
// sandbox runs detached: its own process group and session, its output in a log file under the
// runner's temp folder (it never holds the step's output open), and --keep-running, since this
// node exits at once. The post step (post.js) stops it. A start that fails is an ::error:: with
// the sandbox's log; a step cancelled during the start (SIGINT, then SIGTERM from the runner)
// stops what it started before it exits.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { credentialOutputs } from './credentials.js';
import { readInputs } from './inputs.js';
import { error, exportVariable, info, mask, printVerbatim, saveState, setOutput } from './runner.js';
import { getJson, npmError, processIdentity, sandboxCommand, startArguments, stopGroup } from './sandbox-process.js';

/** How long a start may take: npx may first download paysandbox and its native SQLite module. */
const START_TIMEOUT_MS = 300_000;
/** How long `npm ci` of the Action's own checkout may take: it installs and builds paysandbox. */
const INSTALL_TIMEOUT_MS = 900_000;
/** The outputs a later line of the job's log must not show. */
const SECRET_OUTPUTS = ['api-key', 'webhook-secret', 'private-key'];

/** The process group this step started and has not handed to the post step yet (stopped on a cancel). */
let running;

async function main() {
  if (process.platform === 'win32')
    return fail('this Action runs on Linux and macOS runners; on Windows start the sandbox in a run step (docs/ci.md)');
  let inputs;
  try {
    inputs = readInputs();
  } catch (err) {
    return fail(err.message);
  }
  const dir = mkdtempSync(join(process.env.RUNNER_TEMP || tmpdir(), 'paysandbox-'));
  const files = { log: join(dir, 'sandbox.log'), ready: join(dir, 'url'), pid: join(dir, 'sandbox.pid') };
  const command = sandboxCommand(process.cwd(), inputs.version);
  if (command.install && !(await install(command.install, join(dir, 'install.log')))) return;
  const args = [...command.args, ...startArguments(inputs, files)];
  info(`Starting paysandbox: ${command.shown} ${args.slice(command.args.length).join(' ')}`);
  const child = launch(command.file, args, files.log);
  // Saved at once: post stops this group too if the step ends before the sandbox answers.
  const launcherIdentity = processIdentity(child.pid) ?? '';
  saveState('launcher', child.pid);
  saveState('launcherIdentity', launcherIdentity);
  info(`Its log: ${files.log}`);
  let exit;
  child.once('exit', (code, sig) => (exit = sig ? `was killed by ${sig}` : `exited with status ${code}`));
  child.once('error', (err) => (exit = `could not run (${err.message})`));

  const deadline = Date.now() + START_TIMEOUT_MS;
  let url;
  while (!url) {
    if (exit) return fail(`paysandbox ${exit} before it answered: ${npmError(readLog(files.log)) ?? lastLine(files.log)}`, files.log);
    if (Date.now() >= deadline) {
      await stopGroup(child.pid);
      return fail(`paysandbox did not answer within ${START_TIMEOUT_MS / 1000} s`, files.log);
    }
    url = await answeringUrl(files.ready);
    if (!url) await new Promise((resolve) => setTimeout(resolve, 100));
  }

  // The pid file is written before the ready file: the sandbox itself, not npx or a shell above it.
  // Saved first, so the post step stops the sandbox even if what follows fails.
  const pid = Number(readFileSync(files.pid, 'utf8').trim());
  for (const [name, value] of Object.entries({ pid, identity: processIdentity(pid), log: files.log })) saveState(name, value ?? '');
  running = undefined;
  const {
    data: [merchant],
  } = await getJson(url, '/_sandbox/merchants?limit=1');
  // The signing mode as the sandbox resolved it: the input, else its variable, else plain.
  const mode = inputs.signature || process.env.SANDBOX_SIGNATURE || 'plain';
  const outputs = { ...credentialOutputs(url, merchant, mode), 'log-file': files.log };
  for (const name of SECRET_OUTPUTS) mask(String(outputs[name]));
  for (const [name, value] of Object.entries(outputs)) setOutput(name, value);
  exportVariable('SANDBOX_URL', url);
  child.unref();
  info(`paysandbox is listening on ${url} (pid ${pid}); SANDBOX_URL is set for the next steps, and the post step stops it.`);
}

/** Starts `file args` detached (a process group of its own, output to `logFile`): the step's `running` group. */
function launch(file, args, logFile, cwd = process.cwd()) {
  const log = openSync(logFile, 'a');
  const child = spawn(file, args, { cwd, detached: true, stdio: ['ignore', log, log] });
  closeSync(log);
  running = child.pid;
  return child;
}

/**
 * The workspace has no paysandbox: `npm ci` in the Action's own checkout, which installs its
 * dependencies and builds it (its prepare script). True once it is built.
 */
async function install(actionDir, logFile) {
  info(`This workspace has no paysandbox (add it to the project's devDependencies to skip this step): installing the Action's own copy,`);
  info(`npm ci in ${actionDir}, which builds it (a few minutes). Its log: ${logFile}`);
  const child = launch('npm', ['ci', '--no-audit', '--no-fund'], logFile, actionDir);
  const done = await new Promise((resolve) => {
    const timer = setTimeout(() => resolve('did not finish within 15 minutes'), INSTALL_TIMEOUT_MS);
    child.once('exit', (code, sig) => {
      clearTimeout(timer);
      resolve(code === 0 ? 'ok' : sig ? `was killed by ${sig}` : `exited with status ${code}`);
    });
    child.once('error', (err) => resolve(`could not run (${err.message})`));
  });
  if (done !== 'ok') {
    await stopGroup(child.pid);
    fail(`npm ci of the Action's own paysandbox ${done}: ${npmError(readLog(logFile)) ?? lastLine(logFile)}`, logFile);
    return false;
  }
  running = undefined;
  return true;
}

/** The URL of the ready file once the sandbox it names answers its health check; undefined before. */
async function answeringUrl(readyFile) {
  if (!existsSync(readyFile)) return undefined;
  const url = readFileSync(readyFile, 'utf8').trim();
  try {
    await getJson(url, '/_sandbox/health');
    return url;
  } catch {
    return undefined;
  }
}

function readLog(file) {
  return existsSync(file) ? readFileSync(file, 'utf8') : '';
}

function lastLine(file) {
  const lines = readLog(file).trim().split('\n');
  return lines[lines.length - 1] || '(the log is empty)';
}

function fail(message, logFile) {
  error(message);
  if (logFile) {
    info(`paysandbox's log (${logFile}):`);
    printVerbatim(readLog(logFile));
  }
  process.exitCode = 1;
}

/** A cancelled job: the runner sends SIGINT, then SIGTERM 7.5 s later; what this step started goes first. */
let cancelled = false;
for (const name of ['SIGINT', 'SIGTERM']) {
  process.on(name, async () => {
    if (cancelled) return;
    cancelled = true;
    info(`paysandbox: the step got ${name} (the job was cancelled?) before the sandbox was handed to the post step.`);
    if (running && (await stopGroup(running))) info(`Stopped what it had started (process group ${running}).`);
    process.exit(1);
  });
}

main().catch((err) => fail(`the paysandbox Action failed: ${err.stack ?? err}`));
