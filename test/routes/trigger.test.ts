// POST /_sandbox/events/trigger: every docs/decisions.md event type produces exactly one event of that
// type about objects that exist and read the same through the API; --payment works on an
// existing payment (or S2S transaction) where its state allows, 409/422 where not; --to adds one
// manual delivery of exactly that event.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EVENT_TYPE_NAMES } from '../../src/domain/event-types.js';
import { createTestSandbox, s2sBody, type TestSandbox } from '../helpers/test-sandbox.js';
import { AUTH, createPayment, eventTypes } from '../helpers/payments-api.js';

let sb: TestSandbox;
beforeEach(() => {
  sb = createTestSandbox();
});
afterEach(() => sb.close());

const trigger = (body: Record<string, unknown>) => sb.request('POST', '/_sandbox/events/trigger', body);
const countOf = (type: string) => sb.db.prepare('SELECT COUNT(*) FROM events WHERE type = ?').pluck().get(type) as number;

/** Reads the object an event is about through the API a merchant would use, and returns its status. */
async function statusOfRelated(type: string, related: Record<string, string>): Promise<string> {
  const get = async (path: string, headers: Record<string, string> = {}) => {
    const res = await sb.request('GET', path, undefined, headers);
    expect(res.status, `${path}: ${res.text}`).toBe(200);
    return res.json;
  };
  if (type.startsWith('payment.')) return (await get(`/v1/payments/${related.payment_id}`, AUTH)).status;
  if (type.startsWith('refund.')) return (await get(`/v1/refunds/${related.refund_id}`, AUTH)).status;
  if (type.startsWith('chargeback.')) return (await get(`/_sandbox/chargebacks/${related.chargeback_id}`)).status;
  if (type.startsWith('settlement.')) return (await get(`/_sandbox/settlements/${related.settlement_id}`)).status;
  // A token has no status: its card as the API shows it now stands for it.
  if (type.startsWith('token.')) return JSON.stringify((await get(`/v1/tokens/${related.token_id}`, AUTH)).card);
  return (await get(`/v1/checkout/sessions/${related.checkout_session_id}`, AUTH)).status;
}

describe('trigger, for every event type', () => {
  it('covers exactly the docs/decisions.md list', () => {
    expect(EVENT_TYPE_NAMES).toHaveLength(19);
  });

  it.each(EVENT_TYPE_NAMES)('%s: exactly one event of that type, about objects that exist', async (type) => {
    const res = await trigger({ type });
    expect(res.status, res.text).toBe(201);
    expect(res.json.type).toBe(type);
    expect(res.json.event).toMatchObject({ object: 'event', event: type, merchant_id: 'mer_sandbox' });
    expect(res.json.event.id).toMatch(/^evt_/);
    expect(countOf(type)).toBe(1);
    expect(res.json.events.filter((e: { type: string }) => e.type === type)).toEqual([
      { id: res.json.event.id, type, resource_id: res.json.event.resource_id },
    ]);
    // The event's status is the object's status as the API shows it now.
    const shown = type.startsWith('token.') ? JSON.stringify(res.json.event.data.card) : res.json.event.data.status;
    expect(await statusOfRelated(type, res.json.related)).toBe(shown);
    expect(res.json.delivery).toBeNull();
  });

  it('a triggered payment is a real EUR 20.00 payment tagged with the event it was made for', async () => {
    const res = await trigger({ type: 'payment.captured' });
    const payment = (await sb.request('GET', `/v1/payments/${res.json.related.payment_id}`, undefined, AUTH)).json;
    expect(payment).toMatchObject({
      status: 'captured',
      amount: 2000,
      currency: 'EUR',
      amount_captured: 2000,
      metadata: { sandbox_trigger: 'payment.captured' },
    });
    expect(res.json.events.map((e: { type: string }) => e.type)).toEqual(['payment.authorized', 'payment.captured']);
    expect(res.json.event.data).toMatchObject({ payment_id: payment.id, status: 'captured', amount: 2000, currency: 'EUR' });
  });
});

