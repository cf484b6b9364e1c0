// The Action's main step: starts `sandbox start` in the background for the job's later steps and
// returns once it answers, with its URL and first merchant's credentials as outputs and
// SANDBOX_URL exported (so `npx sandbox ...` in a later step finds it). The sandbox runs detached:
// its own process group and session, its output in a log file under the runner's temp folder (it
// never holds the step's output open), and --keep-running, since this node exits at once. The
// post step (post.js) stops it. A start that fails is an ::error:: with the sandbox's log.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { credentialOutputs } from './credentials.js';
import { readInputs } from './inputs.js';
import { error, exportVariable, info, printVerbatim, saveState, setOutput } from './runner.js';
import { getJson, processIdentity, sandboxCommand, signal, startArguments, waitUntilGone } from './sandbox-process.js';

/** How long a start may take: npx may first download paysandbox and its native SQLite module. */
const START_TIMEOUT_MS = 300_000;

async function main() {
  if (process.platform === 'win32')
    return fail('this Action runs on Linux and macOS runners; on Windows start the sandbox in a run step (docs/ci.md, CLI for CI scripts)');
  let inputs;
  try {
    inputs = readInputs();
  } catch (err) {
    return fail(err.message);
  }
  const dir = mkdtempSync(join(process.env.RUNNER_TEMP || tmpdir(), 'paysandbox-'));
  const files = { log: join(dir, 'sandbox.log'), ready: join(dir, 'url'), pid: join(dir, 'sandbox.pid') };
  const command = sandboxCommand(process.cwd(), inputs.version);
  const args = [...command.args, ...startArguments(inputs, files)];
  info(`Starting paysandbox: ${command.shown} ${args.slice(command.args.length).join(' ')}`);
  info(`Its log: ${files.log}`);

  const log = openSync(files.log, 'a');
  const child = spawn(command.file, args, { detached: true, stdio: ['ignore', log, log] });
  closeSync(log);
  let exit;
  child.once('exit', (code, sig) => (exit = sig ? `was killed by ${sig}` : `exited with status ${code}`));
  child.once('error', (err) => (exit = `could not run (${err.message})`));

  const deadline = Date.now() + START_TIMEOUT_MS;
  let url;
  while (!url) {
    if (exit) return fail(`paysandbox ${exit} before it answered: ${lastLine(files.log)}`, files.log);
    if (Date.now() >= deadline) {
      await stopLauncher(child);
      return fail(`paysandbox did not answer within ${START_TIMEOUT_MS / 1000} s`, files.log);
    }
    url = await answeringUrl(files.ready);
    if (!url) await new Promise((resolve) => setTimeout(resolve, 100));
  }

  // The pid file is written before the ready file: the sandbox itself, not npx or a shell above it.
  // Saved first, so the post step stops the sandbox even if what follows fails.
  const pid = Number(readFileSync(files.pid, 'utf8').trim());
  const launcher = child.pid;
  const saved = { pid, identity: processIdentity(pid), launcher, launcherIdentity: processIdentity(launcher), log: files.log };
  for (const [name, value] of Object.entries(saved)) saveState(name, value ?? '');
  const {
    data: [merchant],
  } = await getJson(url, '/_sandbox/merchants?limit=1');
  // The signing mode as the sandbox resolved it: the input, else its variable, else plain.
  const mode = inputs.signature || process.env.SANDBOX_SIGNATURE || 'plain';
  for (const [name, value] of Object.entries({ ...credentialOutputs(url, merchant, mode), 'log-file': files.log })) setOutput(name, value);
  exportVariable('SANDBOX_URL', url);
  child.unref();
  info(`paysandbox is listening on ${url} (pid ${pid}); SANDBOX_URL is set for the next steps, and the post step stops it.`);
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

/** Ends a start that never answered: SIGTERM to what this step started, SIGKILL 5 s later. */
async function stopLauncher(child) {
  const identity = processIdentity(child.pid);
  if (identity === undefined) return;
  signal(-child.pid, 'SIGTERM');
  if (!(await waitUntilGone(child.pid, identity, Date.now() + 5000))) signal(-child.pid, 'SIGKILL');
}

function lastLine(file) {
  const lines = readFileSync(file, 'utf8').trim().split('\n');
  return lines[lines.length - 1] || '(the log is empty)';
}

function fail(message, logFile) {
  error(message);
  if (logFile) {
    info(`paysandbox's log (${logFile}):`);
    printVerbatim(readFileSync(logFile, 'utf8'));
  }
  process.exitCode = 1;
}

main().catch((err) => fail(`the paysandbox Action failed: ${err.stack ?? err}`));
