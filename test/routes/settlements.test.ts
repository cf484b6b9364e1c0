// Settlements through the control API: the fee model (table-driven), batching per merchant and
// currency across both families, refunds deducted, what is left out, settled-once, clawbacks of
// refunds and lost chargebacks after a payout, and the settlement.created / settlement.paid events
// on the sandbox clock.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CREDS, createTestSandbox, s2sBody, type TestSandbox } from '../helpers/test-sandbox.js';
import { AUTH, OTHER, advance, createPayment, deliveryUrls, eventTypes, lastEventData } from '../helpers/payments-api.js';
import type { Json } from '../helpers/json.js';

let sb: TestSandbox;
beforeEach(() => {
  sb = createTestSandbox();
});
afterEach(() => sb.close());

const settle = async (body?: Record<string, unknown>) => {
  const res = await sb.request('POST', '/_sandbox/settlements', body);
  expect(res.status, res.text).toBe(200);
  return res.json.data as Json[];
};

async function s2sPayment(overrides: Record<string, unknown> = {}): Promise<string> {
  const res = await sb.request('POST', '/api/s2s', s2sBody({ ccno: '4242424242424242', ...overrides }));
  expect(res.status, res.text).toBe(200);
  return res.json.transID;
}

describe('the fee model: 1.4% rounded half up plus 0.25 per payment', () => {
  it.each([
    // amount, currency, percent part, fixed part
    [1000, 'EUR', 14, 25],
    [1050, 'EUR', 15, 25], // 14.7 -> 15
    [1, 'EUR', 0, 25], // 0.014 -> 0
    [35, 'EUR', 0, 25], // 0.49 -> 0
    [36, 'EUR', 1, 25], // 0.504 -> 1
    [250, 'EUR', 4, 25], // exactly 3.5 -> 4 (half up)
    [9_999_999_999, 'EUR', 140_000_000, 25], // 139 999 999.986 -> 140 000 000
    [1000, 'JPY', 14, 25], // zero-decimal: 25 whole yen
    [250, 'JPY', 4, 25],
    [1000, 'KWD', 14, 250], // three-decimal: 0.250 KWD
  ])('%i %s minor units pays %i + %i', async (amount, currency, percent, fixed) => {
    const payment = await createPayment(sb, { amount, currency, token: 'tok_visa' });
    const [settlement] = await settle({ currency });
    expect(settlement.payments).toEqual([
      { family: 'v1', id: payment.id, gross: amount, fee: percent + fixed, refunded: 0, net: amount - percent - fixed },
    ]);
    expect(settlement).toMatchObject({
      currency,
      count: 1,
      gross: amount,
      fees: percent + fixed,
      refunds: 0,
      adjustments: 0,
      net: amount - percent - fixed,
      clawbacks: [],
    });
    expect(settlement.fee_model).toEqual({ percent_basis_points: 140, fixed_per_payment: fixed });
  });
});

