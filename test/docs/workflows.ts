// The GitHub Actions workflows the pages show (```yaml blocks with `jobs:`), and a runner that runs
// a job's steps the way GitHub's runner does: steps in order, each `run:` in a fresh
// `bash --noprofile --norc -eo pipefail`, with the workflow's and job's `env:`, what earlier steps
// appended to $GITHUB_ENV and $GITHUB_PATH, fresh $GITHUB_ENV / $GITHUB_OUTPUT / $GITHUB_PATH files
// per step, `if:` as success(), failure() or always(), and background processes left running
// until the job ends, when they are killed (the runner's "cleaning up orphan processes"). A
// JavaScript action it is given (this repository's own) runs for real: its main where the step is,
// its post after the last step, and `${{ steps.<id>.outputs.<name> }}` in a step's `env:` and
// `with:` is its output.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { actionManifest, parseFileCommands, runActionStep } from '../helpers/github-action.js';
import { docBlocks } from './doc-blocks.js';

/** One step of a job, as written. */
export interface WorkflowStep {
  name?: string;
  id?: string;
  uses?: string;
  run?: string;
  if?: string;
  env?: Record<string, string | number | boolean>;
  with?: Record<string, unknown>;
  shell?: string;
  'working-directory'?: string;
}

/** A workflow a page shows. */
export interface Workflow {
  /** The path its first comment names (`# .github/workflows/test.yml`): how stand-ins find it. */
  path: string;
  /** Where it is: `docs/ci.md line 891`. */
  where: string;
  env: Record<string, string>;
  jobs: Record<string, { env?: Record<string, string>; steps: WorkflowStep[] }>;
}

/** Every workflow of a Markdown page, in page order. */
export function documentedWorkflows(file: string, shown = file): Workflow[] {
  return docBlocks(file)
    .filter((block) => block.lang === 'yaml' && /^jobs:/m.test(block.text))
    .map((block) => {
      const doc = yaml.load(block.text) as Omit<Workflow, 'path' | 'where'>;
      const path = /^#\s*(\.github\/workflows\/\S+\.ya?ml)/.exec(block.text)?.[1] ?? '';
      return { path, where: `${shown} line ${block.line}`, env: doc.env ?? {}, jobs: doc.jobs };
    });
}

/** Every `run:` script of a workflow, with the job it belongs to. */
export function runScripts(workflow: Workflow): string[] {
  return Object.values(workflow.jobs).flatMap((job) => job.steps.flatMap((step) => (step.run ? [step.run] : [])));
}

/** How one step went: its exit code, or why it did not run a command. */
export interface StepRun {
  step: string;
  result: 'success' | 'failure' | 'skipped' | 'satisfied';
  output: string;
}

/** What the runner needs to know about the machine: where, with what, and what stands for `uses:` steps. */
export interface JobOptions {
  dir: string;
  env: NodeJS.ProcessEnv;
  /**
   * What a `uses:` action, or a `run:` that only installs dependencies, stands for here: undefined
   * when it is not known (the job fails, naming it), else the lines it adds to $GITHUB_PATH.
   */
  satisfied: (step: WorkflowStep) => string[] | undefined;
  /** JavaScript actions that run for real, by their `uses:` name without `@ref`: the folder of their action.yml. */
  actions?: Record<string, string>;
  timeoutMs?: number;
}

