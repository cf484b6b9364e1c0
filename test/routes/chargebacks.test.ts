// Chargebacks through the control API: opening one on a /v1/ payment (disputed) or an S2S
// transaction (order_status 11), winning and losing it, the test card 4000000000000259, the
// 409/422 guards and the 400s of bad input.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CREDS, createTestSandbox, s2sBody, type TestSandbox } from '../helpers/test-sandbox.js';
import { AUTH, advance, createPayment, deliveryUrls, eventTypes, lastEventData } from '../helpers/payments-api.js';
import type { Json } from '../helpers/json.js';

let sb: TestSandbox;
beforeEach(() => {
  sb = createTestSandbox();
});
afterEach(() => sb.close());

async function s2sPayment(overrides: Record<string, unknown> = {}): Promise<string> {
  const res = await sb.request('POST', '/api/s2s', s2sBody({ ccno: '4242424242424242', ...overrides }));
  expect(res.status, res.text).toBe(200);
  return res.json.transID;
}

const open = (body: Record<string, unknown>) => sb.request('POST', '/_sandbox/chargebacks', body);
const paymentStatus = async (id: string) => (await sb.request('GET', `/v1/payments/${id}`, undefined, AUTH)).json.status;
const orderStatus = async (transID: string) => {
  const t = (await sb.request('GET', `/_sandbox/transactions/${transID}`)).json;
  return `${t.order_status} ${t.status}`;
};
/** The form fields of the latest S2S webhook of a type queued for a transaction. */
function s2sWebhook(transID: string, type: string): URLSearchParams {
  const body = sb.db
    .prepare(
      'SELECT d.body FROM deliveries d JOIN events e ON e.id = d.event_id WHERE e.resource_id = ? AND e.type = ? ORDER BY d.rowid DESC LIMIT 1',
    )
    .pluck()
    .get(transID, type) as string | undefined;
  expect(body, `no ${type} webhook for ${transID}`).toBeDefined();
  return new URLSearchParams(body);
}

describe('chargebacks on /v1/ payments', () => {
  it('opening one disputes the payment and publishes chargeback.created to its webhook_url', async () => {
    const payment = await createPayment(sb);
    const res = await open({ payment_id: payment.id, reason: 'product_not_received' });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({
      object: 'chargeback',
      family: 'v1',
      payment_id: payment.id,
      transID: null,
      amount: 1050,
      currency: 'EUR',
      reason: 'product_not_received',
      status: 'open',
    });
    expect(res.json.id).toMatch(/^dp_/);
    expect(await paymentStatus(payment.id)).toBe('disputed');
    expect(lastEventData(sb, payment.id, 'chargeback.created')).toEqual({
      chargeback_id: res.json.id,
      payment_id: payment.id,
      amount: 1050,
      currency: 'EUR',
      reason: 'product_not_received',
      status: 'open',
      payment_status: 'disputed',
    });
    expect(deliveryUrls(sb, payment.id, 'chargeback.created')).toEqual(['https://shop.example/webhooks']);
  });

  it('won: the payment is captured again and chargeback.won is published', async () => {
    const payment = await createPayment(sb);
    const cb = (await open({ payment_id: payment.id })).json;
    expect(cb.reason).toBe('fraudulent');
    const won = await sb.request('POST', `/_sandbox/chargebacks/${cb.id}/win`);
    expect(won.status, won.text).toBe(200);
    expect(won.json.status).toBe('won');
    expect(await paymentStatus(payment.id)).toBe('captured');
    expect(lastEventData(sb, payment.id, 'chargeback.won')).toMatchObject({
      chargeback_id: cb.id,
      status: 'won',
      payment_status: 'captured',
    });
    expect(eventTypes(sb, payment.id)).toEqual(['payment.authorized', 'payment.captured', 'chargeback.created', 'chargeback.won']);
  });

  it('lost (decided by payment id): the payment stays disputed and chargeback.lost is published', async () => {
    const payment = await createPayment(sb);
    const cb = (await open({ payment_id: payment.id, amount: 500 })).json;
    const lost = await sb.request('POST', `/_sandbox/chargebacks/${payment.id}/lose`);
    expect(lost.status, lost.text).toBe(200);
    expect(lost.json).toMatchObject({ id: cb.id, status: 'lost', amount: 500 });
    expect(await paymentStatus(payment.id)).toBe('disputed');
    expect(lastEventData(sb, payment.id, 'chargeback.lost')).toMatchObject({
      chargeback_id: cb.id,
      status: 'lost',
      amount: 500,
      payment_status: 'disputed',
    });
    // A decided chargeback cannot be decided again, and a lost payment cannot be disputed again.
    const again = await sb.request('POST', `/_sandbox/chargebacks/${cb.id}/win`);
    expect(again.status).toBe(409);
    expect(again.json.error.message).toContain('already lost');
    const reopen = await open({ payment_id: payment.id });
    expect(reopen.status).toBe(409);
    expect(reopen.json.error.message).toContain('is disputed');
  });

  it('only captured or partially refunded payments can be disputed: 409 naming the state', async () => {
    const authorized = await createPayment(sb, { token: 'tok_visa', capture: false });
    const res = await open({ payment_id: authorized.id });
    expect(res.status).toBe(409);
    expect(res.json.error).toMatchObject({ code: 'invalid_state', type: 'conflict_error' });
    expect(res.json.error.message).toBe(
      `payment ${authorized.id} is authorized; only a payment that is captured or partially_refunded can be disputed`,
    );
    const declined = await createPayment(sb, { token: 'tok_card_declined' });
    expect((await open({ payment_id: declined.id })).json.error.message).toContain('is declined');
    expect(await paymentStatus(authorized.id)).toBe('authorized');
  });

  it('an amount above what is captured and not refunded is a 422 naming the most allowed', async () => {
    const payment = await createPayment(sb);
    const res = await open({ payment_id: payment.id, amount: 1051 });
    expect(res.status).toBe(422);
    expect(res.json.error).toMatchObject({ code: 'amount_too_large', param: 'amount' });
    expect(res.json.error.message).toContain('send at most 1050');
  });

  it('the chargeback card (tok_chargeback) opens one 30 s of sandbox time after capture', async () => {
    const payment = await createPayment(sb, { token: 'tok_chargeback' });
    advance(sb, 29_000);
    expect((await sb.request('GET', `/_sandbox/chargebacks?payment=${payment.id}`)).json.data).toEqual([]);
    advance(sb, 1_000);
    const [cb] = (await sb.request('GET', `/_sandbox/chargebacks?payment=${payment.id}`)).json.data;
    expect(cb).toMatchObject({ payment_id: payment.id, reason: 'fraudulent', status: 'open', amount: 1050 });
    expect(await paymentStatus(payment.id)).toBe('disputed');
  });

  it('the chargeback card skips its chargeback when the payment was refunded in full meanwhile', async () => {
    const payment = await createPayment(sb, { token: 'tok_chargeback' });
    expect((await sb.request('POST', '/v1/refunds', { payment_id: payment.id }, AUTH)).status).toBe(200);
    advance(sb, 30_000);
    expect(await paymentStatus(payment.id)).toBe('refunded');
    expect((await sb.request('GET', '/_sandbox/chargebacks')).json.data).toEqual([]);
  });
});

