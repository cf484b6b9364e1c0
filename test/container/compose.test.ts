// docs/containers.md's compose file, run as printed with podman-compose on podman's bridge network
// (only the two image names change: the image this run built, and a stand-in for "your app"). It
// proves what the page says: the shop reaches the sandbox's API and its control plane by service
// name (SANDBOX_ALLOWED_HOSTS), the sandbox's webhook reaches the shop by service name, the
// HEALTHCHECK passes, authurl starts with SANDBOX_PUBLIC_URL, and the port is published on the
// host's loopback. The project runs in a network namespace of its own (scripts/private-network.js)
// so its fixed port 4010 meets no other sandbox on this machine; the host's side of that namespace
// is reached with nsenter. podman-compose does not wait for `condition: service_healthy` (it only
// orders the start), so the test waits for the shop's `sandbox health` as the page tells a CI job to.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { privateNetwork } from '../../scripts/private-network.js';
import { blocksIn } from '../docs/doc-blocks.js';
import { s2sBody } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';
import { ENGINE, podman, ROOT, run, ULIMITS } from './podman.js';

const IMAGE = inject('containerImage');
const SHOP_IMAGE = 'localhost/paysandbox-shop:test';
const PROJECT = `paysandbox-compose-${process.pid}`;

/** Why this file cannot run here, or '' when it can. */
const SKIP =
  inject('containerSkip') ||
  ((await run('podman-compose', ['version'], 60_000)).code === 0 ? '' : 'podman-compose is not installed (apt-get install podman-compose)');
if (SKIP) console.warn(`test/container/compose.test.ts skipped: ${SKIP}`);

/** "Your app": receives webhooks on :3000 and prints each one's body on a line of its log. */
const SHOP = `import { createServer } from 'node:http';
createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    console.log('webhook ' + req.url + ' ' + body);
    res.end('ok');
  });
}).listen(3000, () => console.log('shop listening on 3000'));
`;

/** The page's compose file with the image this run built and the stand-in shop. */
function composeFile(): string {
  const [block] = blocksIn(join(ROOT, 'docs/containers.md'), ['A compose file']).filter((b) => b.lang === 'yaml');
  expect(block, 'the compose file of docs/containers.md').toBeDefined();
  const text = block!.text;
  expect(text).toMatch(/^ {4}image: paysandbox$/m);
  expect(text).toMatch(/^ {4}image: my-shop #/m);
  return text.replace(/^ {4}image: paysandbox$/m, `    image: ${IMAGE}`).replace(/^ {4}image: my-shop #.*$/m, `    image: ${SHOP_IMAGE}`);
}

describe.skipIf(SKIP !== '')('the compose file of docs/containers.md', () => {
  const dir = mkdtempSync(join(tmpdir(), 'paysandbox-compose-'));
  const compose = [
    '--podman-args',
    ENGINE.join(' '),
    '--podman-run-args',
    ULIMITS.join(' '),
    '-p',
    PROJECT,
    '-f',
    join(dir, 'compose.yaml'),
  ];
  /** The containers' names, as podman-compose names them. */
  const sandbox = `${PROJECT}_paysandbox_1`;
  const shop = `${PROJECT}_shop_1`;

  beforeAll(async () => {
    writeFileSync(join(dir, 'shop.mjs'), SHOP);
    writeFileSync(join(dir, 'Containerfile'), `FROM ${IMAGE}\nCOPY shop.mjs /shop/shop.mjs\nENTRYPOINT ["node", "/shop/shop.mjs"]\n`);
    const built = await podman(['build', '--network', 'host', ...ULIMITS, '-t', SHOP_IMAGE, dir], 600_000);
    expect(built.code, built.stderr).toBe(0);
    writeFileSync(join(dir, 'compose.yaml'), composeFile());
    const up = privateNetwork('podman-compose', [...compose, 'up', '-d']);
    if (!up.isolated) console.warn('compose.test.ts: no private network namespace here; port 4010 is published on the host');
    const started = await run(up.command, up.args, 300_000);
    expect(started.code, `${started.stdout}\n${started.stderr}`).toBe(0);
  }, 900_000);

  afterAll(async () => {
    const names = await podman(['ps', '-a', '--filter', `label=io.podman.compose.project=${PROJECT}`, '--format', '{{.Names}}']);
    // -v: the shop's image inherits the sandbox image's anonymous /data volume.
    for (const name of names.stdout.split('\n').filter(Boolean)) await podman(['rm', '-f', '-v', '-t', '0', name]);
    await podman(['volume', 'rm', '-f', `${PROJECT}_sandbox-data`]);
    await podman(['network', 'rm', '-f', `${PROJECT}_default`]);
    await podman(['rmi', SHOP_IMAGE]);
    rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  it('the shop reaches the sandbox and its control plane by service name, and the webhook reaches the shop by service name', async () => {
    // The shop's CLI calls http://paysandbox:4010 (its SANDBOX_URL): the control plane answers that
    // Host because of SANDBOX_ALLOWED_HOSTS, and without a token because of SANDBOX_CONTROL_OPEN.
    await waitFor(
      async () => (await podman(['exec', shop, 'sandbox', 'health'])).code === 0,
      'the shop to reach the sandbox',
      120_000,
      500,
    );
    // The image's HEALTHCHECK, as Docker Compose runs it for `condition: service_healthy`.
    await waitFor(async () => (await podman(['healthcheck', 'run', sandbox])).code === 0, 'the sandbox to be healthy', 60_000, 500);

    const body = JSON.stringify(s2sBody({ webhook_url: 'http://shop:3000/webhooks', reference: 'compose-3ds' }));
    const pay = `fetch(process.env.PAYMENT_GATEWAY_URL + '/api/s2s', { method: 'POST', headers: { 'content-type': 'application/json' }, body: process.argv[1] }).then((r) => r.text()).then(console.log)`;
    const created = await podman(['exec', shop, 'node', '-e', pay, body]);
    expect(created.code, created.stderr).toBe(0);
    const payment = JSON.parse(created.stdout) as { transID: string; authurl: string; authstatus: string };
    // SANDBOX_PUBLIC_URL: the customer's browser on the host follows http://localhost:4010.
    expect(payment.authurl).toMatch(/^http:\/\/localhost:4010\/authenticate\//);

    const approved = await podman(['exec', shop, 'sandbox', 'authenticate', payment.transID, 'approve']);
    expect(approved.code, approved.stderr).toBe(0);
    await waitFor(
      async () =>
        (await podman(['logs', shop])).stdout
          .split('\n')
          .some((line) => line.startsWith('webhook /webhooks ') && line.includes(payment.transID)),
      "the payment's webhook in the shop's log",
      60_000,
      500,
    );

    // "127.0.0.1:4010:4010": the host's loopback (here the namespace podman-compose ran in) reaches
    // the sandbox, and the customer's page of the payment answers there.
    const conmon = (await podman(['inspect', sandbox, '--format', '{{.State.ConmonPid}}'])).stdout.trim();
    const status = await run('nsenter', [
      `--net=/proc/${conmon}/ns/net`,
      'node',
      '-e',
      `fetch(process.argv[1]).then((r) => r.json()).then((j) => console.log(j.status))`,
      payment.authstatus.replace('localhost', '127.0.0.1'),
    ]);
    expect(status.stdout.trim(), status.stderr).toBe('Test Approved');
  });
});
