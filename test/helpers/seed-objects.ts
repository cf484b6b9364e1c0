// One object of every kind for a merchant, made through the public API, so fuzz and security
// tests have real ids to aim at: S2S transactions (approved and awaiting 3-D Secure), /v1/
// payments (captured and authorized), a token, a refund, a webhook endpoint, a checkout session.
import { expect } from 'vitest';
import { CREDS, s2sBody, type TestSandbox } from './test-sandbox.js';

/** The ids of one merchant's objects. */
export interface SeededObjects {
  transApproved: string;
  transPending: string;
  challengeToken: string;
  payment: string;
  authorized: string;
  token: string;
  refund: string;
  endpoint: string;
  session: string;
  sessionToken: string;
  event: string;
  delivery: string;
}

async function ok(sb: TestSandbox, method: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await sb.request(method, path, body, headers);
  expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300);
  return res.json;
}

/** Creates the objects for the merchant of `apiKey` / terminal `terNO`. */
export async function seedObjects(
  sb: TestSandbox,
  who: { apiKey: string; terNO: number; publicKey: string } = CREDS,
): Promise<SeededObjects> {
  const bearer = { authorization: `Bearer ${who.apiKey}` };
  const terminal = { terNO: who.terNO, public_key: who.publicKey };
  const approved = await ok(sb, 'POST', '/api/s2s', s2sBody({ ...terminal, ccno: '4242424242424242' }));
  const pending = await ok(sb, 'POST', '/api/s2s', s2sBody({ ...terminal, ccno: '4000000000003220' }));
  const token = await ok(
    sb,
    'POST',
    '/v1/tokens',
    { card: { number: '4242424242424242', exp_month: 12, exp_year: 2030, cvc: '123' } },
    bearer,
  );
  const payBody = {
    amount: 1050,
    currency: 'EUR',
    card: { number: '4242424242424242', exp_month: 12, exp_year: 2030, cvc: '123' },
    webhook_url: 'http://127.0.0.1:9/hook',
  };
  const payment = await ok(sb, 'POST', '/v1/payments', payBody, bearer);
  const authorized = await ok(sb, 'POST', '/v1/payments', { ...payBody, capture: false }, bearer);
  const refund = await ok(sb, 'POST', '/v1/refunds', { payment_id: payment.id, amount: 100 }, bearer);
  const endpoint = await ok(sb, 'POST', '/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/endpoint', events: ['*'] }, bearer);
  const session = await ok(
    sb,
    'POST',
    '/v1/checkout/sessions',
    { amount: 2500, currency: 'EUR', methods: ['card', 'ideal', 'sepa'], return_url: 'https://shop.example/return', reference: 'order-1' },
    bearer,
  );
  const event = sb.db.prepare('SELECT id FROM events WHERE resource_id = ? ORDER BY rowid LIMIT 1').pluck().get(approved.transID) as string;
  const delivery = sb.db.prepare('SELECT id FROM deliveries WHERE event_id = ?').pluck().get(event) as string;
  return {
    transApproved: approved.transID,
    transPending: pending.transID,
    challengeToken: new URL(pending.authurl).pathname.split('/').pop()!,
    payment: payment.id,
    authorized: authorized.id,
    token: token.id,
    refund: refund.id,
    endpoint: endpoint.id,
    session: session.id,
    sessionToken: new URL(session.url).pathname.split('/').pop()!,
    event,
    delivery,
  };
}

/** The CSRF token a page form carries (read from its HTML, as a browser would). */
export async function csrfOf(sb: TestSandbox, path: string): Promise<string> {
  const page = await sb.request('GET', path);
  const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)?.[1];
  expect(csrf, `no csrf field on ${path}`).toBeDefined();
  return csrf!;
}