describe('chargebacks on S2S transactions', () => {
  it('opening one sets order_status 11 Chargeback and sends the spec §6.1 webhook', async () => {
    const transID = await s2sPayment();
    const res = await open({ transID, reason: 'duplicate' });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({
      family: 's2s',
      transID,
      payment_id: null,
      amount: 1050,
      currency: 'EUR',
      reason: 'duplicate',
      status: 'open',
    });
    expect(await orderStatus(transID)).toBe('11 Chargeback');
    const hook = s2sWebhook(transID, 'chargeback.created');
    expect(hook.get('order_status')).toBe('11');
    expect(hook.get('status')).toBe('Chargeback');
    expect(hook.get('transID')).toBe(transID);
    expect(hook.get('response')).toContain(res.json.id);
  });

  it('won: back to 25 Test Approved with a chargeback.won webhook; lost: stays 11', async () => {
    const won = await s2sPayment();
    await open({ transID: won });
    await sb.request('POST', `/_sandbox/chargebacks/${won}/win`);
    expect(await orderStatus(won)).toBe('25 Test Approved');
    expect(s2sWebhook(won, 'chargeback.won').get('order_status')).toBe('25');

    const lost = await s2sPayment();
    const cb = (await open({ transID: lost })).json;
    await sb.request('POST', `/_sandbox/chargebacks/${cb.id}/lose`);
    expect(await orderStatus(lost)).toBe('11 Chargeback');
    const hook = s2sWebhook(lost, 'chargeback.lost');
    expect(hook.get('order_status')).toBe('11');
    expect(hook.get('response')).toContain('lost');
  });

  it('a partially refunded transaction can be charged back for what is left, and returns to 6 when won', async () => {
    const transID = await s2sPayment();
    const refund = await sb.request('POST', '/api/transactions/refund-request', {
      transID,
      refundAmount: '4.00',
      public_key: CREDS.publicKey,
    });
    expect(refund.status, refund.text).toBe(200);
    advance(sb, 2_000);
    expect(await orderStatus(transID)).toBe('6 Partially Refunded');
    expect((await open({ transID, amount: 651 })).status).toBe(422);
    const cb = (await open({ transID })).json;
    expect(cb.amount).toBe(650);
    await sb.request('POST', `/_sandbox/chargebacks/${cb.id}/win`);
    expect(await orderStatus(transID)).toBe('6 Partially Refunded');
  });

  it('the chargeback card 4000000000000259 opens one 30 s after approval', async () => {
    const transID = await s2sPayment({ ccno: '4000000000000259' });
    expect(await orderStatus(transID)).toBe('25 Test Approved');
    advance(sb, 30_000);
    expect(await orderStatus(transID)).toBe('11 Chargeback');
    expect(s2sWebhook(transID, 'chargeback.created').get('status')).toBe('Chargeback');
  });

  it('a pending transaction cannot be charged back: 409 naming its status', async () => {
    const transID = await s2sPayment({ ccno: '4000000000003220' });
    const res = await open({ transID });
    expect(res.status).toBe(409);
    expect(res.json.error.message).toBe(
      `transaction ${transID} is Pending (order_status 0); only a Test Approved (25) or Partially Refunded (6) transaction can be charged back`,
    );
  });
});

