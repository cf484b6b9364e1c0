// The GitHub Action's guards, run the way the runner runs its steps (test/helpers/github-action.ts)
// in a workspace without paysandbox, where it runs its own checkout (this repository, built): what
// an input may hold (no line break that would print a workflow command, a registry version only,
// white space around a value dropped), the secret outputs masked, print-log: never kept to, npm's
// own error in the annotation of a start that fails, and a job cancelled during the start, which
// must leave nothing running.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { npmError, sandboxCommand } from '../../action/sandbox-process.js';
import { expectGone, isRunning, processesIn } from '../helpers/bash-script.js';
import { runActionStep, type ActionStepOptions, type ActionStepRun } from '../helpers/github-action.js';
import { waitFor } from '../helpers/wait-for.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

let workspace: string;
let runnerTemp: string;

beforeEach(() => {
  workspace = mkdtempSync(join(tmpdir(), 'paysandbox-action-workspace-'));
  writeFileSync(join(workspace, 'package.json'), JSON.stringify({ name: 'shop', version: '1.0.0', private: true }));
  runnerTemp = mkdtempSync(join(tmpdir(), 'paysandbox-runner-temp-'));
});

afterEach(() => {
  // A failing test leaves nothing behind for the next: what it started runs in the workspace.
  for (const { pid } of processesIn(workspace)) process.kill(pid, 'SIGKILL');
  rmSync(workspace, { recursive: true, force: true });
  rmSync(runnerTemp, { recursive: true, force: true });
});

/** One stage of the Action in the workspace, as the runner runs it (npm offline: no registry here). */
function step(stage: 'main' | 'post', options: Partial<ActionStepOptions> = {}): Promise<ActionStepRun> {
  const env: NodeJS.ProcessEnv = { ...process.env, npm_config_offline: 'true', npm_config_update_notifier: 'false', ...options.env };
  for (const name of Object.keys(env)) if (name.startsWith('SANDBOX_')) delete env[name];
  return runActionStep(ROOT, stage, { cwd: workspace, runnerTemp, ...options, env });
}

/** The lines of a step's output that the runner takes for workflow commands. */
const commands = (run: ActionStepRun) => run.output.split('\n').filter((line) => line.startsWith('::'));

describe("a workspace without paysandbox: the Action's own checkout", () => {
  it('runs its bin/sandbox.js, masks the secret outputs, and post stops it', async () => {
    const main = await step('main', { with: { port: 0 } });
    expect(main.code, main.output).toBe(0);
    expect(main.output).toContain(`Starting paysandbox: ${join(ROOT, 'bin/sandbox.js')} start --port 0 --db :memory: `);
    expect(main.output).not.toMatch(/npx|registry/);
    expect(main.outputs).toMatchObject({ 'api-key': 'sk_test_sandbox', 'public-key': 'pk_test_1001' });
    expect(
      commands(main)
        .filter((line) => line.startsWith('::add-mask::'))
        .sort(),
    ).toEqual(['::add-mask::pv_test_1001', '::add-mask::sk_test_sandbox', '::add-mask::whsec_test_sandbox']);
    const post = await step('post', { state: main.state, jobStatus: 'success' });
    expect(post.code, post.output).toBe(0);
    await expectGone(String(main.outputs.url), Number(main.state.pid));
  });

  it('is installed with npm ci there first when it is not built; a version goes to the registry', () => {
    const unbuilt = mkdtempSync(join(tmpdir(), 'paysandbox-action-checkout-'));
    try {
      expect(sandboxCommand(workspace, '', unbuilt)).toEqual({
        file: join(unbuilt, 'bin/sandbox.js'),
        args: [],
        shown: join(unbuilt, 'bin/sandbox.js'),
        install: unbuilt,
      });
      expect(sandboxCommand(workspace, '', ROOT).install).toBeUndefined();
      expect(sandboxCommand(workspace, '0.1.0', ROOT)).toMatchObject({ file: 'npx', args: ['--yes', 'paysandbox@0.1.0'] });
    } finally {
      rmSync(unbuilt, { recursive: true, force: true });
    }
  });
});

