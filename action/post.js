// The Action's post step, which the runner runs when the job's steps are over (post-if: always(),
// so after a failure or a cancel too): stops the sandbox main.js started (SIGTERM, which lets it
// finish webhook attempts in flight and close its database; SIGKILL if it is still there after
// 30 s) and prints its log, in a collapsed group, when the job failed or print-log says always.
// The runner tells a post step nothing of the job's outcome; the input job-status has the default
// `${{ job.status }}`, which the runner evaluates again for the post step (actions/runner
// evaluates an action's inputs per stage), so here it is the job's status after its last step.
import { existsSync, readFileSync } from 'node:fs';
import { readInputs } from './inputs.js';
import { info, printVerbatim, state, warning } from './runner.js';
import { processIdentity, signal, stopGroup, waitUntilGone } from './sandbox-process.js';

/** How long the sandbox may take to stop after SIGTERM: it waits for webhook attempts in flight. */
const STOP_TIMEOUT_MS = 30_000;

async function post() {
  const pid = Number(state('pid'));
  // main.js saves the pid once the sandbox answers; a start that failed ended what it started itself,
  // and one cut short (main killed before it could) left its launcher's process group, stopped here.
  if (!pid) {
    const launcher = Number(state('launcher'));
    const left = launcher && processIdentity(launcher) === state('launcherIdentity') && (await stopGroup(launcher));
    if (left) return warning(`the sandbox's start did not finish; stopped what it had started (process group ${launcher})`);
    return info('paysandbox: no sandbox was started, nothing to stop.');
  }
  let inputs = { 'print-log': 'on-failure', 'job-status': '' };
  try {
    inputs = readInputs();
  } catch (err) {
    warning(`${err.message}; the log is printed if the job failed`);
  }
  const stopped = await stop(pid, state('identity'));
  // npx, when it started the sandbox, exits with it; this is for one that would not.
  await stop(Number(state('launcher')), state('launcherIdentity'));
  if (stopped === 'stopped') info(`paysandbox (pid ${pid}) stopped.`);
  if (stopped === 'killed') warning(`the sandbox (pid ${pid}) did not stop within ${STOP_TIMEOUT_MS / 1000} s of SIGTERM and was killed`);
  if (stopped === 'was gone') warning(`the sandbox (pid ${pid}) stopped before the job's end; its log says why`);

  const status = inputs['job-status'];
  const reason =
    stopped === 'was gone'
      ? 'it stopped early'
      : inputs['print-log'] === 'always'
        ? 'print-log: always'
        : status !== '' && status !== 'success'
          ? `the job's status is ${status}`
          : undefined;
  if (!reason || inputs['print-log'] === 'never') return;
  const log = state('log');
  if (!existsSync(log)) return warning(`the sandbox's log ${log} is gone`);
  printVerbatim(readFileSync(log, 'utf8'), `paysandbox log (${reason})`);
}

/** Stops process `pid` if it is still the one main.js started: 'stopped', 'killed' or 'was gone'. */
async function stop(pid, identity) {
  if (!pid || !identity || processIdentity(pid) !== identity) return 'was gone';
  signal(pid, 'SIGTERM');
  if (await waitUntilGone(pid, identity, Date.now() + STOP_TIMEOUT_MS)) return 'stopped';
  signal(pid, 'SIGKILL');
  await waitUntilGone(pid, identity, Date.now() + 5000);
  return 'killed';
}

post().catch((err) => {
  warning(`stopping the sandbox failed: ${err.stack ?? err}`);
  process.exitCode = 1;
});