describe('the chargebacks control API', () => {
  it('lists newest first, filtered by status and payment, and shows one by id', async () => {
    const a = await createPayment(sb);
    const b = await createPayment(sb);
    const first = (await open({ payment_id: a.id })).json;
    sb.clock.advance(1000);
    const second = (await open({ payment_id: b.id })).json;
    await sb.request('POST', `/_sandbox/chargebacks/${first.id}/win`);
    expect((await sb.request('GET', '/_sandbox/chargebacks')).json.data.map((c: Json) => c.id)).toEqual([second.id, first.id]);
    expect((await sb.request('GET', '/_sandbox/chargebacks?status=won')).json.data.map((c: Json) => c.id)).toEqual([first.id]);
    expect((await sb.request('GET', `/_sandbox/chargebacks?payment=${b.id}`)).json.data.map((c: Json) => c.id)).toEqual([second.id]);
    expect((await sb.request('GET', `/_sandbox/chargebacks/${second.id}`)).json).toMatchObject({ id: second.id, status: 'open' });
  });

  it.each([
    [{}, 400, 'parameter_missing', 'payment_id', 'payment_id or transID is required'],
    [{ payment_id: 'pay_x', transID: '123' }, 400, 'parameter_invalid', 'transID', 'either transID or payment_id'],
    [{ payment_id: 'pay_x', reason: 'angry' }, 400, 'parameter_invalid', 'reason', 'fraudulent, product_not_received'],
    [{ payment_id: 'pay_x', amount: 0 }, 400, 'parameter_invalid', 'amount', 'minor units'],
    [{ payment_id: 'pay_x', amount: '10.50' }, 400, 'parameter_invalid', 'amount', 'minor units'],
    [{ payment_id: 'pay_x', extra: 1 }, 400, 'parameter_unknown', 'extra', 'not a field'],
    [{ transID: 'abc' }, 400, 'parameter_invalid', 'transID', 'transID'],
    [{ payment_id: 'pay_missing' }, 404, 'resource_missing', 'payment_id', 'no payment pay_missing'],
    [{ transID: '999999999999999' }, 404, 'resource_missing', 'transID', 'no transaction 999999999999999'],
  ])('POST %j is a %i %s on %s', async (body, status, code, param, message) => {
    const res = await open(body);
    expect(res.status, res.text).toBe(status);
    expect(res.json.error).toMatchObject({ code, param });
    expect(res.json.error.message).toContain(message);
  });

  it('bad JSON, an unknown chargeback, a bad filter and deciding without an open chargeback are 4xx', async () => {
    const bad = await sb.request('POST', '/_sandbox/chargebacks', '{', { 'content-type': 'application/json' });
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe('invalid_json');
    expect((await sb.request('GET', '/_sandbox/chargebacks/dp_nope')).status).toBe(404);
    expect((await sb.request('POST', '/_sandbox/chargebacks/dp_nope/win')).status).toBe(404);
    const filter = await sb.request('GET', '/_sandbox/chargebacks?status=closed');
    expect(filter.status).toBe(400);
    expect(filter.json.error.param).toBe('status');
    const payment = await createPayment(sb);
    const none = await sb.request('POST', `/_sandbox/chargebacks/${payment.id}/lose`);
    expect(none.status).toBe(409);
    expect(none.json.error.message).toContain('has no open chargeback');
  });

  it('is refused to non-loopback callers when a control token is set and not sent', async () => {
    const guarded = createTestSandbox({ controlToken: 'ctl_secret' });
    try {
      const res = await guarded.request('GET', '/_sandbox/chargebacks');
      expect(res.status).toBe(401);
      expect(res.json.error.code).toBe('control_forbidden');
      expect((await guarded.request('GET', '/_sandbox/chargebacks', undefined, { authorization: 'Bearer ctl_secret' })).status).toBe(200);
    } finally {
      guarded.close();
    }
  });
});