describe('sandbox settle', () => {
  it('batches captured payments of both families into one settlement per merchant and currency', async () => {
    const a = await createPayment(sb, { amount: 1000 });
    const b = await createPayment(sb, { amount: 2000 });
    const transID = await s2sPayment({ bill_amt: '10.50' });
    const usd = await createPayment(sb, { amount: 500, currency: 'USD' });
    const other = await createPayment(sb, { amount: 700 }, OTHER);
    const created = await settle();
    expect(created).toHaveLength(3);
    const find = (merchant: string, currency: string) => created.find((s) => s.merchant_id === merchant && s.currency === currency);
    const eur = find('mer_sandbox', 'EUR');
    expect(eur).toMatchObject({
      object: 'settlement',
      status: 'created',
      count: 3,
      gross: 4050,
      fees: 39 + 53 + 40,
      refunds: 0,
      net: 4050 - 132,
      paid_at: null,
    });
    expect(eur.id).toMatch(/^st_/);
    // The fixed test clock gives every payment the same time; order within a batch is then by id.
    expect(eur.payments.map((p: Json) => `${p.family} ${p.id}`).sort()).toEqual([`v1 ${a.id}`, `v1 ${b.id}`, `s2s ${transID}`].sort());
    expect(find('mer_sandbox', 'USD').payments.map((p: Json) => p.id)).toEqual([usd.id]);
    expect(find('mer_other', 'EUR').payments.map((p: Json) => p.id)).toEqual([other.id]);
  });

  it('deducts refunds that succeeded, and keeps fees on refunded payments', async () => {
    const partly = await createPayment(sb, { amount: 1000 });
    const fully = await createPayment(sb, { amount: 1000 });
    expect((await sb.request('POST', '/v1/refunds', { payment_id: partly.id, amount: 300 }, AUTH)).status).toBe(200);
    expect((await sb.request('POST', '/v1/refunds', { payment_id: fully.id }, AUTH)).status).toBe(200);
    const transID = await s2sPayment({ bill_amt: '10.00' });
    expect(
      (await sb.request('POST', '/api/transactions/refund-request', { transID, refundAmount: '2.50', public_key: CREDS.publicKey })).status,
    ).toBe(200);
    advance(sb, 2_000);
    const [s] = await settle();
    expect(s).toMatchObject({ count: 3, gross: 3000, fees: 3 * 39, refunds: 300 + 1000 + 250, net: 3000 - 117 - 1550 });
    expect(s.payments.find((p: Json) => p.id === fully.id)).toEqual({
      family: 'v1',
      id: fully.id,
      gross: 1000,
      fee: 39,
      refunded: 1000,
      net: -39,
    });
  });

  it('leaves out payments that are not captured, in dispute, or pending, and settles a payment once', async () => {
    await createPayment(sb, { token: 'tok_visa', capture: false });
    await createPayment(sb, { token: 'tok_card_declined' });
    await createPayment(sb, { token: 'tok_threeds_required' });
    const disputed = await createPayment(sb);
    expect((await sb.request('POST', '/_sandbox/chargebacks', { payment_id: disputed.id })).status).toBe(201);
    await s2sPayment({ ccno: '4000000000003220' });
    const captured = await createPayment(sb, { amount: 1234 });
    const [s] = await settle();
    expect(s.payments.map((p: Json) => p.id)).toEqual([captured.id]);
    expect(await settle()).toEqual([]);
    // A won chargeback makes the payment captured again, so the next run settles it.
    await sb.request('POST', `/_sandbox/chargebacks/${disputed.id}/win`);
    expect((await settle()).flatMap((x) => x.payments.map((p: Json) => p.id))).toEqual([disputed.id]);
  });

  it('narrows by merchant and currency', async () => {
    await createPayment(sb, { amount: 1000 });
    await createPayment(sb, { amount: 1000, currency: 'USD' });
    await createPayment(sb, { amount: 1000 }, OTHER);
    const usd = await settle({ currency: 'usd' });
    expect(usd.map((s) => [s.merchant_id, s.currency])).toEqual([['mer_sandbox', 'USD']]);
    const mine = await settle({ merchant: 'mer_sandbox' });
    expect(mine.map((s) => [s.merchant_id, s.currency])).toEqual([['mer_sandbox', 'EUR']]);
  });

  it('publishes settlement.created at once and settlement.paid two days of sandbox time later', async () => {
    const payment = await createPayment(sb, { amount: 1000 });
    const [s] = await settle();
    expect(s.pay_at).toBe(new Date(sb.clock.now() + 2 * 86_400_000).toISOString());
    expect(eventTypes(sb, s.id)).toEqual(['settlement.created']);
    expect(lastEventData(sb, s.id, 'settlement.created')).toMatchObject({
      settlement_id: s.id,
      status: 'created',
      merchant_id: 'mer_sandbox',
      currency: 'EUR',
      count: 1,
      gross: 1000,
      fees: 39,
      refunds: 0,
      net: 961,
      paid_at: null,
      payments: [{ family: 'v1', id: payment.id, gross: 1000, fee: 39, refunded: 0, net: 961 }],
    });
    advance(sb, 2 * 86_400_000 - 1);
    expect((await sb.request('GET', `/_sandbox/settlements/${s.id}`)).json.status).toBe('created');
    advance(sb, 1);
    const paid = (await sb.request('GET', `/_sandbox/settlements/${s.id}`)).json;
    expect(paid).toMatchObject({ status: 'paid', paid_at: new Date(sb.clock.now()).toISOString() });
    expect(eventTypes(sb, s.id)).toEqual(['settlement.created', 'settlement.paid']);
    expect(lastEventData(sb, s.id, 'settlement.paid')).toMatchObject({ settlement_id: s.id, status: 'paid', net: 961 });
  });

  it('a clock that jumps days past the payout dates paid_at at pay_at, not at the jump', async () => {
    await createPayment(sb, { amount: 1000 });
    const [s] = await settle();
    advance(sb, 10 * 86_400_000);
    expect((await sb.request('GET', `/_sandbox/settlements/${s.id}`)).json).toMatchObject({ status: 'paid', paid_at: s.pay_at });
    expect(lastEventData(sb, s.id, 'settlement.paid')).toMatchObject({ paid_at: s.pay_at });
  });

  it('pay_after "0s" pays at once; the events go to subscribed webhook endpoints', async () => {
    const endpoint = await sb.request(
      'POST',
      '/v1/webhook_endpoints',
      { url: 'https://shop.example/settlements', events: ['settlement.created', 'settlement.paid'] },
      AUTH,
    );
    expect(endpoint.status, endpoint.text).toBe(200);
    await createPayment(sb, { amount: 1000 });
    const [s] = await settle({ pay_after: '0s' });
    expect(s.status).toBe('paid');
    expect(eventTypes(sb, s.id)).toEqual(['settlement.created', 'settlement.paid']);
    expect(deliveryUrls(sb, s.id, 'settlement.created')).toEqual(['https://shop.example/settlements']);
    expect(deliveryUrls(sb, s.id, 'settlement.paid')).toEqual(['https://shop.example/settlements']);
  });

  it('lists settlements newest first, filtered by status, and shows one with its payments', async () => {
    await createPayment(sb, { amount: 1000 });
    const [first] = await settle({ pay_after: '0s' });
    sb.clock.advance(1000);
    await createPayment(sb, { amount: 2000 });
    const [second] = await settle();
    expect((await sb.request('GET', '/_sandbox/settlements')).json.data.map((s: Json) => s.id)).toEqual([second.id, first.id]);
    expect((await sb.request('GET', '/_sandbox/settlements?status=paid')).json.data.map((s: Json) => s.id)).toEqual([first.id]);
    const one = await sb.request('GET', `/_sandbox/settlements/${second.id}`);
    expect(one.json).toMatchObject({ id: second.id, gross: 2000, payments: [{ gross: 2000 }] });
  });

  it('with nothing to settle answers an empty list', async () => {
    expect(await settle()).toEqual([]);
    expect((await sb.request('GET', '/_sandbox/settlements')).json.data).toEqual([]);
  });

  it.each([
    [{ pay_after: 'soon' }, 'parameter_invalid', 'pay_after', 'duration such as "2d"'],
    [{ currency: 'EURO' }, 'parameter_invalid', 'currency', 'ISO 4217'],
    [{ merchant: '' }, 'parameter_missing', 'merchant', 'merchant'],
    [{ when: 'now' }, 'parameter_unknown', 'when', 'not a field'],
  ])('POST %j is a 400 %s on %s', async (body, code, param, message) => {
    const res = await sb.request('POST', '/_sandbox/settlements', body);
    expect(res.status, res.text).toBe(400);
    expect(res.json.error).toMatchObject({ code, param });
    expect(res.json.error.message).toContain(message);
  });

  it('an unknown merchant is a 404 naming the field', async () => {
    const res = await sb.request('POST', '/_sandbox/settlements', { merchant: 'mer_nobody' });
    expect(res.status).toBe(404);
    expect(res.json.error).toMatchObject({ code: 'resource_missing', param: 'merchant' });
    expect(res.json.error.message).toContain('no merchant mer_nobody');
  });

  it('an unknown settlement is a 404, and a bad filter a 400', async () => {
    const missing = await sb.request('GET', '/_sandbox/settlements/st_nope');
    expect(missing.status).toBe(404);
    expect(missing.json.error).toMatchObject({ code: 'resource_missing', param: 'id' });
    const bad = await sb.request('GET', '/_sandbox/settlements?status=late');
    expect(bad.status).toBe(400);
    expect(bad.json.error.param).toBe('status');
  });
});

