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
}, 60_000);
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
    violations: () => prism.log.slice(logFrom).split('\n').filter((line) => /violation/i.test(line)),
  };
}

describe('a Prism proxy validating against /openapi.json', () => {
  it('finds no violation in the /v1/ sequence: payment create, show, capture and cancel without a body, refund, events, checkout session', async () => {
    const client = api(prism.url);
    const auth = { authorization: `Bearer ${sandbox.credentials.apiKey}` };
    const { step, problems, violations } = recorder();

    const body = { amount: 1050, currency: 'EUR', capture: false, customer: { country: 'NL' }, reference: 'prism-1', metadata: { order_id: 'prism-1' } };
    const payment = step('POST /v1/payments', await client.post('/v1/payments', body, auth)).json;
    step('GET /v1/payments/{id}', await client.get(`/v1/payments/${payment?.id}`, auth));
    step('POST /v1/payments/{id}/capture (no body)', await client.post(`/v1/payments/${payment?.id}/capture`, undefined, auth));
    step('POST /v1/refunds', await client.post('/v1/refunds', { payment_id: payment?.id, amount: 200 }, auth));
    const second = step('POST /v1/payments (second)', await client.post('/v1/payments', { ...body, reference: 'prism-2' }, auth)).json;
    step('POST /v1/payments/{id}/cancel (no body)', await client.post(`/v1/payments/${second?.id}/cancel`, undefined, auth));
    step('GET /v1/events', await client.get(`/v1/events?resource_id=${payment?.id}`, auth));
    step('POST /v1/checkout/sessions', await client.post('/v1/checkout/sessions', { amount: 2500, currency: 'EUR', methods: ['card', 'ideal'], return_url: 'https://shop.example/return' }, auth));

    expect(problems).toEqual([]);
    expect(violations()).toEqual([]);
  });

  it('finds no violation in the S2S sequence: JSON create, its authstatus URL, partial refund, encrypted create', async () => {
    // Prism checks an answer only against a documented schema: until the S2S answers have one,
    // this holds the requests (JSON and form bodies) and the status codes to the document.
    const client = api(prism.url);
    const { step, problems, violations } = recorder();

    const created = step('POST /api/s2s', await client.post('/api/s2s', s2sBody({ ccno: '4242424242424242' })));
    expect(created.json?.order_status, created.text).toBe('25');
    step('GET authstatus', await client.get(new URL(created.json.authstatus).pathname));
    step('POST /api/transactions/refund-request', await client.post('/api/transactions/refund-request', { transID: created.json.transID, refundAmount: '2.50', public_key: CREDS.publicKey }));
    const query = new URLSearchParams({ ...s2sBody(), encryption_method: 'aes256' } as Record<string, string>).toString();
    const encrypted = buildEncryptedData(query, { publicKey: CREDS.publicKey, privateKey: CREDS.privateKey });
    step('POST /api/s2s/encrypt', await client.postForm('/api/s2s/encrypt', { encrypted_data: encrypted }));

    expect(problems).toEqual([]);
    expect(violations()).toEqual([]);
  });
});
