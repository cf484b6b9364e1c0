// POST /_sandbox/events/trigger with "set": chosen fields go into the request that makes the
// event's object (the event carries them), are judged by the API's own schema (its 400 naming the
// field as set.<field>), and with payment_id only what the real operation takes may be set (400 naming the rest).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestSandbox, type TestSandbox } from '../helpers/test-sandbox.js';
import { AUTH } from '../helpers/payments-api.js';

let sb: TestSandbox;
beforeEach(() => {
  sb = createTestSandbox();
});
afterEach(() => sb.close());

const trigger = (body: Record<string, unknown>) => sb.request('POST', '/_sandbox/events/trigger', body);
const eventCount = () => sb.db.prepare('SELECT COUNT(*) FROM events').pluck().get() as number;

describe('trigger set: applied', () => {
  it('a new payment is made with the fields, and the event (and the API) carry them', async () => {
    const res = await trigger({
      type: 'payment.captured',
      set: { amount: 1500, currency: 'USD', 'metadata.order_id': 'ord_42', 'customer.email': 'jane@example.com', reference: 'order-42' },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.json.event.data).toMatchObject({
      amount: 1500,
      currency: 'USD',
      reference: 'order-42',
      metadata: { sandbox_trigger: 'payment.captured', order_id: 'ord_42' },
    });
    const payment = (await sb.request('GET', `/v1/payments/${res.json.related.payment_id}`, undefined, AUTH)).json;
    expect(payment).toMatchObject({ amount: 1500, currency: 'USD', customer: { email: 'jane@example.com' } });
  });

  it('with payment_id, a capture of part of it and a refund of part of it', async () => {
    const authorized = await trigger({ type: 'payment.authorized' });
    const paymentId = authorized.json.related.payment_id;
    const captured = await trigger({ type: 'payment.captured', payment_id: paymentId, set: { amount: 700 } });
    expect(captured.status, captured.text).toBe(201);
    expect(captured.json.event.data).toMatchObject({ amount: 2000, amount_captured: 700 });
    const refunded = await trigger({ type: 'refund.succeeded', payment_id: paymentId, set: { amount: 300, reason: 'duplicate' } });
    expect(refunded.status, refunded.text).toBe(201);
    expect(refunded.json.event.data).toMatchObject({ amount: 300, reason: 'duplicate', payment_status: 'partially_refunded' });
  });

  it('a chargeback and a checkout session take their own fields', async () => {
    const lost = await trigger({ type: 'chargeback.lost', set: { amount: 500, reason: 'duplicate' } });
    expect(lost.json.event.data).toMatchObject({ amount: 500, reason: 'duplicate', status: 'lost' });
    const session = await trigger({ type: 'checkout.session.expired', set: { amount: 999, reference: 'cart-9' } });
    expect(session.json.event.data).toMatchObject({ amount: 999, reference: 'cart-9', status: 'expired' });
  });
});

describe('trigger set: validated by the API', () => {
  it.each([
    [{ amount: -5 }, 'set.amount', /amount is invalid: expected the amount to charge/],
    [{ 'metadata.order_id': 42 }, 'set.metadata.order_id', /metadata\.order_id must be a string/],
    [{ 'customer.phone': '+31' }, 'set.customer.phone', /phone is not a field/],
    [{ currency: 'euro' }, 'set.currency', /currency must be an ISO 4217 code/],
  ])("%j: the API's own 400, naming the field as %s, and nothing is made", async (set, param, message) => {
    const before = eventCount();
    const res = await trigger({ type: 'payment.captured', set });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ param });
    expect(res.json.error.message).toMatch(message);
    expect(eventCount()).toBe(before);
  });

  it.each([
    [{ amount: -5 }, 'set.amount', /^amount is invalid: expected the disputed amount/],
    [{ amount: 'ten' }, 'set.amount', /^amount is invalid: .*got "ten"/],
    [{ reason: 'because' }, 'set.reason', /^reason is invalid: expected one of fraudulent, /],
  ])("chargeback.lost with %j: the chargeback API's own 400 naming %s, and nothing is made", async (set, param, message) => {
    const before = eventCount();
    const res = await trigger({ type: 'chargeback.lost', set });
    expect(res.status, res.text).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'parameter_invalid', param });
    expect(res.json.error.message).toMatch(message);
    expect(eventCount()).toBe(before);
    expect(sb.db.prepare('SELECT COUNT(*) FROM chargebacks').pluck().get()).toBe(0);
  });

  it('a refund reason the refunds API does not take is its 400', async () => {
    const res = await trigger({ type: 'refund.succeeded', set: { reason: 'because' } });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ param: 'set.reason' });
  });

  it('a field the event does not take is a 400 listing what it takes', async () => {
    const res = await trigger({ type: 'payment.captured', set: { token: 'tok_visa' } });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'parameter_unknown', param: 'set.token' });
    expect(res.json.error.message).toContain('amount, currency, reference, description, metadata.*, customer.*');
    const none = await trigger({ type: 'settlement.created', set: { amount: 1 } });
    expect(none.json.error).toMatchObject({ param: 'set.amount', message: 'settlement.created takes no fields; remove amount from set' });
  });

  it.each([
    ['amout', 'did you mean amount? the payment takes amount, currency'],
    ['metdata.order_id', 'did you mean metadata.order_id? the payment takes'],
    ['metadata', 'did you mean metadata.<key>? the payment takes'],
  ])('a mistyped field (%s) is a 400 that says which field was meant', async (path, hint) => {
    const res = await trigger({ type: 'payment.captured', set: { [path]: 1500 } });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'parameter_unknown', param: `set.${path}` });
    expect(res.json.error.message).toContain(`${path} is not a field trigger sets for payment.captured; ${hint}`);
  });

  it('set must be an object of fields', async () => {
    const res = await trigger({ type: 'payment.captured', set: 'amount=1500' });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ param: 'set' });
  });
});

