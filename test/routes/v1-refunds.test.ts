// /v1/refunds: money rules (what is left, pending refunds count as taken), pending -> succeeded
// or failed on the sandbox clock, the payment's status following, events, list, validation.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestSandbox, type TestSandbox } from '../helpers/test-sandbox.js';
import { V1_REFUND_COMPLETION_MS } from '../../src/services/v1-refunds.js';
import { AUTH, advance, createPayment, deliveryUrls, eventTypes, lastEventData } from '../helpers/payments-api.js';

let sb: TestSandbox;
beforeEach(() => {
  sb = createTestSandbox();
});
afterEach(() => sb.close());

const refund = (body: Record<string, unknown>) => sb.request('POST', '/v1/refunds', body, AUTH);
const payment = async (id: string) => (await sb.request('GET', `/v1/payments/${id}`, undefined, AUTH)).json;

describe('POST /v1/refunds', () => {
  it('refunds what is left by default: pending, then succeeded; the payment becomes refunded', async () => {
    const paid = await createPayment(sb);
    const res = await refund({ payment_id: paid.id, reason: 'requested_by_customer' });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      object: 'refund',
      payment_id: paid.id,
      amount: 1050,
      currency: 'EUR',
      reason: 'requested_by_customer',
      status: 'pending',
      failure_reason: null,
    });
    expect(res.json.id).toMatch(/^rfd_/);
    expect(eventTypes(sb, paid.id)).toEqual(['payment.authorized', 'payment.captured', 'refund.created']);
    expect((await payment(paid.id)).status).toBe('captured');

    advance(sb, V1_REFUND_COMPLETION_MS);
    const shown = await sb.request('GET', `/v1/refunds/${res.json.id}`, undefined, AUTH);
    expect(shown.json.status).toBe('succeeded');
    expect(await payment(paid.id)).toMatchObject({ status: 'refunded', amount_refunded: 1050 });
    expect(eventTypes(sb, paid.id)).toEqual(['payment.authorized', 'payment.captured', 'refund.created', 'refund.succeeded']);
    expect(lastEventData(sb, paid.id, 'refund.succeeded')).toMatchObject({
      refund_id: res.json.id,
      payment_id: paid.id,
      status: 'succeeded',
      amount: 1050,
      payment_status: 'refunded',
      amount_refunded: 1050,
    });
    expect(deliveryUrls(sb, paid.id, 'refund.succeeded')).toEqual(['https://shop.example/webhooks']);
  });

  it('a partial refund makes the payment partially_refunded; the rest can follow', async () => {
    const paid = await createPayment(sb);
    await refund({ payment_id: paid.id, amount: 300 });
    advance(sb, V1_REFUND_COMPLETION_MS);
    expect(await payment(paid.id)).toMatchObject({ status: 'partially_refunded', amount_refunded: 300 });
    const rest = await refund({ payment_id: paid.id });
    expect(rest.json.amount).toBe(750);
    advance(sb, V1_REFUND_COMPLETION_MS);
    expect(await payment(paid.id)).toMatchObject({ status: 'refunded', amount_refunded: 1050 });
  });

  it('refunds only what was captured of a partial capture', async () => {
    const paid = await createPayment(sb, { capture: false });
    await sb.request('POST', `/v1/payments/${paid.id}/capture`, { amount: 400 }, AUTH);
    const res = await refund({ payment_id: paid.id, amount: 401 });
    expect(res.status).toBe(422);
    expect(res.json.error.message).toContain('at most 400');
    expect((await refund({ payment_id: paid.id })).json.amount).toBe(400);
  });

  it('more than is left is 422 amount_too_large saying how much is left; pending refunds count as taken', async () => {
    const paid = await createPayment(sb);
    expect((await refund({ payment_id: paid.id, amount: 1000 })).status).toBe(200);
    const res = await refund({ payment_id: paid.id, amount: 51 });
    expect(res.status).toBe(422);
    expect(res.json.error).toMatchObject({ code: 'amount_too_large', param: 'amount' });
    expect(res.json.error.message).toContain('50 of the 1050 EUR minor units captured is left');
    expect(res.json.error.message).toContain('1000 in pending refunds');
    expect((await refund({ payment_id: paid.id, amount: 50 })).status).toBe(200);
    const none = await refund({ payment_id: paid.id });
    expect(none.status).toBe(422);
    expect(none.json.error.message).toContain('at most 0');
  });

  it('many refunds at once never exceed the captured amount', async () => {
    const paid = await createPayment(sb);
    const answers = await Promise.all(Array.from({ length: 25 }, () => refund({ payment_id: paid.id, amount: 100 })));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(10);
    expect(answers.filter((a) => a.status === 422)).toHaveLength(15);
    advance(sb, V1_REFUND_COMPLETION_MS);
    expect(await payment(paid.id)).toMatchObject({ status: 'partially_refunded', amount_refunded: 1000 });
  });

  it('the refund-fail card: the refund fails later, refund.failed, and the money is refundable again', async () => {
    for (const how of [{ token: 'tok_refund_fail' }, { card: { number: '4000000000005126', exp_month: 12, exp_year: 2030, cvc: '123' } }]) {
      const paid = await createPayment(sb, how);
      const res = await refund({ payment_id: paid.id });
      expect(res.json.status).toBe('pending');
      advance(sb, V1_REFUND_COMPLETION_MS);
      const shown = (await sb.request('GET', `/v1/refunds/${res.json.id}`, undefined, AUTH)).json;
      expect(shown.status).toBe('failed');
      expect(shown.failure_reason).toContain('4000000000005126');
      expect(await payment(paid.id)).toMatchObject({ status: 'captured', amount_refunded: 0 });
      expect(eventTypes(sb, paid.id).slice(-2)).toEqual(['refund.created', 'refund.failed']);
      expect(lastEventData(sb, paid.id, 'refund.failed')).toMatchObject({ status: 'failed', refund_id: res.json.id });
      expect((await refund({ payment_id: paid.id })).json.amount).toBe(1050);
    }
  });

  it.each([
    ['authorized', { capture: false }, ' (capture it first'],
    ['declined', { token: 'tok_card_declined' }, ''],
    ['requires_action', { token: 'tok_threeds_required' }, ''],
  ])('a %s payment is 422 not_refundable naming the state', async (state, overrides, hint) => {
    const paid = await createPayment(sb, overrides);
    const res = await refund({ payment_id: paid.id });
    expect(res.status).toBe(422);
    expect(res.json.error).toMatchObject({ code: 'not_refundable', param: 'payment_id' });
    expect(res.json.error.message).toContain(
      `payment ${paid.id} is ${state}; only a captured or partially_refunded payment can be refunded${hint}`,
    );
  });

  it('a fully refunded payment is not refundable', async () => {
    const paid = await createPayment(sb);
    await refund({ payment_id: paid.id });
    advance(sb, V1_REFUND_COMPLETION_MS);
    const res = await refund({ payment_id: paid.id, amount: 1 });
    expect(res.status).toBe(422);
    expect(res.json.error.code).toBe('not_refundable');
  });

  it('an unknown payment is 404 on payment_id', async () => {
    const res = await refund({ payment_id: 'pay_0000000000000000' });
    expect(res.status).toBe(404);
    expect(res.json.error).toMatchObject({ code: 'resource_missing', param: 'payment_id' });
  });

  it.each([
    [{}, 'parameter_missing', 'payment_id'],
    [{ payment_id: '' }, 'parameter_missing', 'payment_id'],
    [{ payment_id: 42 }, 'parameter_invalid', 'payment_id'],
    [{ payment_id: 'pay_x', amount: '5' }, 'parameter_invalid', 'amount'],
    [{ payment_id: 'pay_x', amount: 0 }, 'parameter_invalid', 'amount'],
    [{ payment_id: 'pay_x', amount: 1.5 }, 'parameter_invalid', 'amount'],
    [{ payment_id: 'pay_x', reason: 'changed_mind' }, 'parameter_invalid', 'reason'],
    [{ payment_id: 'pay_x', refundAmount: 5 }, 'parameter_unknown', 'refundAmount'],
  ])('body %j is 400 %s on %s', async (body, code, param) => {
    const res = await refund(body);
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code, param });
  });
});

