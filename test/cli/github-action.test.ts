// The GitHub Action (action.yml at the repository root), run the way the runner runs it
// (test/helpers/github-action.ts) in a fresh project that installed the packed package: its main
// step starts the sandbox and sets the outputs and SANDBOX_URL, a merchant step pays with them and
// waits for the webhook, and its post step stops the sandbox (printing the log when the job
// failed). Also the start that fails, and `version`, which runs npx paysandbox@<version>.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { standardSecret as actionStandardSecret } from '../../action/credentials.js';
import { standardSecret, verifyWebhook } from '../../src/signatures/signing.js';
import { expectGone, isRunning, processesIn, runScript } from '../helpers/bash-script.js';
import { startFakeMerchant, type FakeMerchant } from '../helpers/fake-merchant.js';
import { runActionStep, type ActionStepOptions, type ActionStepRun } from '../helpers/github-action.js';
import { installPackedSandbox, PACKED_INSTALL_MS, removePackedProject, type PackedProject } from '../docs/packed-install.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** The merchant's step between main and post: a /v1/ payment with the API key, an S2S payment whose webhook it waits for. */
const MERCHANT_STEP = `set -euo pipefail
curl -sSf -X POST "$GATEWAY_URL/v1/payments" -H "Authorization: Bearer $API_KEY" -H 'content-type: application/json' \\
  -d '{"amount":1050,"currency":"EUR"}' | jq -r '"v1 " + .status'
payment=$(jq -n --arg key "$PUBLIC_KEY" --argjson terNO "$TERNO" --arg hook "$HOOK" '{public_key: $key, terNO: $terNO,
  bill_amt: "10.50", bill_currency: "EUR", product_name: "Mug", reference: "action-1", mop: "CC", ccno: "4242424242424242",
  ccvv: "123", month: "12", year: "30", webhook_url: $hook, return_url: "http://127.0.0.1:9/return"}')
curl -sSf -X POST "$GATEWAY_URL/api/s2s" -H 'content-type: application/json' -d "$payment" | jq -r '"s2s " + .status'
npx sandbox wait --event payment.authorized --timeout 10s
`;

let project: PackedProject;
let merchant: FakeMerchant;
let runnerTemp: string;

beforeAll(async () => {
  project = await installPackedSandbox();
  merchant = await startFakeMerchant();
}, PACKED_INSTALL_MS);

afterAll(async () => {
  await merchant?.close();
  if (project) removePackedProject(project);
});

beforeEach(() => {
  runnerTemp = mkdtempSync(join(tmpdir(), 'paysandbox-runner-temp-'));
});

afterEach(() => {
  // A failing test leaves no sandbox behind for the next.
  for (const { pid } of processesIn(project.dir)) process.kill(pid, 'SIGKILL');
  rmSync(runnerTemp, { recursive: true, force: true });
});

/** One stage of the Action in the project, as the runner runs it (npm offline: no registry here). */
function step(stage: 'main' | 'post', options: Partial<ActionStepOptions> = {}): Promise<ActionStepRun> {
  const env = { ...project.env, npm_config_offline: 'true', npm_config_update_notifier: 'false', ...options.env };
  return runActionStep(ROOT, stage, { cwd: project.dir, runnerTemp, ...options, env });
}