describe('inputs', () => {
  it('with white space around them behave as trimmed (print-log: " always ", port: " 0 ")', async () => {
    const inputs = { port: ' 0 ', 'print-log': ' always ', db: ' :memory: ' };
    const main = await step('main', { with: inputs });
    expect(main.code, main.output).toBe(0);
    expect(main.output).toContain('start --port 0 --db :memory: --ready-file');
    const post = await step('post', { state: main.state, jobStatus: 'success', with: inputs });
    expect(post.code, post.output).toBe(0);
    expect(post.output).toContain('::group::paysandbox log (print-log: always)');
    expect(post.output).not.toContain('::warning');
    await expectGone(String(main.outputs.url), Number(main.state.pid));
  });

  it('print-log: never prints no log when the job failed', async () => {
    const main = await step('main', { with: { port: 0, 'print-log': 'never' } });
    expect(main.code, main.output).toBe(0);
    const post = await step('post', { state: main.state, jobStatus: 'failure', with: { 'print-log': 'never' } });
    expect(post.code, post.output).toBe(0);
    expect(post.output).toContain(`paysandbox (pid ${main.state.pid}) stopped.`);
    expect(post.output).not.toContain('::group::');
    expect(post.output).not.toContain('test mode');
    await expectGone(String(main.outputs.url), Number(main.state.pid));
  });

  it.each([
    ['scenario', '3ds-fails-then-approves\n::add-mask::pwned'],
    ['db', ':memory:\n::stop-commands::pwned'],
    ['fixtures', 'f.json\r\n::error::forged'],
  ])('%s with a line break is refused, and prints no workflow command of its own', async (name, value) => {
    const main = await step('main', { with: { [name]: value } });
    expect(main.code).toBe(1);
    expect(commands(main)).toEqual([`::error title=paysandbox::the input ${name} holds a line break; give it on one line`]);
    expect(main.state).toEqual({});
    expect(processesIn(workspace)).toEqual([]);
  });

  it.each([
    'file:../paysandbox',
    'github:someone/paysandbox',
    'https://example.com/paysandbox.tgz',
    'npm:other-package@1.0.0',
    '0.1.0 || file:x',
    '../x',
  ])('version %s is refused: a version of paysandbox on the registry only', async (version) => {
    const main = await step('main', { with: { version } });
    expect(main.code).toBe(1);
    expect(main.output).toContain(
      `::error title=paysandbox::the input version must be a version of paysandbox on the npm registry (0.1.0, 0.1 or a tag such as latest); got "${version}"`,
    );
    expect(main.output).not.toContain('Starting paysandbox');
    expect(processesIn(workspace)).toEqual([]);
  });
});

describe('a start npm cannot make', () => {
  it("names npm's own error in the annotation, not where npm put its log", async () => {
    const main = await step('main', { with: { version: '99.0.0' } });
    expect(main.code).toBe(1);
    const [annotation = ''] = commands(main).filter((line) => line.startsWith('::error'));
    expect(annotation).toContain(
      '::error title=paysandbox::paysandbox exited with status 1 before it answered: npm error code ENOTCACHED; request to https://registry.npmjs.org/paysandbox failed',
    );
    expect(annotation).not.toContain('A complete log of this run');
  });

  it('npmError takes the lines of the error, from npm 10 and npm 6 alike', () => {
    const npm10 = [
      'npm error code E404',
      'npm error 404 Not Found - GET https://registry.npmjs.org/paysandbox - Not found',
      'npm error A complete log of this run can be found in: /home/runner/.npm/_logs/x-debug-0.log',
    ].join('\n');
    expect(npmError(npm10)).toBe('npm error code E404; 404 Not Found - GET https://registry.npmjs.org/paysandbox - Not found');
    expect(npmError('npm ERR! code ENOENT\nnpm ERR! A complete log of this run can be found in:\n')).toBe('npm error code ENOENT');
    expect(npmError('paysandbox: port 4010 on 127.0.0.1 is already in use')).toBeUndefined();
  });
});

describe('a job cancelled during the start', () => {
  /** A paysandbox that never answers, and a process under it; their pids in the workspace once they run. */
  function hangingSandbox(): { launcher: string; child: string } {
    mkdirSync(join(workspace, 'node_modules/.bin'), { recursive: true });
    const bin = join(workspace, 'node_modules/.bin/paysandbox');
    writeFileSync(bin, '#!/usr/bin/env bash\necho $$ > launcher.pid\nsleep 600 &\necho $! > child.pid\nwait\n');
    chmodSync(bin, 0o755);
    return { launcher: join(workspace, 'launcher.pid'), child: join(workspace, 'child.pid') };
  }

  const pidIn = (file: string) => Number(readFileSync(file, 'utf8').trim());
  /** Once `file` names the process under the launcher and main said where the log is (it saved its state before). */
  const started = (file: string) => (output: () => string) =>
    waitFor(() => (output().includes('Its log:') && existsSync(file) && readFileSync(file, 'utf8').trim()) || undefined, file, 20_000);

  it("main stops what it started on the runner's SIGINT, and exits", async () => {
    const files = hangingSandbox();
    const main = await step('main', { cancelWhen: started(files.child) });
    expect(main.code, main.output).toBe(1);
    expect(main.output).toContain('paysandbox: the step got SIGINT (the job was cancelled?)');
    expect(main.output).toMatch(/Stopped what it had started \(process group \d+\)/);
    expect(isRunning(pidIn(files.launcher))).toBe(false);
    expect(isRunning(pidIn(files.child))).toBe(false);
    expect(processesIn(workspace)).toEqual([]);
    const post = await step('post', { state: main.state, jobStatus: 'cancelled' });
    expect(post.output).toContain('paysandbox: no sandbox was started, nothing to stop.');
  });

  it('main killed outright: post stops what it had started', async () => {
    const files = hangingSandbox();
    const main = await step('main', { cancelWhen: started(files.child), cancelSignal: 'SIGKILL' });
    expect(isRunning(pidIn(files.child))).toBe(true);
    const post = await step('post', { state: main.state, jobStatus: 'cancelled' });
    expect(post.code, post.output).toBe(0);
    expect(post.output).toMatch(
      /::warning title=paysandbox::the sandbox's start did not finish; stopped what it had started \(process group \d+\)/,
    );
    expect(isRunning(pidIn(files.launcher))).toBe(false);
    expect(isRunning(pidIn(files.child))).toBe(false);
  });
});
