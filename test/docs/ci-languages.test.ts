// The curl script of docs/any-language.md ("With curl"), run exactly as written with bash in a
// fresh project that installed the packed package: one sandbox, two workers side by side with a
// merchant each. Its `npm run test:integration` is a small suite of the project's own that pays
// with the same reference in both workers, lists its payments, and waits for its webhook. Both
// workers must pass without seeing each other, each webhook must reach its own worker's receiver
// signed with that worker's secret, and the trap's `npx sandbox stop` must leave nothing running.
import { createHmac } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectGone, processesIn, runScript } from '../helpers/bash-script.js';
import { startFakeMerchant, type FakeMerchant } from '../helpers/fake-merchant.js';
import { s2sBody } from '../helpers/test-sandbox.js';
import { blocksIn } from './doc-blocks.js';
import { installIntegrationProject, PACKED_INSTALL_MS, removePackedProject, type PackedProject } from './packed-install.js';

const CI_PAGE = fileURLToPath(new URL('../../docs/any-language.md', import.meta.url));

/** One worker's share of the suite: everything it knows comes from the script's environment. */
const SUITE = `import { readFileSync } from 'node:fs';
const { GATEWAY_URL, WORKER, TERNO, PUBLIC_KEY, API_KEY, WEBHOOK_SECRET, HOOKS, PAYMENT } = process.env;
const hook = HOOKS + '/worker-' + WORKER;
const json = (res) => res.json();
const payment = { ...JSON.parse(PAYMENT), terNO: Number(TERNO), public_key: PUBLIC_KEY, reference: 'order-1', webhook_url: hook };
const paid = await fetch(GATEWAY_URL + '/api/s2s', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(payment) }).then(json);
const bearer = { authorization: 'Bearer ' + API_KEY, 'content-type': 'application/json' };
await fetch(GATEWAY_URL + '/v1/payments', { method: 'POST', headers: bearer, body: JSON.stringify({ amount: 500, currency: 'EUR', reference: 'order-1' }) });
const listed = (await fetch(GATEWAY_URL + '/v1/payments', { headers: bearer }).then(json)).data.length;
for (const deadline = Date.now() + 60000; ; await new Promise((resolve) => setTimeout(resolve, 50))) {
  const { data } = await fetch(GATEWAY_URL + '/_sandbox/deliveries?limit=100').then(json);
  if (data.some((delivery) => delivery.url === hook && delivery.status === 'succeeded')) break;
  if (Date.now() > deadline) throw new Error('no webhook reached ' + hook);
}
console.log('sandbox', GATEWAY_URL, readFileSync('.sandbox/sandbox.pid', 'utf8').trim());
console.log('worker', WORKER, 'terNO', TERNO, 'order-1', paid.order_status, 'listed', listed, 'secret', WEBHOOK_SECRET);
`;

let project: PackedProject | undefined;
let receiver: FakeMerchant;

beforeAll(async () => {
  project = await installIntegrationProject(SUITE);
  receiver = await startFakeMerchant();
}, PACKED_INSTALL_MS);

afterAll(async () => {
  await receiver?.close();
  if (project) removePackedProject(project);
});

describe('the curl script of docs/any-language.md, run as written against the packed package', () => {
  it('runs two workers with a merchant each, isolated from each other, and stops the sandbox at the end', async () => {
    const [block] = blocksIn(CI_PAGE, ['With curl']).filter((candidate) => candidate.lang === 'bash');
    expect(block, 'docs/any-language.md has a ```bash block under "With curl"').toBeDefined();
    const payment = JSON.stringify(s2sBody({ ccno: '4242424242424242' }));
    const run = await runScript(project!.dir, `${block!.text}\n`, { ...project!.env, PAYMENT: payment, HOOKS: receiver.url });
    expect(run.code, run.stdout + run.stderr).toBe(0);

    // The same reference in both workers, each approved; each lists only its own /v1/ payment.
    const workers = [...run.stdout.matchAll(/^worker (\d) terNO (\d+) order-1 (\d+) listed (\d+) secret (\S+)$/gm)].map(
      ([, worker, terNO, status, listed, secret]) => ({ worker, terNO, status, listed, secret }),
    );
    expect(
      workers.map((w) => [w.status, w.listed]),
      run.stdout,
    ).toEqual([
      ['25', '1'],
      ['25', '1'],
    ]);
    expect(new Set(workers.map((w) => w.worker))).toEqual(new Set(['1', '2']));
    expect(workers[0]!.terNO).not.toBe(workers[1]!.terNO);

    // Each worker's webhook came to its own receiver, signed with its own merchant's secret.
    for (const { worker, secret } of workers) {
      const hooks = receiver.at(`/worker-${worker}`);
      expect(hooks.length, `webhooks at /worker-${worker}`).toBeGreaterThan(0);
      for (const hook of hooks) {
        expect(hook.headers['x-sandbox-signature']).toBe(`sha256=${createHmac('sha256', secret).update(hook.body).digest('hex')}`);
      }
    }

    const [, url, pid] = /^sandbox (\S+) (\d+)$/m.exec(run.stdout) ?? [];
    expect(run.stdout).toContain(`stopped sandbox (pid ${pid})`);
    await expectGone(url!, Number(pid));
    expect(processesIn(project!.dir)).toEqual([]);
    expect(run.released).toBe(true);
    // The limit only catches a hang: on a 2-core CI at load 14 this script took 55 s of the 60 it had.
  }, 600_000);
});
