// A Stoplight Prism proxy (`prism proxy <document> <sandbox> --errors`) in front of a real sandbox
// validates every request and answer of a merchant's sequence against the sandbox's own
// /openapi.json: a request the document does not allow, or an answer it does not describe, comes
// back as Prism's error (and a "violation" line in its log) instead of the sandbox's answer.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEncryptedData } from '../../src/crypto/s2s-cipher.js';
import { startSandbox, type SandboxHandle } from '../../src/library/start-sandbox.js';
import { api, type HttpAnswer } from '../helpers/http.js';
import { startPrismProxy, type PrismProxy } from '../helpers/prism-proxy.js';
import { CREDS, s2sBody } from '../helpers/test-sandbox.js';

let sandbox: SandboxHandle;
let prism: PrismProxy;
let dir: string;
beforeAll(async () => {
  sandbox = await startSandbox();
  dir = mkdtempSync(join(tmpdir(), 'paysandbox-prism-'));
  const documentPath = join(dir, 'openapi.json');
  writeFileSync(documentPath, await (await fetch(`${sandbox.url}/openapi.json`)).text());
  prism = await startPrismProxy(documentPath, sandbox.url);
  // Prism reads and compiles the whole document before it listens: seconds on a busy machine.
}, 120_000);
afterAll(async () => {
  await prism?.close();
  await sandbox?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/**
 * Records a sequence's steps through the proxy: every answer must be 2xx (Prism answers 422 for a
 * request and 500 for an answer that violates the document), and Prism must log no violation
 * while the sequence runs.
 */
function recorder() {
  const logFrom = prism.log.length;
  const problems: string[] = [];
  return {
    /** Keeps `res` as a problem unless it is 2xx, and returns it. */
    step(name: string, res: HttpAnswer): HttpAnswer {
      if (res.status < 200 || res.status >= 300) problems.push(`${name}: ${res.status} ${res.text.slice(0, 600)}`);
      return res;
    },
    problems,
    /** Prism's log lines since the recorder started that report a violation. */
    violations: () =>
      prism.log
        .slice(logFrom)
        .split('\n')
        .filter((line) => /violation/i.test(line)),
  };
}

describe('a Prism proxy validating against /openapi.json', () => {
  it('finds no violation in the /v1/ sequence: tokens, payments (capture and cancel without a body, a 3-D Secure one), refunds, webhook endpoints, events, checkout sessions', async () => {
    const client = api(prism.url);
    const auth = { authorization: `Bearer ${sandbox.credentials.apiKey}` };
    const { step, problems, violations } = recorder();

    const token = step(
      'POST /v1/tokens',
      await client.post('/v1/tokens', { card: { number: '4242424242424242', exp_month: 12, exp_year: 2034, cvc: '123' } }, auth),
    ).json;
    step('GET /v1/tokens/{id}', await client.get(`/v1/tokens/${token?.id}`, auth));
    step('GET /v1/tokens/{id} (predefined)', await client.get('/v1/tokens/tok_visa', auth));

    const body = {
      amount: 1050,
      currency: 'EUR',
      capture: false,
      customer: { country: 'NL' },
      reference: 'prism-1',
      metadata: { order_id: 'prism-1' },
    };
    const payment = step('POST /v1/payments', await client.post('/v1/payments', { ...body, token: token?.id }, auth)).json;
    step('GET /v1/payments/{id}', await client.get(`/v1/payments/${payment?.id}`, auth));
    step('POST /v1/payments/{id}/capture (no body)', await client.post(`/v1/payments/${payment?.id}/capture`, undefined, auth));
    const refund = step('POST /v1/refunds', await client.post('/v1/refunds', { payment_id: payment?.id, amount: 200 }, auth)).json;
    step('GET /v1/refunds/{id}', await client.get(`/v1/refunds/${refund?.id}`, auth));
    step('GET /v1/refunds?payment_id', await client.get(`/v1/refunds?payment_id=${payment?.id}&limit=5`, auth));
    const second = step('POST /v1/payments (second)', await client.post('/v1/payments', { ...body, reference: 'prism-2' }, auth)).json;
    step('POST /v1/payments/{id}/cancel (no body)', await client.post(`/v1/payments/${second?.id}/cancel`, undefined, auth));
    const partial = step('POST /v1/payments (third)', await client.post('/v1/payments', { ...body, reference: 'prism-3' }, auth)).json;
    step('POST /v1/payments/{id}/capture {amount}', await client.post(`/v1/payments/${partial?.id}/capture`, { amount: 600 }, auth));
    const challenged = step(
      'POST /v1/payments (3-D Secure)',
      await client.post(
        '/v1/payments',
        {
          ...body,
          reference: 'prism-4',
          card: { number: '4000000000003220', exp_month: 12, exp_year: 2034, cvc: '123' },
          return_url: 'https://shop.example/return',
        },
        auth,
      ),
    ).json;
    expect(challenged?.status).toBe('requires_action');
    step('GET /v1/payments?limit&created[gte]', await client.get('/v1/payments?limit=10&created[gte]=0', auth));

    const endpoint = step(
      'POST /v1/webhook_endpoints',
      await client.post(
        '/v1/webhook_endpoints',
        { url: 'https://shop.example/webhooks', events: ['payment.authorized', 'refund.succeeded'] },
        auth,
      ),
    ).json;
    step('GET /v1/webhook_endpoints', await client.get('/v1/webhook_endpoints', auth));
    step('GET /v1/webhook_endpoints/{id}', await client.get(`/v1/webhook_endpoints/${endpoint?.id}`, auth));
    step('POST /v1/webhook_endpoints/{id}', await client.post(`/v1/webhook_endpoints/${endpoint?.id}`, { description: 'shop' }, auth));
    step(
      'PATCH /v1/webhook_endpoints/{id}',
      await client.request('PATCH', `/v1/webhook_endpoints/${endpoint?.id}`, { enabled: false }, auth),
    );
    step(
      'POST /v1/webhook_endpoints/{id}/rotate_secret',
      await client.post(`/v1/webhook_endpoints/${endpoint?.id}/rotate_secret`, undefined, auth),
    );
    step('DELETE /v1/webhook_endpoints/{id}', await client.request('DELETE', `/v1/webhook_endpoints/${endpoint?.id}`, undefined, auth));

    const events = step('GET /v1/events', await client.get(`/v1/events?resource_id=${payment?.id}`, auth)).json;
    step('GET /v1/events/{id}', await client.get(`/v1/events/${events?.data?.[0]?.id}`, auth));
    step('GET /v1/events?type&limit', await client.get('/v1/events?type=payment.authorized&limit=100', auth));

    const session = step(
      'POST /v1/checkout/sessions',
      await client.post(
        '/v1/checkout/sessions',
        { amount: 2500, currency: 'EUR', methods: ['card', 'ideal'], return_url: 'https://shop.example/return' },
        auth,
      ),
    ).json;
    step('GET /v1/checkout/sessions/{id}', await client.get(`/v1/checkout/sessions/${session?.id}`, auth));
    step('POST /v1/checkout/sessions/{id}/expire', await client.post(`/v1/checkout/sessions/${session?.id}/expire`, undefined, auth));

    expect(problems).toEqual([]);
    expect(violations()).toEqual([]);
  });

  it('finds no violation in the S2S sequence: JSON create (approved and challenged), authstatus, partial refund, encrypted create', async () => {
    const client = api(prism.url);
    const { step, problems, violations } = recorder();

    const created = step('POST /api/s2s', await client.post('/api/s2s', s2sBody({ ccno: '4242424242424242' })));
    expect(created.json?.order_status, created.text).toBe('25');
    step('GET authstatus', await client.get(new URL(created.json.authstatus).pathname));
    step(
      'POST /api/transactions/refund-request',
      await client.post('/api/transactions/refund-request', {
        transID: created.json.transID,
        refundAmount: '2.50',
        public_key: CREDS.publicKey,
      }),
    );
    const challenged = step('POST /api/s2s (3-D Secure)', await client.post('/api/s2s', s2sBody()));
    expect(challenged.json?.authurl, challenged.text).toMatch(/\/authenticate\//);
    step('GET authstatus (pending)', await client.get(new URL(challenged.json.authstatus).pathname));
    const query = new URLSearchParams({ ...s2sBody(), encryption_method: 'aes256' } as Record<string, string>).toString();
    const encrypted = buildEncryptedData(query, { publicKey: CREDS.publicKey, privateKey: CREDS.privateKey });
    step('POST /api/s2s/encrypt', await client.postForm('/api/s2s/encrypt', { encrypted_data: encrypted }));

    expect(problems).toEqual([]);
    expect(violations()).toEqual([]);
  });

  it('finds no violation in the error answers a merchant meets for a valid request: 404 for what does not exist, 401 for an unknown key (Prism itself answers 422 to a request the document refuses)', async () => {
    const client = api(prism.url);
    const auth = { authorization: `Bearer ${sandbox.credentials.apiKey}` };
    const answers = [
      await client.get('/v1/payments/pay_missing', auth),
      await client.post('/v1/refunds', { payment_id: 'pay_missing', amount: 100 }, auth),
      await client.get('/v1/payments', { authorization: 'Bearer sk_test_unknown' }),
      await client.post('/api/transactions/refund-request', { transID: 'nope', refundAmount: '1.00', public_key: CREDS.publicKey }),
    ];
    expect(answers.map((res) => [res.status, res.json?.error?.code])).toEqual([
      [404, 'resource_missing'],
      [404, 'resource_missing'],
      [401, 'invalid_credentials'],
      [404, 'resource_missing'],
    ]);
    expect(prism.log.split('\n').filter((line) => /violation/i.test(line))).toEqual([]);
  });
});