describe('clawbacks: refunds and lost chargebacks after a payout', () => {
  const refundV1 = async (paymentId: string, amount?: number) => {
    const res = await sb.request(
      'POST',
      '/v1/refunds',
      amount === undefined ? { payment_id: paymentId } : { payment_id: paymentId, amount },
      AUTH,
    );
    expect(res.status, res.text).toBe(200);
    // A refund succeeds on a job of the sandbox clock; only then is it owed back.
    advance(sb, 2_000);
  };

  it('takes a later refund back in the next settlement, once, even when it carries no new payment', async () => {
    const payment = await createPayment(sb, { amount: 1000 });
    const [first] = await settle();
    expect(first).toMatchObject({ count: 1, refunds: 0, adjustments: 0, net: 961 });
    await refundV1(payment.id, 300);

    const [second] = await settle();
    expect(second).toMatchObject({ count: 0, gross: 0, fees: 0, refunds: 0, adjustments: -300, net: -300, payments: [] });
    expect(second.clawbacks).toEqual([{ family: 'v1', id: payment.id, kind: 'refund', chargeback_id: null, amount: -300 }]);
    expect(lastEventData(sb, second.id, 'settlement.created')).toMatchObject({ adjustments: -300, net: -300, clawbacks: second.clawbacks });
    expect(await settle()).toEqual([]);
    // The first settlement is as it was.
    expect((await sb.request('GET', `/_sandbox/settlements/${first.id}`)).json).toMatchObject({ adjustments: 0, net: 961, clawbacks: [] });

    // A second refund is taken back for its own amount only.
    await refundV1(payment.id, 200);
    const [third] = await settle();
    expect(third.clawbacks).toEqual([{ family: 'v1', id: payment.id, kind: 'refund', chargeback_id: null, amount: -200 }]);
  });

  it('nets clawbacks against new payments of the same merchant and currency, and keeps currencies apart', async () => {
    const eur = await createPayment(sb, { amount: 1000 });
    const usd = await createPayment(sb, { amount: 2000, currency: 'USD' });
    const transID = await s2sPayment({ bill_amt: '10.00' });
    await settle();
    await refundV1(eur.id, 100);
    await refundV1(usd.id);
    expect(
      (await sb.request('POST', '/api/transactions/refund-request', { transID, refundAmount: '2.50', public_key: CREDS.publicKey })).status,
    ).toBe(200);
    // An S2S refund is pending until its job runs: nothing is owed for it yet.
    const fresh = await createPayment(sb, { amount: 5000 });
    const before = await settle({ currency: 'USD' });
    expect(before).toHaveLength(1);
    expect(before[0]).toMatchObject({ currency: 'USD', count: 0, adjustments: -2000, net: -2000 });

    const [s] = await settle();
    expect(s).toMatchObject({ currency: 'EUR', count: 1, gross: 5000, fees: 95, refunds: 0, adjustments: -100, net: 5000 - 95 - 100 });
    expect(s.payments.map((p: Json) => p.id)).toEqual([fresh.id]);
    expect(s.clawbacks.map((a: Json) => [a.family, a.id, a.amount])).toEqual([['v1', eur.id, -100]]);

    // Once the S2S refund has succeeded, the next run takes it back.
    advance(sb, 2_000);
    const [later] = await settle();
    expect(later).toMatchObject({ currency: 'EUR', count: 0, adjustments: -250, net: -250 });
    expect(later.clawbacks).toEqual([{ family: 's2s', id: transID, kind: 'refund', chargeback_id: null, amount: -250 }]);
  });

  it('does not take back a refund the settlement already deducted', async () => {
    const payment = await createPayment(sb, { amount: 1000 });
    await refundV1(payment.id, 400);
    // Pending refunds are neither deducted nor owed back until they succeed.
    const pending = await sb.request('POST', '/v1/refunds', { payment_id: payment.id, amount: 50 }, AUTH);
    expect(pending.json.status).toBe('pending');
    const [first] = await settle();
    expect(first).toMatchObject({ refunds: 400, adjustments: 0 });
    expect(await settle()).toEqual([]);
    await refundV1(payment.id, 100);
    const [second] = await settle();
    expect(second.clawbacks.map((a: Json) => a.amount)).toEqual([-150]);
  });

  it('takes back a chargeback lost after the payout, naming it; an open or won one takes nothing', async () => {
    const lost = await createPayment(sb, { amount: 1000 });
    const won = await createPayment(sb, { amount: 2000 });
    const transID = await s2sPayment({ bill_amt: '30.00' });
    await settle();
    const cbLost = await sb.request('POST', '/_sandbox/chargebacks', { payment_id: lost.id });
    const cbWon = await sb.request('POST', '/_sandbox/chargebacks', { payment_id: won.id });
    const cbS2S = await sb.request('POST', '/_sandbox/chargebacks', { transID, amount: 1200 });
    expect([cbLost.status, cbWon.status, cbS2S.status]).toEqual([201, 201, 201]);
    // Open: nothing is owed yet.
    expect(await settle()).toEqual([]);

    expect((await sb.request('POST', `/_sandbox/chargebacks/${cbLost.json.id}/lose`)).status).toBe(200);
    expect((await sb.request('POST', `/_sandbox/chargebacks/${cbWon.json.id}/win`)).status).toBe(200);
    expect((await sb.request('POST', `/_sandbox/chargebacks/${cbS2S.json.id}/lose`)).status).toBe(200);
    const [s] = await settle();
    expect(s).toMatchObject({ count: 0, adjustments: -1000 - 1200, net: -2200 });
    expect(s.clawbacks).toEqual(
      expect.arrayContaining([
        { family: 'v1', id: lost.id, kind: 'chargeback', chargeback_id: cbLost.json.id, amount: -1000 },
        { family: 's2s', id: transID, kind: 'chargeback', chargeback_id: cbS2S.json.id, amount: -1200 },
      ]),
    );
    expect(s.clawbacks).toHaveLength(2);
    expect(await settle()).toEqual([]);
  });

  it("narrowing by merchant leaves other merchants' clawbacks for their own run", async () => {
    const mine = await createPayment(sb, { amount: 1000 });
    const theirs = await createPayment(sb, { amount: 1000 }, OTHER);
    await settle();
    await refundV1(mine.id, 100);
    expect((await sb.request('POST', '/v1/refunds', { payment_id: theirs.id, amount: 200 }, OTHER)).status).toBe(200);
    advance(sb, 2_000);
    const [s] = await settle({ merchant: 'mer_sandbox' });
    expect(s).toMatchObject({ merchant_id: 'mer_sandbox', adjustments: -100 });
    const [other] = await settle();
    expect(other).toMatchObject({ merchant_id: 'mer_other', adjustments: -200 });
  });
});
