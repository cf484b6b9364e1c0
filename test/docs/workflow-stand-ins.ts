// What the merchant's repository holds that the documented GitHub Actions workflows run: the
// project's own test scripts, its gradle wrapper, its PHP test runner, its snapshot. Written into
// the packed project, each a small stand-in that does what the page says the real one does
// against the sandbox (pays and waits for the webhook, creates a merchant per worker, ...), so the
// workflow's own steps run exactly as printed around them. Also what stands for each `uses:`
// action (this repository's own Action runs for real), and for the `run:` steps that only install
// what the packed project already installed.
import { chmodSync, copyFileSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { blocksIn } from './doc-blocks.js';
import type { WorkflowStep } from './workflows.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The workflows the stand-ins cover, by the path of their first comment. */
export const STANDS_IN_FOR = [
  '.github/workflows/test.yml',
  '.github/workflows/ci-integration.yml',
  '.github/workflows/integration.yml',
  '.github/workflows/php.yml',
  '.github/workflows/python.yml',
  '.github/workflows/webhooks.yml',
  '.github/workflows/sandbox-action.yml',
];

/** The JavaScript actions the workflows run for real: this repository's Action, by the name docs/github-action.md gives it. */
export const ACTIONS: Record<string, string> = { 'paysandbox/paysandbox': ROOT };

/** `npm test`: a test file that starts its own sandbox with startSandbox() and pays with it. */
const LIBRARY_TEST = `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startSandbox } from 'paysandbox';

test('a payment against startSandbox()', async () => {
  const sandbox = await startSandbox();
  const res = await fetch(sandbox.url + '/v1/payments', { method: 'POST', headers: { authorization: 'Bearer ' + sandbox.credentials.apiKey, 'content-type': 'application/json' }, body: JSON.stringify({ amount: 1050, currency: 'EUR' }) });
  assert.equal((await res.json()).status, 'authorized');
  await sandbox.close();
});
`;

/**
 * \`./gradlew integrationTest\`: a card payment with 3-D Secure against $GATEWAY_URL (the job's
 * --auto-authenticate approves it), whose webhook goes to a receiver of its own. With the Action's
 * outputs in its environment it pays with TERNO and PUBLIC_KEY, and the webhook's signature must
 * verify with WEBHOOK_SECRET.
 */
const INTEGRATION_SUITE = `import http from 'node:http';
import { createHmac } from 'node:crypto';
let received = 0;
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk)).on('end', () => {
    const signed = 'sha256=' + createHmac('sha256', process.env.WEBHOOK_SECRET ?? '').update(Buffer.concat(chunks)).digest('hex');
    if (process.env.WEBHOOK_SECRET && req.headers['x-sandbox-signature'] !== signed) {
      console.error('integration: the webhook signature does not verify with WEBHOOK_SECRET');
      process.exit(1);
    }
    received++;
    res.end('ok');
  });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const body = { public_key: process.env.PUBLIC_KEY ?? 'pk_test_1001', terNO: Number(process.env.TERNO ?? 1001), bill_amt: '10.50', bill_currency: 'EUR', product_name: 'Mug', reference: 'ci-1', mop: 'CC',
  ccno: '4000000000003220', ccvv: '123', month: '12', year: '30', webhook_url: 'http://127.0.0.1:' + server.address().port + '/hook', return_url: 'http://127.0.0.1/return' };
const payment = await (await fetch(process.env.GATEWAY_URL + '/api/s2s', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json();
console.log('integration: payment', payment.transID, payment.status);
for (const deadline = Date.now() + 60000; !received; await new Promise((resolve) => setTimeout(resolve, 50))) {
  if (Date.now() > deadline) throw new Error('no webhook came');
}
server.close();
`;

/** \`npm run test:integration\` of the curl script: one worker's suite, which reads its merchant from the environment. */
const WORKER_SUITE = `const health = await fetch(process.env.GATEWAY_URL + '/_sandbox/health');
if (!health.ok || !process.env.TERNO || !process.env.API_KEY) throw new Error('no sandbox or no merchant');
console.log('worker', process.env.WORKER, 'terNO', process.env.TERNO);
`;

/** \`npm start\` of the webhook audit's job: a shop whose webhook handler verifies signatures. */
const SHOP = `import http from 'node:http';
import { createHmac, timingSafeEqual } from 'node:crypto';
http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk)).on('end', () => {
    if (req.url === '/health') return res.end('ok');
    const expected = Buffer.from('sha256=' + createHmac('sha256', 'whsec_test_sandbox').update(Buffer.concat(chunks)).digest('hex'));
    const given = Buffer.from(String(req.headers['x-sandbox-signature'] ?? ''));
    res.writeHead(given.length === expected.length && timingSafeEqual(given, expected) ? 200 : 400).end();
  });
}).listen(3000, '127.0.0.1');
`;

/** \`vendor/bin/paratest\`: what tests/bootstrap.php does per worker, a merchant of its own at $SANDBOX_URL. */
const PARATEST = `#!/usr/bin/env bash
set -euo pipefail
merchant=$(npx sandbox merchants create --json --name "phpunit worker 1" --url "$SANDBOX_URL")
echo "paratest: worker 1 has $(jq -r .id <<<"$merchant")"
`;

/** Writes every stand-in into the project at `dir`; `scriptPage` is docs/any-language.md, whose curl script is ci/integration.sh. */
export function writeStandIns(dir: string, scriptPage: string): void {
  const write = (file: string, text: string, mode = 0o644) => {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
    chmodSync(join(dir, file), mode);
  };
  const manifest = join(dir, 'package.json');
  const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as Record<string, unknown>;
  const scripts = { test: 'node --test test/library.test.mjs', 'test:integration': 'node test/worker.mjs', start: 'node shop.mjs' };
  writeFileSync(manifest, JSON.stringify({ ...pkg, scripts }, null, 2));
  write('test/library.test.mjs', LIBRARY_TEST);
  write('test/worker.mjs', WORKER_SUITE);
  write('integration.mjs', INTEGRATION_SUITE);
  write('gradlew', '#!/usr/bin/env bash\nexec node integration.mjs\n', 0o755);
  write('shop.mjs', SHOP);
  write('test/fixtures/known-state.json', JSON.stringify({ format: 'paysandbox.snapshot', version: 1, schema_version: 1, tables: {} }));
  write('ci/integration.sh', `${blocksIn(scriptPage, ['With curl']).find((block) => block.lang === 'bash')!.text}\n`, 0o755);
  write('vendor/bin/paratest', PARATEST, 0o755);
  write('tools/composer', '#!/usr/bin/env bash\necho "composer: nothing to install here"\n', 0o755);
  // python3 run_tests.py: the repository's own Python example shop, which starts its own sandbox.
  const python = join(ROOT, 'examples/python-merchant');
  for (const file of readdirSync(python).filter((name) => name.endsWith('.py'))) copyFileSync(join(python, file), join(dir, file));
}

/**
 * What stands for a `uses:` action, or a `run:` that only installs what the packed project has:
 * the $GITHUB_PATH lines it adds, or undefined when nothing here stands for it.
 */
export function satisfied(dir: string): (step: WorkflowStep) => string[] | undefined {
  return (step) => {
    const action = step.uses?.replace(/@.*$/, '');
    // The packed project is the checkout, with node and python3 (.ci/run installs it) on PATH.
    if (
      action &&
      ['actions/checkout', 'actions/setup-node', 'actions/setup-python', 'actions/setup-go', 'actions/upload-artifact'].includes(action)
    )
      return [];
    // setup-php puts composer on PATH.
    if (action === 'shivammathur/setup-php') return [join(dir, 'tools')];
    const run = step.run?.replace(/\s+#.*$/, '').trim();
    // What the packed install already did (npm ci would compile better-sqlite3 again, for minutes).
    if (run === 'npm ci' || run === 'npm install --no-save paysandbox') return [];
    return undefined;
  };
}
