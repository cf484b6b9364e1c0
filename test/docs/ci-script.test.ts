// The "A CI script" block of docs/ci.md, run exactly as written with bash, in a fresh project that
// installed the packed package: its `npm run test:integration` is a small suite of the project's
// own that pays against $GATEWAY_URL. The script must exit 0 with the event it waits for found,
// and its trap's `npx sandbox stop` must leave nothing running: no sandbox, no open port, no
// process of the project, no pipe held open.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectGone, processesIn, runScript } from '../helpers/bash-script.js';
import { startFakeMerchant, type FakeMerchant } from '../helpers/fake-merchant.js';
import { s2sBody } from '../helpers/test-sandbox.js';
import { blocksIn } from './doc-blocks.js';
import { installIntegrationProject, PACKED_INSTALL_MS, removePackedProject, type PackedProject } from './packed-install.js';

const CI_PAGE = fileURLToPath(new URL('../../docs/ci.md', import.meta.url));

/**
 * The project's integration suite: one card payment with 3-D Secure (the script's
 * --auto-authenticate approves it, and the script then waits for its payment.authorized), and
 * where the sandbox runs. One payment: a script whose scenario declined the first would wait 30 s
 * for an event that never comes.
 */
const SUITE = `import { readFileSync } from 'node:fs';
console.log('sandbox', process.env.GATEWAY_URL, readFileSync('.sandbox/sandbox.pid', 'utf8').trim());
const res = await fetch(process.env.GATEWAY_URL + '/api/s2s', { method: 'POST', headers: { 'content-type': 'application/json' }, body: process.env.PAYMENT.replace('REF', 'ci-order-1') });
console.log('ci-order-1', (await res.json()).order_status);
`;

let project: PackedProject | undefined;
let merchant: FakeMerchant;

beforeAll(async () => {
  project = await installIntegrationProject(SUITE);
  merchant = await startFakeMerchant();
}, PACKED_INSTALL_MS);

afterAll(async () => {
  await merchant?.close();
  if (project) removePackedProject(project);
});

describe('the CI script of docs/ci.md, run as written against the packed package', () => {
  it('exits 0 with payment.authorized found, and its trap leaves no sandbox, port or process behind', async () => {
    const [block] = blocksIn(CI_PAGE, ['A CI script']).filter((candidate) => candidate.lang === 'bash');
    expect(block, 'docs/ci.md has a ```bash block under "A CI script"').toBeDefined();
    const payment = JSON.stringify(s2sBody({ reference: 'REF', webhook_url: `${merchant.url}/hook` }));
    const run = await runScript(project!.dir, `${block!.text}\n`, { ...project!.env, PAYMENT: payment });
    const [, url, pid] = /^sandbox (\S+) (\d+)$/m.exec(run.stdout) ?? [];
    expect(url, `the suite ran against the sandbox: ${run.stdout}${run.stderr}`).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^ci-order-1 0$/m);
    expect(run.stdout).toMatch(new RegExp(`^found: whd_\\w+ payment\\.authorized -> ${merchant.url}/hook succeeded after 1 attempt`, 'm'));
    expect(merchant.at('/hook').map((hook) => new URLSearchParams(hook.body).get('status'))).toContain('Test Approved');
    expect(run.stdout).toContain(`stopped sandbox (pid ${pid})`);
    await expectGone(url!, Number(pid));
    expect(existsSync(join(project!.dir, '.sandbox/sandbox.pid'))).toBe(false);
    expect(processesIn(project!.dir)).toEqual([]);
    // The script's stdout was released at once, not held by an orphan.
    expect(run.released).toBe(true);
    // The limit only catches a hang: the script itself may take its 30 s ready loop and its 30 s
    // wait, plus four npx starts, which took 60 s on a 2-core CI at load 14 (10 s on a quiet one).
  }, 600_000);
});