describe('trigger --payment', () => {
  it('captures an authorized payment for payment.captured, and then refunds it for refund.succeeded', async () => {
    const payment = await createPayment(sb, { token: 'tok_visa', capture: false });
    const captured = await trigger({ type: 'payment.captured', payment_id: payment.id });
    expect(captured.status, captured.text).toBe(201);
    expect(captured.json.related).toEqual({ payment_id: payment.id });
    const refunded = await trigger({ type: 'refund.succeeded', payment_id: payment.id });
    expect(refunded.status, refunded.text).toBe(201);
    expect(refunded.json.event.data).toMatchObject({
      payment_id: payment.id,
      status: 'succeeded',
      amount: 1050,
      payment_status: 'refunded',
    });
    expect(eventTypes(sb, payment.id)).toEqual(['payment.authorized', 'payment.captured', 'refund.created', 'refund.succeeded']);
  });

  it('passes, fails or expires an open 3-D Secure challenge', async () => {
    for (const [type, status] of [
      ['payment.authorized', 'captured'],
      ['payment.declined', 'declined'],
      ['payment.expired', 'expired'],
    ] as const) {
      const payment = await createPayment(sb, { token: 'tok_threeds_required' });
      const res = await trigger({ type, payment_id: payment.id });
      expect(res.status, res.text).toBe(201);
      expect((await sb.request('GET', `/v1/payments/${payment.id}`, undefined, AUTH)).json.status).toBe(status);
    }
  });

  it('opens and then wins a chargeback on an S2S transaction', async () => {
    const s2s = await sb.request('POST', '/api/s2s', s2sBody({ ccno: '4242424242424242' }));
    const transID = s2s.json.transID;
    const created = await trigger({ type: 'chargeback.created', payment_id: transID });
    expect(created.status, created.text).toBe(201);
    expect(created.json.related).toMatchObject({ transID });
    expect(new URLSearchParams(await deliveryBody(created.json.event.id)).get('order_status')).toBe('11');
    const won = await trigger({ type: 'chargeback.won', payment_id: transID });
    expect(won.json.related.chargeback_id).toBe(created.json.related.chargeback_id);
    expect((await sb.request('GET', `/_sandbox/transactions/${transID}`)).json.order_status).toBe('25');
  });

  it('settles an unsettled payment, and pays out its created settlement for settlement.paid', async () => {
    const payment = await createPayment(sb);
    const created = await trigger({ type: 'settlement.created', payment_id: payment.id });
    expect(created.status, created.text).toBe(201);
    const paid = await trigger({ type: 'settlement.paid', payment_id: payment.id });
    expect(paid.status, paid.text).toBe(201);
    expect(paid.json.related.settlement_id).toBe(created.json.related.settlement_id);
    const again = await trigger({ type: 'settlement.paid', payment_id: payment.id });
    expect(again.status).toBe(409);
    expect(again.json.error.message).toContain(`is already in settlement ${created.json.related.settlement_id}, which is paid`);
  });

  it.each([
    ['payment.captured', { token: 'tok_visa' }, 409, 'invalid_state', 'is captured; only a payment that is authorized can be captured'],
    ['payment.canceled', { token: 'tok_visa' }, 409, 'invalid_state', 'is captured'],
    ['payment.expired', { token: 'tok_visa' }, 409, 'invalid_state', 'needs a payment that is requires_action'],
    ['payment.requires_action', { token: 'tok_visa' }, 422, 'not_allowed', 'only when it is created'],
    ['payment.authorized', { token: 'tok_threeds_then_declined' }, 422, 'not_allowed', 'declined after 3-D Secure'],
    ['refund.created', { token: 'tok_visa', capture: false }, 422, 'not_refundable', 'is authorized'],
    ['refund.failed', { token: 'tok_visa' }, 422, 'not_allowed', 'tok_refund_fail'],
    ['refund.succeeded', { token: 'tok_refund_fail' }, 422, 'not_allowed', 'always fail'],
    ['chargeback.created', { token: 'tok_card_declined' }, 409, 'invalid_state', 'is declined'],
    ['settlement.created', { token: 'tok_visa', capture: false }, 409, 'invalid_state', 'is authorized; only captured'],
    ['checkout.session.completed', { token: 'tok_visa' }, 422, 'not_allowed', 'leave out payment_id'],
  ])('%s on a payment made with %j is a %i %s', async (type, overrides, status, code, message) => {
    const payment = await createPayment(sb, overrides);
    const before = sb.db.prepare('SELECT COUNT(*) FROM events').pluck().get();
    const res = await trigger({ type, payment_id: payment.id });
    expect(res.status, res.text).toBe(status);
    expect(res.json.error).toMatchObject({ code });
    expect(res.json.error.message).toContain(message);
    // Nothing was changed: the trigger is one transaction.
    expect(sb.db.prepare('SELECT COUNT(*) FROM events').pluck().get()).toBe(before);
  });

  it('an S2S transaction is refused for payment and refund events with a clear 422', async () => {
    const s2s = await sb.request('POST', '/api/s2s', s2sBody({ ccno: '4242424242424242' }));
    const res = await trigger({ type: 'refund.created', payment_id: s2s.json.transID });
    expect(res.status).toBe(422);
    expect(res.json.error.message).toContain('chargeback.* and settlement.* events only');
  });
});

