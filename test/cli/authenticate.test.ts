// `sandbox authenticate <transID|pay_id> <outcome>` completes a challenge without a browser.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningServer } from '../../src/server/start-server.js';
import { CREDS, s2sBody, startTestServer } from '../helpers/test-sandbox.js';
import { runCli } from '../helpers/cli-harness.js';
import { api } from '../helpers/http.js';

let sandbox: RunningServer;
beforeAll(async () => {
  sandbox = await startTestServer();
});
afterAll(() => sandbox.close());

const cli = (...args: string[]) => runCli([...args, '--url', sandbox.url]);
const post = async (path: string, body: unknown, headers: Record<string, string> = {}) =>
  (await api(sandbox.url).post(path, body, headers)).json;

it('approves a /v1/ payment in requires_action by its pay_ id', async () => {
  const payment = await post(
    '/v1/payments',
    { amount: 1000, currency: 'EUR', token: 'tok_threeds_required', return_url: 'http://127.0.0.1:9/return' },
    { authorization: `Bearer ${CREDS.apiKey}` },
  );
  expect(payment.status).toBe('requires_action');
  const run = await cli('authenticate', payment.id, 'approve');
  expect(run.error).toBeUndefined();
  expect(run.out).toMatch(new RegExp(`^authentication passed: payment ${payment.id} is captured; the customer returns to \\S+$`));
  expect(sandbox.store.payments.get(payment.id)!.status).toBe('captured');
});

it('declines an S2S transaction by its transID, with --json', async () => {
  const t = await post('/api/s2s', s2sBody());
  const run = await cli('authenticate', t.transID, 'decline', '--json');
  expect(JSON.parse(run.out)).toMatchObject({ transID: t.transID, order_status: '24', status: 'Test Declined', authentication: 'failed' });
});

it('refuses an unknown outcome with the list, and an unknown id with the id named', async () => {
  expect((await cli('authenticate', 'pay_x', 'maybe')).error).toBe('outcome must be one of approve, decline, cancel, expire; got "maybe"');
  expect((await cli('authenticate', 'pay_nope', 'approve')).error).toMatch(
    /^no transaction or payment pay_nope: .* \(404 resource_missing\)$/,
  );
});
