// Merchant isolation on every bearer-API endpoint of payments, refunds and tokens: the other
// merchant's key on sk_test_sandbox's objects gets a 404 whose body is the one a missing id gets
// (apart from request_id), and the objects are left unchanged.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestSandbox, type TestSandbox } from '../helpers/test-sandbox.js';
import { AUTH, OTHER, createPayment } from '../helpers/payments-api.js';

let sb: TestSandbox;
let ids: { payment: string; authorized: string; refund: string; token: string };

beforeEach(async () => {
  sb = createTestSandbox();
  const token = (
    await sb.request('POST', '/v1/tokens', { card: { number: '4242424242424242', exp_month: 12, exp_year: 2030, cvc: '123' } }, AUTH)
  ).json.id;
  const payment = (await createPayment(sb, { token })).id;
  const authorized = (await createPayment(sb, { capture: false })).id;
  const refund = (await sb.request('POST', '/v1/refunds', { payment_id: payment, amount: 100 }, AUTH)).json.id;
  ids = { payment, authorized, refund, token };
});
afterEach(() => sb.close());

const MISSING = {
  payment: 'pay_0000000000000000',
  authorized: 'pay_0000000000000001',
  refund: 'rfd_0000000000000000',
  token: 'tok_0000000000000000',
};

/** Every endpoint that takes an object id, built from a set of ids. */
const endpoints: Array<[string, (id: typeof MISSING) => [string, string, unknown?]]> = [
  ['GET /v1/payments/{id}', (id) => ['GET', `/v1/payments/${id.payment}`]],
  ['POST /v1/payments/{id}/capture', (id) => ['POST', `/v1/payments/${id.authorized}/capture`]],
  ['POST /v1/payments/{id}/cancel', (id) => ['POST', `/v1/payments/${id.authorized}/cancel`]],
  ['GET /v1/payments?starting_after', (id) => ['GET', `/v1/payments?starting_after=${id.payment}`]],
  ['POST /v1/payments with token', (id) => ['POST', '/v1/payments', { amount: 100, currency: 'EUR', token: id.token }]],
  ['POST /v1/refunds', (id) => ['POST', '/v1/refunds', { payment_id: id.payment, amount: 1 }]],
  ['GET /v1/refunds/{id}', (id) => ['GET', `/v1/refunds/${id.refund}`]],
  ['GET /v1/refunds?payment_id', (id) => ['GET', `/v1/refunds?payment_id=${id.payment}`]],
  ['GET /v1/refunds?starting_after', (id) => ['GET', `/v1/refunds?starting_after=${id.refund}`]],
  ['GET /v1/tokens/{id}', (id) => ['GET', `/v1/tokens/${id.token}`]],
];

/** The same request with the other merchant's ids swapped for the missing ones, so bodies compare. */
function sameShape(text: string): unknown {
  const body = JSON.parse(text);
  delete body.error.request_id;
  let message: string = body.error.message;
  for (const key of Object.keys(MISSING) as Array<keyof typeof MISSING>) message = message.replaceAll(ids[key], MISSING[key]);
  body.error.message = message;
  return body;
}

describe('sk_test_other on sk_test_sandbox objects', () => {
  it.each(endpoints)('%s is a 404 identical to a missing id', async (_name, build) => {
    const [method, path, body] = build(ids);
    const foreign = await sb.request(method, path, body, OTHER);
    const [mMethod, mPath, mBody] = build(MISSING);
    const missing = await sb.request(mMethod, mPath, mBody, OTHER);
    expect(foreign.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(foreign.json.error.code).toBe('resource_missing');
    expect(sameShape(foreign.text)).toEqual(sameShape(missing.text));
  });

  it('changes nothing and leaks nothing in lists', async () => {
    const list = await sb.request('GET', '/v1/payments', undefined, OTHER);
    expect(list.json.data).toEqual([]);
    expect((await sb.request('GET', '/v1/refunds', undefined, OTHER)).json.data).toEqual([]);
    const own = await sb.request('GET', `/v1/payments/${ids.authorized}`, undefined, AUTH);
    expect(own.json.status).toBe('authorized');
    expect((await sb.request('GET', `/v1/refunds?payment_id=${ids.payment}`, undefined, AUTH)).json.data).toHaveLength(1);
  });

  it('the owner still sees each object (so the 404s above are about the key, not the ids)', async () => {
    for (const [, build] of endpoints) {
      const [method, path, body] = build(ids);
      if (method === 'POST') continue;
      const res = await sb.request(method, path, body, AUTH);
      expect(res.status, `${method} ${path}`).toBe(200);
    }
  });
});