/** A port nothing listens on (taken from the kernel, then freed). */
async function freePort(): Promise<number> {
  const server = await listening();
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function listening(port = 0): Promise<Server> {
  const server = createServer();
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

/** True once nothing listens on `port`: a server of this test can take it. */
async function portIsFree(port: number): Promise<boolean> {
  try {
    const server = await new Promise<Server>((resolve, reject) => {
      const candidate = createServer().once('error', reject);
      candidate.listen(port, '127.0.0.1', () => resolve(candidate));
    });
    await new Promise((resolve) => server.close(resolve));
    return true;
  } catch {
    return false;
  }
}

describe('the GitHub Action, main and post as the runner runs them', () => {
  it('main starts the sandbox with the outputs and SANDBOX_URL set; a merchant step pays with them; post stops it', async () => {
    const port = await freePort();
    const main = await step('main', { with: { port } });
    expect(main.code, main.output).toBe(0);
    // The sandbox writes to its log file, never to the step's output: the runner is not held.
    expect(main.released).toBe(true);
    const url = `http://127.0.0.1:${port}`;
    expect(main.outputs).toEqual({
      url,
      'api-key': 'sk_test_sandbox',
      'webhook-secret': 'whsec_test_sandbox',
      'public-key': 'pk_test_1001',
      'private-key': 'pv_test_1001',
      terno: '1001',
      'merchant-id': 'mer_sandbox',
      'log-file': expect.stringMatching(new RegExp(`^${runnerTemp}/paysandbox-\\w+/sandbox\\.log$`)),
    });
    expect(main.env).toEqual({ SANDBOX_URL: url });
    // The secret outputs are masked in every later line of the job's log; the public ones are not.
    const masked = main.output.split('\n').filter((line) => line.startsWith('::add-mask::'));
    expect(masked.sort()).toEqual(['::add-mask::pv_test_1001', '::add-mask::sk_test_sandbox', '::add-mask::whsec_test_sandbox']);
    expect(main.output).toContain(`Starting paysandbox: node_modules/.bin/paysandbox start --port ${port} --db :memory: `);
    expect(main.output).not.toContain('::error');
    // main's node has exited; the sandbox it started answers.
    expect((await fetch(`${url}/_sandbox/health`)).status).toBe(200);

    const merchantStep = await runScript(project.dir, MERCHANT_STEP, {
      ...project.env,
      ...main.env,
      GATEWAY_URL: main.outputs.url,
      API_KEY: main.outputs['api-key'],
      PUBLIC_KEY: main.outputs['public-key'],
      TERNO: main.outputs.terno,
      HOOK: `${merchant.url}/action-hook`,
    });
    expect(merchantStep.code, merchantStep.stdout + merchantStep.stderr).toBe(0);
    expect(merchantStep.stdout).toMatch(/^v1 authorized\ns2s Test Approved\n/);
    expect(merchantStep.stdout).toMatch(new RegExp(`^found: whd_\\w+ payment\\.authorized -> ${merchant.url}/action-hook succeeded`, 'm'));
    const [hook = { headers: {}, body: '' }] = merchant.at('/action-hook');
    expect(verifyWebhook(hook.headers, main.outputs['webhook-secret'] ?? '', hook.body, { mode: 'plain', prefix: 'Sandbox' })).toBe(true);

    const pid = Number(main.state.pid);
    expect(isRunning(pid)).toBe(true);
    const post = await step('post', { state: main.state, jobStatus: 'success' });
    expect(post.code, post.output).toBe(0);
    expect(post.output).toContain(`paysandbox (pid ${pid}) stopped.`);
    // A job that succeeded gets no log.
    expect(post.output).not.toContain('::group::');
    await expectGone(url, pid);
    expect(await portIsFree(port)).toBe(true);
    expect(processesIn(project.dir)).toEqual([]);
  });

  it('post prints the log in a collapsed group, with workflow commands off, when the job failed', async () => {
    const main = await step('main', { with: { port: 0 } });
    expect(main.code, main.output).toBe(0);
    const post = await step('post', { state: main.state, jobStatus: 'failure' });
    expect(post.code, post.output).toBe(0);
    const [, token] = /^::stop-commands::(\S+)$/m.exec(post.output) ?? [];
    expect(post.output).toContain(
      ["::group::paysandbox log (the job's status is failure)", `::stop-commands::${token}`, `paysandbox ${VERSION} test mode`].join('\n'),
    );
    // The log ends with the sandbox's own shutdown, since post prints it after stopping it.
    expect(post.output).toMatch(
      new RegExp(
        `Listening on ${main.outputs.url}\\n[^]*SIGTERM: finishing in-flight webhooks and closing the database...\\n::${token}::\\n::endgroup::`,
      ),
    );
    await expectGone(String(main.outputs.url), Number(main.state.pid));
  });

  it('a start that fails (the port is taken) is an ::error:: with the log, leaves nothing running, and post has nothing to stop', async () => {
    const taken = await listening();
    const { port } = taken.address() as { port: number };
    try {
      const main = await step('main', { with: { port } });
      expect(main.code, main.output).toBe(1);
      expect(main.output).toContain(
        `::error title=paysandbox::paysandbox exited with status 1 before it answered: paysandbox: port ${port} on 127.0.0.1 is already in use; stop the other process or pass --port 0 for any free port`,
      );
      expect(main.output).toMatch(
        /paysandbox's log \(.*sandbox\.log\):\n::stop-commands::\S+\npaysandbox: port \d+ on 127\.0\.0\.1 is already in use/,
      );
      expect(main.state.pid).toBeUndefined();
      expect(main.outputs).toEqual({});
      expect(processesIn(project.dir)).toEqual([]);
      const post = await step('post', { state: main.state, jobStatus: 'failure' });
      expect(post.code).toBe(0);
      expect(post.output).toContain('paysandbox: no sandbox was started, nothing to stop.');
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  it('a print-log it does not take is refused before anything starts', async () => {
    const main = await step('main', { with: { 'print-log': 'sometimes' } });
    expect(main.code).toBe(1);
    expect(main.output).toContain('::error title=paysandbox::the input print-log must be on-failure, always, never; got "sometimes"');
    expect(main.state).toEqual({});
    expect(processesIn(project.dir)).toEqual([]);
  });

  it('version runs npx paysandbox@<version>; scenario, signature, fixtures and db reach sandbox start; post stops npx and the sandbox', async () => {
    const fixtures = {
      merchants: [
        {
          id: 'mer_shop',
          name: 'Shop',
          webhook_secret: 'whsec_shop_ci',
          api_keys: ['sk_test_shop'],
          terminals: [{ terNO: 3003, public_key: 'pk_test_3003', private_key: 'pv_test_3003' }],
        },
      ],
    };
    writeFileSync(join(project.dir, 'shop-fixtures.json'), JSON.stringify(fixtures));
    rmSync(join(project.dir, 'ci'), { recursive: true, force: true });
    const inputs = {
      port: 0,
      version: VERSION,
      scenario: 'insufficient-funds-then-approves',
      signature: 'standard',
      fixtures: 'shop-fixtures.json',
      db: 'ci/sandbox.db',
      'print-log': 'always',
    };
    const main = await step('main', { with: inputs });
    expect(main.code, main.output).toBe(0);
    expect(main.output).toContain(`Starting paysandbox: npx --yes paysandbox@${VERSION} start --port 0 --db ci/sandbox.db --scenario`);
    const url = String(main.outputs.url);
    expect(main.outputs).toMatchObject({
      'api-key': 'sk_test_shop',
      'public-key': 'pk_test_3003',
      terno: '3003',
      'merchant-id': 'mer_shop',
    });
    // The form a Standard Webhooks verifier takes, as the sandbox's banner shows it.
    expect(main.outputs['webhook-secret']).toBe(standardSecret('whsec_shop_ci'));
    expect(readFileSync(String(main.outputs['log-file']), 'utf8')).toContain(`webhook secret ${standardSecret('whsec_shop_ci')}`);
    const scenario = (await (await fetch(`${url}/_sandbox/scenarios`)).json()) as { data: { scenario: string }[] };
    expect(scenario.data.map((entry) => entry.scenario)).toEqual(['insufficient-funds-then-approves', 'insufficient-funds-then-approves']);
    expect(existsSync(join(project.dir, 'ci/sandbox.db'))).toBe(true);
    // npx, and the sandbox under it: two processes, both stopped by post.
    const [pid, launcher] = [Number(main.state.pid), Number(main.state.launcher)];
    expect(pid).not.toBe(launcher);
    expect(isRunning(launcher)).toBe(true);

    const post = await step('post', { state: main.state, jobStatus: 'success', with: inputs });
    expect(post.code, post.output).toBe(0);
    expect(post.output).toContain('::group::paysandbox log (print-log: always)');
    await expectGone(url, pid);
    expect(isRunning(launcher)).toBe(false);
    expect(processesIn(project.dir)).toEqual([]);
  });

  it("in a checkout of paysandbox itself (its own CI, uses: ./) it runs the checkout's bin/sandbox.js", async () => {
    const main = await step('main', { cwd: ROOT, with: { port: 0 } });
    expect(main.code, main.output).toBe(0);
    expect(main.output).toContain('Starting paysandbox: bin/sandbox.js start --port 0');
    const post = await step('post', { cwd: ROOT, state: main.state, jobStatus: 'success' });
    expect(post.code, post.output).toBe(0);
    await expectGone(String(main.outputs.url), Number(main.state.pid));
  });

  it("the Action's Standard Webhooks secret is the sandbox's", () => {
    const secrets = ['whsec_test_sandbox', `whsec_${Buffer.alloc(32, 7).toString('base64')}`, 'plain-secret', 'whsec_', 'whsec_abc='];
    expect(secrets.map(actionStandardSecret)).toEqual(secrets.map(standardSecret));
  });
});