/** Runs one job's steps in order, then the post steps of its actions; the caller ends what they left running with `endJob`. */
export async function runJob(workflow: Workflow, jobName: string, options: JobOptions): Promise<{ steps: StepRun[]; groups: number[] }> {
  const job = workflow.jobs[jobName]!;
  const runs: StepRun[] = [];
  const groups: number[] = [];
  const exported: Record<string, string> = {};
  const paths: string[] = [];
  const outputs: Record<string, Record<string, string>> = {};
  const posts: { name: string; dir: string; step: WorkflowStep; state: Record<string, string> }[] = [];
  const runnerTemp = mkdtempSync(join(tmpdir(), 'paysandbox-runner-temp-'));
  let failed = false;
  const stepEnv = (step: WorkflowStep) => {
    const env = {
      ...options.env,
      ...strings(workflow.env),
      ...strings(job.env ?? {}),
      ...expand(strings(step.env ?? {}), outputs, workflow.where),
      ...exported,
    };
    env.PATH = [...paths, env.PATH ?? ''].join(':');
    return env;
  };
  try {
    for (const step of job.steps) {
      const name = step.name ?? step.uses ?? step.run!.split('\n')[0]!;
      if (!shouldRun(step.if, failed)) {
        runs.push({ step: name, result: 'skipped', output: '' });
        continue;
      }
      const action = step.uses && options.actions?.[step.uses.replace(/@.*$/, '')];
      if (action) {
        const withInputs = expand(strings((step.with ?? {}) as Record<string, string>), outputs, workflow.where);
        // The runner registers the post step before main runs: a main that fails gets its post too.
        const post = actionManifest(action).runs.post ? { name, dir: action, step, state: {} } : undefined;
        if (post) posts.push(post);
        const run = await runActionStep(action, 'main', { cwd: options.dir, env: stepEnv(step), with: withInputs, runnerTemp });
        if (step.id) outputs[step.id] = run.outputs;
        if (post) post.state = run.state;
        Object.assign(exported, run.env);
        paths.unshift(...run.path.reverse());
        failed ||= run.code !== 0;
        runs.push({ step: name, result: run.code === 0 ? 'success' : 'failure', output: run.output });
        continue;
      }
      const standIn = options.satisfied(step);
      if (step.uses || standIn) {
        if (!standIn)
          throw new Error(`${workflow.where}: nothing here stands for \`${step.uses}\`; say what it provides in the workflow test`);
        paths.unshift(...standIn);
        runs.push({ step: name, result: 'satisfied', output: '' });
        continue;
      }
      if (step.run!.includes('${{'))
        throw new Error(
          `${workflow.where}: \`${name}\` uses an expression (\${{ }}) in run:, which the runner does not evaluate; pass it in env:`,
        );
      if ((step.shell ?? 'bash') !== 'bash') throw new Error(`${workflow.where}: \`${name}\` runs in ${step.shell}; the runner knows bash`);
      const run = await runStep(step.run!, join(options.dir, step['working-directory'] ?? '.'), stepEnv(step), options.timeoutMs ?? 60_000);
      groups.push(run.group);
      Object.assign(exported, run.env);
      paths.unshift(...run.path.reverse());
      failed ||= run.code !== 0;
      runs.push({ step: name, result: run.code === 0 ? 'success' : 'failure', output: run.output });
    }
    // Post steps run last, in the reverse order of their mains, each if its post-if holds.
    for (const post of posts.reverse()) {
      const name = `Post ${post.name}`;
      if (!shouldRun(actionManifest(post.dir).runs['post-if'] ?? 'always()', failed)) {
        runs.push({ step: name, result: 'skipped', output: '' });
        continue;
      }
      const withInputs = expand(strings((post.step.with ?? {}) as Record<string, string>), outputs, workflow.where);
      const jobStatus = failed ? 'failure' : 'success';
      const run = await runActionStep(post.dir, 'post', {
        cwd: options.dir,
        env: stepEnv(post.step),
        with: withInputs,
        state: post.state,
        jobStatus,
        runnerTemp,
      });
      failed ||= run.code !== 0;
      runs.push({ step: name, result: run.code === 0 ? 'success' : 'failure', output: run.output });
    }
  } finally {
    rmSync(runnerTemp, { recursive: true, force: true });
  }
  return { steps: runs, groups };
}

/** `values` with every `${{ steps.<id>.outputs.<name> }}` replaced by that output; any other expression is an error. */
function expand(values: Record<string, string>, outputs: Record<string, Record<string, string>>, where: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(values).map(([key, value]) => [
      key,
      value.replace(/\$\{\{\s*(.*?)\s*\}\}/g, (expression, inner: string) => {
        const [, id = '', output = ''] = /^steps\.([\w-]+)\.outputs\.([\w-]+)$/.exec(inner) ?? [];
        const found = outputs[id]?.[output];
        if (found === undefined) throw new Error(`${where}: ${key}: ${expression} is not an output of an earlier step the runner knows`);
        return found;
      }),
    ]),
  );
}

/** Kills what a job's steps left running, as the runner does when the job ends. */
export function endJob(groups: number[]): void {
  for (const group of groups) {
    try {
      process.kill(-group, 'SIGKILL');
    } catch {
      // The group is gone already.
    }
  }
}

function shouldRun(condition: string | undefined, failed: boolean): boolean {
  const expression = (condition ?? 'success()').replace(/^\$\{\{\s*|\s*\}\}$/g, '').trim();
  if (expression === 'success()') return !failed;
  if (expression === 'failure()') return failed;
  if (expression === 'always()') return true;
  throw new Error(`if: ${condition} is not an expression the runner knows (success(), failure(), always())`);
}

function strings(values: Record<string, string | number | boolean>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).map(([key, value]) => [key, String(value)]));
}

/**
 * One `run:` script in its own bash (its own process group, so what it leaves in the background
 * can be ended with the job); resolves when bash exits, not when its pipes close: a background
 * process may hold them, as it does on a runner.
 */
async function runStep(script: string, cwd: string, env: NodeJS.ProcessEnv, timeoutMs: number) {
  const files = mkdtempSync(join(tmpdir(), 'paysandbox-step-'));
  const [githubEnv, githubPath, githubOutput, file] = ['env', 'path', 'output', 'step.sh'].map((name) => join(files, name)) as [
    string,
    string,
    string,
    string,
  ];
  for (const name of [githubEnv, githubPath, githubOutput]) writeFileSync(name, '');
  writeFileSync(file, script);
  const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', file], {
    cwd,
    env: {
      ...env,
      GITHUB_ENV: githubEnv,
      GITHUB_PATH: githubPath,
      GITHUB_OUTPUT: githubOutput,
      GITHUB_WORKSPACE: cwd,
      GITHUB_ACTIONS: 'true',
      CI: 'true',
    },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number>((resolve) => {
    const timer = setTimeout(() => {
      process.kill(-child.pid!, 'SIGKILL');
      output += `\n(the step did not end within ${timeoutMs} ms)`;
    }, timeoutMs);
    child.once('exit', (exitCode) => {
      clearTimeout(timer);
      resolve(exitCode ?? 1);
    });
  });
  child.stdout.destroy();
  child.stderr.destroy();
  const result = {
    code,
    output,
    group: child.pid!,
    env: parseFileCommands(readFileSync(githubEnv, 'utf8')),
    path: readFileSync(githubPath, 'utf8').split('\n').filter(Boolean),
  };
  rmSync(files, { recursive: true, force: true });
  return result;
}
