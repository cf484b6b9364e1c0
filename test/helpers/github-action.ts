// Runs a JavaScript action's main or post step the way GitHub's runner does: node runs the file
// action.yml names, in the workspace, with every input as INPUT_<NAME> (the workflow's `with:`,
// else the input's default; upper-cased, spaces as _, hyphens kept), what main saved as STATE_<name>
// for post, fresh GITHUB_OUTPUT / GITHUB_STATE / GITHUB_ENV / GITHUB_PATH files, and RUNNER_TEMP.
// The one expression a default may hold here is `${{ job.status }}`, evaluated for each stage as
// the runner does (so post sees the job's status after its last step).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import yaml from 'js-yaml';

/** What action.yml says about the inputs and the scripts. */
export interface ActionManifest {
  inputs?: Record<string, { default?: string }>;
  outputs?: Record<string, { description: string }>;
  runs: { using: string; main: string; post?: string; 'post-if'?: string };
}

/** The action.yml in `dir`. */
export function actionManifest(dir: string): ActionManifest {
  return yaml.load(readFileSync(join(dir, 'action.yml'), 'utf8')) as ActionManifest;
}

/** How to run one stage of the action. */
export interface ActionStepOptions {
  /** The workspace: the step's working directory. */
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The step's `with:`. */
  with?: Record<string, unknown>;
  /** What main saved with GITHUB_STATE (post only). */
  state?: Record<string, string>;
  /** `job.status` when the stage starts. */
  jobStatus?: 'success' | 'failure' | 'cancelled';
  /** The job's RUNNER_TEMP, the same for main and post. */
  runnerTemp: string;
  timeoutMs?: number;
  /**
   * Cancels the job once this resolves, as the runner does: SIGINT to the step's process, then
   * SIGTERM 7.5 s later if it is still there.
   */
  cancelWhen?: (output: () => string) => Promise<unknown>;
  /** The first signal of the cancel (default SIGINT, as the runner); SIGKILL stands for a runner that could not wait. */
  cancelSignal?: NodeJS.Signals;
}

/** How a stage went; `released`: its output pipes closed within 5 s of node exiting. */
export interface ActionStepRun {
  code: number;
  output: string;
  released: boolean;
  outputs: Record<string, string>;
  state: Record<string, string>;
  env: Record<string, string>;
  path: string[];
}

/** The INPUT_* variables of a stage: `with:` values, else the defaults, evaluated for `jobStatus`. */
export function inputVariables(manifest: ActionManifest, given: Record<string, unknown>, jobStatus: string): Record<string, string> {
  const declared = manifest.inputs ?? {};
  const unknown = Object.keys(given).filter((name) => !(name in declared));
  if (unknown.length) throw new Error(`the action has no input ${unknown.join(', ')} (it has ${Object.keys(declared).join(', ')})`);
  const variables: Record<string, string> = {};
  for (const [name, { default: fallback = '' }] of Object.entries(declared)) {
    let value = name in given ? String(given[name]) : String(fallback);
    if (/^\$\{\{\s*job\.status\s*\}\}$/.test(value)) value = jobStatus;
    else if (value.includes('${{')) throw new Error(`input ${name}: ${value} is an expression the stand-in runner does not evaluate`);
    variables[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] = value;
  }
  return variables;
}

/** Runs the `main` or `post` script of the action in `dir`. */
export async function runActionStep(dir: string, stage: 'main' | 'post', options: ActionStepOptions): Promise<ActionStepRun> {
  const manifest = actionManifest(dir);
  const script = manifest.runs[stage];
  if (!script) throw new Error(`${dir}/action.yml has no runs.${stage}`);
  const files = mkdtempSync(join(tmpdir(), 'paysandbox-action-step-'));
  const paths = {
    GITHUB_OUTPUT: join(files, 'output'),
    GITHUB_STATE: join(files, 'state'),
    GITHUB_ENV: join(files, 'env'),
    GITHUB_PATH: join(files, 'path'),
  };
  for (const file of Object.values(paths)) writeFileSync(file, '');
  const states = Object.fromEntries(Object.entries(options.state ?? {}).map(([name, value]) => [`STATE_${name}`, value]));
  const child = spawn(process.execPath, [join(dir, script)], {
    cwd: options.cwd,
    env: {
      ...options.env,
      ...inputVariables(manifest, options.with ?? {}, options.jobStatus ?? 'success'),
      ...states,
      ...paths,
      RUNNER_TEMP: options.runnerTemp,
      GITHUB_WORKSPACE: options.cwd,
      GITHUB_ACTIONS: 'true',
      CI: 'true',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  void options
    .cancelWhen?.(() => output)
    .then(() => {
      if (child.exitCode !== null) return;
      child.kill(options.cancelSignal ?? 'SIGINT');
      setTimeout(() => child.exitCode === null && child.kill('SIGTERM'), 7500).unref();
    });
  const { code, released } = await new Promise<{ code: number; released: boolean }>((resolve) => {
    let code = -1;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      output += `\n(the ${stage} step did not end within ${options.timeoutMs ?? 60_000} ms)`;
    }, options.timeoutMs ?? 60_000);
    child.once('exit', (exitCode) => {
      clearTimeout(timer);
      code = exitCode ?? 1;
      setTimeout(() => resolve({ code, released: false }), 5000).unref();
    });
    child.once('close', () => resolve({ code, released: true }));
  });
  const read = (variable: keyof typeof paths) => readFileSync(paths[variable], 'utf8');
  const run = {
    code,
    output,
    released,
    outputs: parseFileCommands(read('GITHUB_OUTPUT')),
    state: parseFileCommands(read('GITHUB_STATE')),
    env: parseFileCommands(read('GITHUB_ENV')),
    path: read('GITHUB_PATH').split('\n').filter(Boolean),
  };
  rmSync(files, { recursive: true, force: true });
  return run;
}

/** A GITHUB_ENV / GITHUB_OUTPUT / GITHUB_STATE file's lines: `NAME=value`, or `NAME<<DELIMITER` then lines up to DELIMITER. */
export function parseFileCommands(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const [, name = '', delimiter = ''] = /^([^=<]+)<<(.+)$/.exec(line) ?? [];
    if (delimiter) {
      const end = lines.indexOf(delimiter, i + 1);
      values[name] = lines.slice(i + 1, end).join('\n');
      i = end;
    } else if (line.includes('=')) values[line.slice(0, line.indexOf('='))] = line.slice(line.indexOf('=') + 1);
  }
  return values;
}