describe('GET /v1/refunds', () => {
  it("lists a payment's refunds newest first and pages them", async () => {
    const paid = await createPayment(sb);
    const other = await createPayment(sb);
    const ids: string[] = [];
    for (const amount of [100, 200, 300]) {
      ids.push((await refund({ payment_id: paid.id, amount })).json.id);
      sb.clock.advance(1000);
    }
    await refund({ payment_id: other.id, amount: 5 });
    const res = await sb.request('GET', `/v1/refunds?payment_id=${paid.id}`, undefined, AUTH);
    expect(res.json.object).toBe('list');
    expect(res.json.data.map((r: { id: string }) => r.id)).toEqual([...ids].reverse());
    expect(res.json.has_more).toBe(false);
    const page = await sb.request('GET', `/v1/refunds?payment_id=${paid.id}&limit=2`, undefined, AUTH);
    expect(page.json.has_more).toBe(true);
    const next = await sb.request(
      'GET',
      `/v1/refunds?payment_id=${paid.id}&limit=2&starting_after=${page.json.data[1].id}`,
      undefined,
      AUTH,
    );
    expect(next.json.data.map((r: { id: string }) => r.id)).toEqual([ids[0]]);
    expect((await sb.request('GET', '/v1/refunds', undefined, AUTH)).json.data).toHaveLength(4);
  });

  it.each([
    ['payment_id=pay_0000000000000000', 404, 'resource_missing', 'payment_id'],
    ['starting_after=rfd_0000000000000000', 404, 'resource_missing', 'starting_after'],
    ['limit=0', 400, 'parameter_invalid', 'limit'],
    ['transID=1', 400, 'parameter_unknown', 'transID'],
  ])('%s is %i %s on %s', async (query, status, code, param) => {
    const res = await sb.request('GET', `/v1/refunds?${query}`, undefined, AUTH);
    expect(res.status).toBe(status);
    expect(res.json.error).toMatchObject({ code, param });
  });

  it('GET /v1/refunds/{id} of an unknown refund is 404 on id', async () => {
    const res = await sb.request('GET', '/v1/refunds/rfd_0000000000000000', undefined, AUTH);
    expect(res.status).toBe(404);
    expect(res.json.error).toMatchObject({ code: 'resource_missing', param: 'id' });
  });
});
