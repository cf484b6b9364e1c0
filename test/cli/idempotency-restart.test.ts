// An Idempotency-Key outlives a restart on the same database file: the stored fingerprint holds the
// body as the journal masks it (the exact one is keyed by a secret of the process that made it, so
// no card can be found back from the database), so a retry after the restart replays the first
// answer, and another body still gets the 409.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { type CliSandbox, startCliSandbox } from '../helpers/cli-sandbox.js';
import { api } from '../helpers/http.js';

const dir = mkdtempSync(join(tmpdir(), 'paysandbox-idem-'));
const running: CliSandbox[] = [];
afterEach(async () => {
  for (const sandbox of running.splice(0)) await sandbox.stop();
});

async function start(): Promise<CliSandbox> {
  const sandbox = await startCliSandbox(['--db', join(dir, 'sandbox.db'), '--quiet']);
  running.push(sandbox);
  return sandbox;
}

const body = (cvc: string, amount = 1050) =>
  `{"amount":${amount},"currency":"EUR","card":{"number":"4242424242424242","exp_month":12,"exp_year":2030,"cvc":"${cvc}"}}`;
const post = (sandbox: CliSandbox, text: string) =>
  api(sandbox.url, { authorization: 'Bearer sk_test_sandbox', 'idempotency-key': 'order-after-restart' }).request(
    'POST',
    '/v1/payments',
    text,
    { 'content-type': 'application/json' },
  );

it('replays the first answer after a restart, and refuses another body', async () => {
  const first = await start();
  const created = await post(first, body('737'));
  expect(created.status, created.text).toBe(200);
  // In the process that stored it, the exact bytes count: a CVV that differs is another request.
  expect((await post(first, body('738'))).json.error.code).toBe('idempotency_key_reused');
  await first.stop();
  running.splice(0);

  const second = await start();
  const replayed = await post(second, body('737'));
  expect(replayed.status).toBe(200);
  expect(replayed.headers.get('idempotent-replayed')).toBe('true');
  expect(replayed.json.id).toBe(created.json.id);
  expect((await post(second, body('737', 2000))).json.error.code).toBe('idempotency_key_reused');
  rmSync(dir, { recursive: true, force: true });
}, 60_000);