describe('trigger set: refused on an existing object', () => {
  it('a field that cannot change on the payment given is a 400 naming it, and nothing changes', async () => {
    const captured = await trigger({ type: 'payment.authorized' });
    const paymentId = captured.json.related.payment_id;
    const before = eventCount();
    const res = await trigger({ type: 'payment.canceled', payment_id: paymentId, set: { 'metadata.order_id': 'x' } });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'parameter_invalid', param: 'set.metadata.order_id' });
    expect(res.json.error.message).toContain(`metadata.order_id cannot change on payment ${paymentId}, which exists already`);
    expect(eventCount()).toBe(before);
    expect((await sb.request('GET', `/v1/payments/${paymentId}`, undefined, AUTH)).json.status).toBe('authorized');
  });

  it("payment.captured with payment_id: currency is a 400 naming set.currency (only a partial capture's amount is taken)", async () => {
    const authorized = await trigger({ type: 'payment.authorized' });
    const paymentId = authorized.json.related.payment_id;
    const before = eventCount();
    const res = await trigger({ type: 'payment.captured', payment_id: paymentId, set: { currency: 'USD' } });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({
      code: 'parameter_invalid',
      param: 'set.currency',
      message: `currency cannot change on payment ${paymentId}, which exists already; payment.captured with payment_id takes amount. Leave out payment_id to make a new payment with it`,
    });
    expect(eventCount()).toBe(before);
    expect((await sb.request('GET', `/v1/payments/${paymentId}`, undefined, AUTH)).json).toMatchObject({
      status: 'authorized',
      currency: 'EUR',
    });
  });

  it('an open chargeback is decided as it is', async () => {
    const opened = await trigger({ type: 'chargeback.created' });
    const res = await trigger({ type: 'chargeback.won', payment_id: opened.json.related.payment_id, set: { amount: 100 } });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ param: 'set.amount' });
    expect(res.json.error.message).toContain(`cannot change on chargeback ${opened.json.related.chargeback_id}`);
  });
});

describe('trigger set: a metadata key "__proto__"', () => {
  it('is a 400 naming set.metadata.__proto__, not dropped without a word, and nothing is made', async () => {
    const before = eventCount();
    const res = await trigger({ type: 'payment.captured', set: { 'metadata.__proto__': 'yes', 'metadata.order_id': 'ord_42' } });
    expect(res.status, res.text).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'parameter_invalid', param: 'set.metadata.__proto__' });
    expect(res.json.error.message).toContain('"__proto__"');
    expect(eventCount()).toBe(before);
  });
});

describe('trigger set: a dotted path through a prototype key', () => {
  // What a polluted prototype shows: a key added or replaced that every object in the process inherits.
  const PROTOTYPES: object[] = [Object.prototype, Function.prototype, Array.prototype];
  let saved: PropertyDescriptorMap[];
  const changed = () =>
    PROTOTYPES.flatMap((p, i) =>
      Reflect.ownKeys(p)
        .filter((key) => !Object.is(Object.getOwnPropertyDescriptor(p, key)?.value, saved[i]![key as string]?.value))
        .map(String),
    );
  beforeEach(() => {
    saved = PROTOTYPES.map((p) => Object.getOwnPropertyDescriptors(p));
  });
  afterEach(() => {
    // Undo what a broken build wrote, so one failure does not fail every test after it.
    PROTOTYPES.forEach((p, i) => {
      for (const key of Reflect.ownKeys(p)) if (!(key in saved[i]!)) delete (p as Record<string, unknown>)[key as string];
      for (const [key, descriptor] of Object.entries(saved[i]!)) Object.defineProperty(p, key, descriptor);
    });
  });

  it.each([
    'metadata.__proto__.polluted',
    'customer.__proto__.polluted',
    'metadata.constructor.prototype.polluted',
    'customer.constructor.prototype.polluted',
    'metadata.__proto__.constructor.prototype.polluted',
    '__proto__.polluted',
    'constructor.prototype.polluted',
  ])('%s: answered (201 or 4xx), and no object in the process gains the key', async (path) => {
    const res = await trigger({ type: 'payment.captured', set: { [path]: 'yes' } });
    expect(res.status === 201 || (res.status >= 400 && res.status < 500), res.text).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(changed()).toEqual([]);
    // The next request in the process is validated as before.
    const next = await trigger({ type: 'payment.captured', set: { amount: 1500, 'metadata.order_id': 'ord_42' } });
    expect(next.status, next.text).toBe(201);
    expect(next.json.event.data.metadata).toEqual({ sandbox_trigger: 'payment.captured', order_id: 'ord_42' });
  });
});
