// The docs test's stand-in runner (workflows.ts) with a JavaScript action it runs for real, this
// repository's: main where the step is, its outputs in a later step's `env:`, its post after the
// last step with the job's status (here a failure, so the post step prints the sandbox's log),
// and an output no step set refused by name.
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { expectGone, merchantProject } from '../helpers/bash-script.js';
import { runJob, type Workflow, type WorkflowStep } from './workflows.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const project = merchantProject();
// biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, not a template literal
const URL_OUTPUT = '${{ steps.sandbox.outputs.url }}';
const options = { dir: project, env: process.env, satisfied: () => undefined, actions: { 'paysandbox/paysandbox': ROOT } };

afterAll(() => rmSync(project, { recursive: true, force: true }));

function workflow(steps: WorkflowStep[]): Workflow {
  return { path: '.github/workflows/test.yml', where: 'a test workflow', env: {}, jobs: { test: { steps } } };
}

describe('the stand-in runner with a JavaScript action', () => {
  it("runs main, gives a later step its outputs, and runs post last with the job's status", async () => {
    const { steps } = await runJob(
      workflow([
        { name: 'Start paysandbox', id: 'sandbox', uses: 'paysandbox/paysandbox@v0', with: { port: 0 } },
        // Fails on purpose, once it has seen the output and the exported SANDBOX_URL agree.
        { run: 'test "$URL" = "$SANDBOX_URL" && exit 3', env: { URL: URL_OUTPUT } },
        { run: 'echo not run' },
        { if: 'failure()', run: 'echo cleaning up' },
      ]),
      'test',
      options,
    );
    expect(steps.map(({ step, result }) => `${result}: ${step}`)).toEqual([
      'success: Start paysandbox',
      'failure: test "$URL" = "$SANDBOX_URL" && exit 3',
      'skipped: echo not run',
      'success: echo cleaning up',
      'success: Post Start paysandbox',
    ]);
    const [, url, pid] = /listening on (\S+) \(pid (\d+)\)/.exec(steps[0]?.output ?? '') ?? [];
    expect(steps.at(-1)?.output).toContain("::group::paysandbox log (the job's status is failure)");
    await expectGone(String(url), Number(pid));
  }, 60_000);

  it('refuses an output no earlier step set, naming it', async () => {
    const run = runJob(workflow([{ run: 'true', env: { URL: URL_OUTPUT } }]), 'test', options);
    await expect(run).rejects.toThrow(`a test workflow: URL: ${URL_OUTPUT} is not an output of an earlier step the runner knows`);
  });
});