async function deliveryBody(eventId: string): Promise<string> {
  return sb.db.prepare('SELECT body FROM deliveries WHERE event_id = ? ORDER BY rowid LIMIT 1').pluck().get(eventId) as string;
}

describe('trigger --to', () => {
  it('adds one manual delivery of exactly that event to the URL', async () => {
    const res = await trigger({ type: 'refund.failed', to: 'http://127.0.0.1:9/hook' });
    expect(res.status, res.text).toBe(201);
    expect(res.json.delivery).toMatchObject({
      event_id: res.json.event.id,
      event: 'refund.failed',
      url: 'http://127.0.0.1:9/hook',
      manual: true,
      status: 'pending',
    });
    const rows = sb.db
      .prepare('SELECT event_id AS eventId, url, body FROM deliveries WHERE url = ?')
      .all('http://127.0.0.1:9/hook') as Array<{ eventId: string; body: string }>;
    expect(rows).toHaveLength(1);
    expect(JSON.parse(rows[0]!.body)).toMatchObject({ event: 'refund.failed', id: res.json.event.id, data: { status: 'failed' } });
  });
});

describe('trigger input', () => {
  it.each([
    [{}, 400, 'parameter_missing', 'type', 'payment.requires_action'],
    [{ type: 'payment.exploded' }, 400, 'parameter_invalid', 'type', 'checkout.session.expired'],
    [{ type: 'payment.captured', to: 'ftp://x' }, 400, 'parameter_invalid', 'to', 'http(s) URL'],
    [{ type: 'payment.captured', colour: 'red' }, 400, 'parameter_unknown', 'colour', 'not a field'],
    [
      { type: 'payment.captured', payment_id: 'pay_missing' },
      404,
      'resource_missing',
      'payment_id',
      'no payment or transaction pay_missing',
    ],
    [{ type: 'payment.captured', merchant: 'mer_nobody' }, 404, 'resource_missing', 'merchant', 'no merchant mer_nobody'],
  ])('%j is a %i %s on %s', async (body, status, code, param, message) => {
    const res = await trigger(body);
    expect(res.status, res.text).toBe(status);
    expect(res.json.error).toMatchObject({ code, param });
    expect(res.json.error.message).toContain(message);
  });

  it('merchant picks whose objects a trigger creates', async () => {
    const res = await trigger({ type: 'payment.authorized', merchant: 'mer_other' });
    expect(res.status, res.text).toBe(201);
    expect(res.json.event.merchant_id).toBe('mer_other');
    // Another merchant's payment is not visible with the seeded key.
    expect((await sb.request('GET', `/v1/payments/${res.json.related.payment_id}`, undefined, AUTH)).status).toBe(404);
  });
});
