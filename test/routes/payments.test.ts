// /v1/payments: bearer auth, create (spec §4.5 example, cards, tokens, declines, 3-D Secure through
// the authentication page), validation, show, list with filters and pagination, capture, cancel.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestSandbox, type TestSandbox } from '../helpers/test-sandbox.js';
import { TEST_CARDS } from '../../src/domain/outcomes.js';
import { AUTH, advance, createPayment, deliveryUrls, eventTypes, lastEventData, paymentBody, submitOtp } from '../helpers/payments-api.js';

let sb: TestSandbox;
beforeEach(() => {
  sb = createTestSandbox();
});
afterEach(() => sb.close());

describe('bearer authentication on /v1/', () => {
  const routes: Array<[string, string]> = [
    ['POST', '/v1/payments'],
    ['GET', '/v1/payments'],
    ['GET', '/v1/payments/pay_x'],
    ['POST', '/v1/payments/pay_x/capture'],
    ['POST', '/v1/payments/pay_x/cancel'],
    ['POST', '/v1/refunds'],
    ['GET', '/v1/refunds'],
    ['GET', '/v1/refunds/rfd_x'],
    ['POST', '/v1/tokens'],
    ['GET', '/v1/tokens/tok_visa'],
  ];

  it.each(routes)('%s %s without a key is 401 authentication_required', async (method, path) => {
    const res = await sb.request(method, path, method === 'POST' ? paymentBody() : undefined);
    expect(res.status).toBe(401);
    expect(res.json.error.code).toBe('authentication_required');
    expect(res.json.error.message).toContain('Authorization: Bearer');
    expect(res.headers.get('www-authenticate')).toContain('Bearer');
  });

  it.each(['Basic c2tfdGVzdF9zYW5kYm94Og==', 'Bearer', 'Bearer sk_test_sandbox extra', 'sk_test_sandbox', 'Bearer pk_test_1001'])(
    'a malformed header %j is 401 authentication_required',
    async (header) => {
      const res = await sb.request('GET', '/v1/payments', undefined, { authorization: header });
      expect(res.status).toBe(401);
      expect(res.json.error.code).toBe('authentication_required');
    },
  );

  it('an unknown key is 401 invalid_credentials and is not echoed', async () => {
    const res = await sb.request('GET', '/v1/payments', undefined, { authorization: 'Bearer sk_test_nobody_has_this' });
    expect(res.status).toBe(401);
    expect(res.json.error.code).toBe('invalid_credentials');
    expect(res.text).not.toContain('sk_test_nobody_has_this');
  });

  it('a live key is 401 live_key_rejected: live keys are never accepted by the sandbox', async () => {
    const res = await sb.request('POST', '/v1/payments', paymentBody(), { authorization: 'Bearer sk_live_4eC39HqLyjWDarjtT1zdp7dc' });
    expect(res.status).toBe(401);
    expect(res.json.error.code).toBe('live_key_rejected');
    expect(res.json.error.message).toContain('live keys are never accepted by the sandbox');
    expect(sb.db.prepare('SELECT COUNT(*) FROM payments').pluck().get()).toBe(0);
  });

  it('the scheme is case-insensitive, as HTTP says', async () => {
    const res = await sb.request('GET', '/v1/payments', undefined, { authorization: 'bearer sk_test_sandbox' });
    expect(res.status).toBe(200);
  });
});

describe('POST /v1/payments', () => {
  it('answers the spec §4.5 example with authorized and best_available, then captures in the same request', async () => {
    const res = await sb.request('POST', '/v1/payments', paymentBody({ reference: 'ord_1' }), AUTH);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      object: 'payment',
      status: 'authorized',
      acquirer: 'best_available',
      amount: 1050,
      currency: 'EUR',
      method: 'card',
      reference: 'ord_1',
      capture: true,
      card: { brand: 'VISA', last4: '4242' },
      next_action: null,
      created_at: '2026-01-15T12:00:00.000Z',
    });
    expect(res.json.id).toMatch(/^pay_[A-Za-z0-9]{16}$/);
    expect(eventTypes(sb, res.json.id)).toEqual(['payment.authorized', 'payment.captured']);
    expect(lastEventData(sb, res.json.id, 'payment.authorized')).toMatchObject({
      payment_id: res.json.id,
      status: 'authorized',
      amount: 1050,
      currency: 'EUR',
      reference: 'ord_1',
    });
    expect(deliveryUrls(sb, res.json.id, 'payment.captured')).toEqual(['https://shop.example/webhooks']);
    const shown = await sb.request('GET', `/v1/payments/${res.json.id}`, undefined, AUTH);
    expect(shown.json).toMatchObject({ status: 'captured', amount_captured: 1050, amount_refunded: 0 });
  });

  it('delivers the spec §6.2 envelope to webhook_url', async () => {
    const payment = await createPayment(sb, { capture: false });
    const body = sb.db
      .prepare(
        "SELECT d.body FROM deliveries d JOIN events e ON e.id = d.event_id WHERE e.resource_id = ? AND e.type = 'payment.authorized'",
      )
      .pluck()
      .get(payment.id) as string;
    const envelope = JSON.parse(body);
    expect(Object.keys(envelope).sort()).toEqual(['created_at', 'data', 'event', 'id']);
    expect(envelope).toMatchObject({
      event: 'payment.authorized',
      data: { payment_id: payment.id, status: 'authorized', amount: 1050, currency: 'EUR' },
    });
  });

  it('with capture false stays authorized and publishes only payment.authorized', async () => {
    const payment = await createPayment(sb, { capture: false });
    expect(payment.status).toBe('authorized');
    const shown = await sb.request('GET', `/v1/payments/${payment.id}`, undefined, AUTH);
    expect(shown.json).toMatchObject({ status: 'authorized', amount_captured: 0, capture: false });
    expect(eventTypes(sb, payment.id)).toEqual(['payment.authorized']);
  });

  it('without webhook_url records the events but queues no direct delivery', async () => {
    const payment = await createPayment(sb, { webhook_url: undefined });
    expect(eventTypes(sb, payment.id)).toEqual(['payment.authorized', 'payment.captured']);
    expect(deliveryUrls(sb, payment.id, 'payment.authorized')).toEqual([]);
  });

  it('takes routing direct (acquirer sandbox_acquirer), lower-case currency, no method, and only amount and currency', async () => {
    expect((await createPayment(sb, { routing: 'direct' })).acquirer).toBe('sandbox_acquirer');
    expect((await createPayment(sb, { currency: 'usd' })).currency).toBe('USD');
    const minimal = await sb.request('POST', '/v1/payments', { amount: 500, currency: 'JPY' }, AUTH);
    expect(minimal.status).toBe(200);
    expect(minimal.json).toMatchObject({
      status: 'authorized',
      method: 'card',
      routing: 'smart',
      acquirer: 'best_available',
      amount: 500,
      currency: 'JPY',
      customer: {},
      metadata: {},
    });
  });

  it('keeps card details but never the number', async () => {
    const res = await sb.request(
      'POST',
      '/v1/payments',
      paymentBody({ card: { number: '4242 4242 4242 4242', exp_month: 12, exp_year: 2030, cvc: '123' } }),
      AUTH,
    );
    expect(res.json.card).toEqual({ brand: 'VISA', last4: '4242', exp_month: 12, exp_year: 2030 });
    expect(res.text).not.toContain('4242424242424242');
    expect(res.text).not.toContain('"123"');
  });

  it('keeps reference, description, metadata and customer', async () => {
    const payment = await createPayment(sb, {
      reference: 'ord_9',
      description: 'Blue mug',
      metadata: { order_id: '6735', channel: 'web' },
      customer: { country: 'DE', email: 'jane@example.com', name: 'Jane' },
    });
    expect(payment).toMatchObject({
      reference: 'ord_9',
      description: 'Blue mug',
      metadata: { order_id: '6735', channel: 'web' },
      customer: { country: 'DE', email: 'jane@example.com', name: 'Jane' },
    });
    expect(lastEventData(sb, payment.id, 'payment.captured').metadata).toEqual({ order_id: '6735', channel: 'web' });
  });

  const declines = TEST_CARDS.filter((card) => card.script.authorisation.result === 'decline' && !card.script.challenge);
  it.each(declines.map((card) => [card.token, card.number, (card.script.authorisation as { code: string }).code]))(
    '%s (card %s) is declined %s at once',
    async (token, number, code) => {
      for (const how of [{ token }, { card: { number, exp_month: 12, exp_year: 2030, cvc: '123' } }]) {
        const payment = await createPayment(sb, how);
        expect(payment).toMatchObject({ status: 'declined', decline_code: code, next_action: null, amount_captured: 0 });
        expect(payment.failure_message).toContain(code);
        expect(eventTypes(sb, payment.id)).toEqual(['payment.declined']);
        expect(lastEventData(sb, payment.id, 'payment.declined')).toMatchObject({ status: 'declined', decline_code: code });
      }
    },
  );

  it('the chargeback card is captured and hands a chargeback.open job (family v1) to the chargebacks service 30 s later', async () => {
    const payment = await createPayment(sb, { token: 'tok_chargeback' });
    const shown = await sb.request('GET', `/v1/payments/${payment.id}`, undefined, AUTH);
    expect(shown.json.status).toBe('captured');
    const job = sb.db
      .prepare("SELECT due_at AS dueAt, payload FROM jobs WHERE kind = 'chargeback.open' AND subject_id = ?")
      .get(payment.id) as { dueAt: number; payload: string };
    expect(job.dueAt).toBe(sb.clock.now() + 30_000);
    expect(JSON.parse(job.payload)).toEqual({ family: 'v1' });
  });

  it('the card that never answers stays processing, publishes nothing, and can be canceled', async () => {
    const payment = await createPayment(sb, { token: 'tok_no_answer' });
    expect(payment.status).toBe('processing');
    advance(sb, 60 * 60_000);
    expect(eventTypes(sb, payment.id)).toEqual([]);
    const canceled = await sb.request('POST', `/v1/payments/${payment.id}/cancel`, undefined, AUTH);
    expect(canceled.json.status).toBe('canceled');
    expect(eventTypes(sb, payment.id)).toEqual(['payment.canceled']);
  });
});

describe('3-D Secure on the shared authentication page', () => {
  it('requires_action with next_action, then OTP 123456 authorizes, captures and returns to return_url', async () => {
    const payment = await createPayment(sb, { token: 'tok_threeds_required', reference: 'ord_3ds' });
    expect(payment.status).toBe('requires_action');
    expect(payment.next_action).toEqual({
      type: 'redirect',
      url: expect.stringMatching(/^http:\/\/sandbox\.test\/authenticate\/[A-Za-z0-9_-]{43}$/),
    });
    expect(eventTypes(sb, payment.id)).toEqual(['payment.requires_action']);
    const page = await sb.request('GET', new URL(payment.next_action.url).pathname);
    expect(page.text).toContain('ord_3ds');
    expect(page.text).toContain('€10.50');

    const done = await submitOtp(sb, payment.next_action.url, '123456');
    expect(done.status).toBe(303);
    const back = new URL(done.headers.get('location')!);
    expect(back.origin + back.pathname).toBe('https://shop.example/return');
    expect(Object.fromEntries(back.searchParams)).toEqual({ payment_id: payment.id, status: 'captured' });
    const shown = await sb.request('GET', `/v1/payments/${payment.id}`, undefined, AUTH);
    expect(shown.json).toMatchObject({ status: 'captured', next_action: null, amount_captured: 1050 });
    expect(eventTypes(sb, payment.id)).toEqual(['payment.requires_action', 'payment.authorized', 'payment.captured']);
  });

  it.each([
    ['approve', 'captured', 'passed', ['payment.requires_action', 'payment.authorized', 'payment.captured']],
    ['decline', 'declined', 'failed', ['payment.requires_action', 'payment.declined']],
  ])(
    'POST /_sandbox/transactions/{pay_id}/authenticate %s completes a /v1/ payment without a browser',
    async (outcome, status, state, events) => {
      const payment = await createPayment(sb, { token: 'tok_threeds_required' });
      const res = await sb.request('POST', `/_sandbox/transactions/${payment.id}/authenticate`, { outcome });
      expect(res.status, res.text).toBe(200);
      expect(res.json).toMatchObject({ id: payment.id, object: 'payment', status, authentication: state, next_action: null });
      const back = new URL(res.json.redirect_url);
      expect(Object.fromEntries(back.searchParams)).toEqual({ payment_id: payment.id, status });
      expect((await sb.request('GET', `/v1/payments/${payment.id}`, undefined, AUTH)).json.status).toBe(status);
      expect(eventTypes(sb, payment.id)).toEqual(events);
      expect(deliveryUrls(sb, payment.id, events[events.length - 1]!)).toEqual(['https://shop.example/webhooks']);
    },
  );

  it('POST /_sandbox/transactions/{id}/authenticate answers 404 naming an unknown id, and 409 for a payment with nothing to authenticate', async () => {
    const missing = await sb.request('POST', '/_sandbox/transactions/pay_nope/authenticate', { outcome: 'approve' });
    expect(missing.status).toBe(404);
    expect(missing.json.error).toMatchObject({ code: 'resource_missing', param: 'transID' });
    expect(missing.json.error.message).toContain('pay_nope');
    const frictionless = await createPayment(sb, { token: 'tok_visa' });
    const over = await sb.request('POST', `/_sandbox/transactions/${frictionless.id}/authenticate`, { outcome: 'approve' });
    expect(over.status).toBe(409);
    expect(over.json.error.message).toBe(`payment ${frictionless.id} has no authentication to complete (its status is captured)`);
  });

  it('any Luhn-valid card outside the table is challenged too', async () => {
    const payment = await createPayment(sb, {
      card: { number: '4111111111111111', exp_month: 1, exp_year: 31, cvc: '999' },
      capture: false,
    });
    expect(payment.status).toBe('requires_action');
    expect(payment.card.exp_year).toBe(2031);
    await submitOtp(sb, payment.next_action.url, '123456');
    expect((await sb.request('GET', `/v1/payments/${payment.id}`, undefined, AUTH)).json.status).toBe('authorized');
  });

  it('OTP 000000 declines with authentication_failed', async () => {
    const payment = await createPayment(sb, { token: 'tok_threeds_required' });
    const done = await submitOtp(sb, payment.next_action.url, '000000');
    expect(new URL(done.headers.get('location')!).searchParams.get('status')).toBe('declined');
    const shown = await sb.request('GET', `/v1/payments/${payment.id}`, undefined, AUTH);
    expect(shown.json).toMatchObject({ status: 'declined', decline_code: 'authentication_failed' });
    expect(eventTypes(sb, payment.id)).toEqual(['payment.requires_action', 'payment.declined']);
  });

  it('tok_threeds_then_declined passes the challenge and is declined card_declined', async () => {
    const payment = await createPayment(sb, { token: 'tok_threeds_then_declined' });
    await submitOtp(sb, payment.next_action.url, '123456');
    expect((await sb.request('GET', `/v1/payments/${payment.id}`, undefined, AUTH)).json).toMatchObject({
      status: 'declined',
      decline_code: 'card_declined',
    });
  });

  it('Cancel on the page cancels the payment', async () => {
    const payment = await createPayment(sb, { token: 'tok_threeds_required' });
    const done = await submitOtp(sb, payment.next_action.url, '', 'cancel');
    expect(new URL(done.headers.get('location')!).searchParams.get('status')).toBe('canceled');
    expect(eventTypes(sb, payment.id)).toEqual(['payment.requires_action', 'payment.canceled']);
  });

  it('expires with its challenge after 15 minutes: payment.expired', async () => {
    const payment = await createPayment(sb, { token: 'tok_threeds_required' });
    advance(sb, 15 * 60_000 - 1000);
    expect((await sb.request('GET', `/v1/payments/${payment.id}`, undefined, AUTH)).json.status).toBe('requires_action');
    advance(sb, 1000);
    expect((await sb.request('GET', `/v1/payments/${payment.id}`, undefined, AUTH)).json).toMatchObject({
      status: 'expired',
      next_action: null,
    });
    expect(eventTypes(sb, payment.id)).toEqual(['payment.requires_action', 'payment.expired']);
    const page = await sb.request('GET', new URL(payment.next_action.url).pathname);
    expect(page.text).toContain('expired');
  });

  it('needs return_url when the card is challenged (400 naming it), and nothing is created', async () => {
    const res = await sb.request('POST', '/v1/payments', paymentBody({ token: 'tok_threeds_required', return_url: undefined }), AUTH);
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'parameter_missing', param: 'return_url' });
    expect(sb.db.prepare('SELECT COUNT(*) FROM payments').pluck().get()).toBe(0);
  });
});

describe('POST /v1/payments validation', () => {
  const card = (fields: Record<string, unknown>) => ({
    card: { number: '4242424242424242', exp_month: 12, exp_year: 2030, cvc: '123', ...fields },
  });
  const cases: Array<[string, Record<string, unknown>, string, string]> = [
    ['amount missing', { amount: undefined }, 'parameter_missing', 'amount'],
    ['amount as text', { amount: '10.50' }, 'parameter_invalid', 'amount'],
    ['amount zero', { amount: 0 }, 'parameter_invalid', 'amount'],
    ['amount negative', { amount: -5 }, 'parameter_invalid', 'amount'],
    ['amount with decimals', { amount: 10.5 }, 'parameter_invalid', 'amount'],
    ['amount too large', { amount: 100_000_000_000 }, 'parameter_invalid', 'amount'],
    ['currency missing', { currency: undefined }, 'parameter_missing', 'currency'],
    ['currency unknown', { currency: 'XYZ' }, 'parameter_invalid', 'currency'],
    ['currency too long', { currency: 'EURO' }, 'parameter_invalid', 'currency'],
    ['method ideal', { method: 'ideal' }, 'parameter_invalid', 'method'],
    ['routing unknown', { routing: 'cheapest' }, 'parameter_invalid', 'routing'],
    ['customer not an object', { customer: 'NL' }, 'parameter_invalid', 'customer'],
    ['customer.country lower case', { customer: { country: 'nl' } }, 'parameter_invalid', 'customer.country'],
    ['customer.country three letters', { customer: { country: 'NLD' } }, 'parameter_invalid', 'customer.country'],
    ['customer.email invalid', { customer: { country: 'NL', email: 'jane' } }, 'parameter_invalid', 'customer.email'],
    ['customer unknown field', { customer: { country: 'NL', zip: '1011' } }, 'parameter_unknown', 'customer.zip'],
    ['card.number fails Luhn', card({ number: '4242424242424241' }), 'parameter_invalid', 'card.number'],
    ['card.number too short', card({ number: '4242' }), 'parameter_invalid', 'card.number'],
    ['card.number as a number', card({ number: 4242424242424242 }), 'parameter_invalid', 'card.number'],
    ['card.number missing', card({ number: undefined }), 'parameter_missing', 'card.number'],
    ['card.exp_month 13', card({ exp_month: 13 }), 'parameter_invalid', 'card.exp_month'],
    ['card.exp_year 1999', card({ exp_year: 1999 }), 'parameter_invalid', 'card.exp_year'],
    ['card expired', card({ exp_month: 12, exp_year: 2025 }), 'parameter_invalid', 'card.exp_year'],
    ['card.cvc two digits', card({ cvc: '12' }), 'parameter_invalid', 'card.cvc'],
    ['card.cvc missing', card({ cvc: undefined }), 'parameter_missing', 'card.cvc'],
    ['card unknown field', card({ holder: 'Jane' }), 'parameter_unknown', 'card.holder'],
    ['card and token', { ...card({}), token: 'tok_visa' }, 'parameter_invalid', 'token'],
    ['token malformed', { token: 'visa' }, 'parameter_invalid', 'token'],
    ['reference empty', { reference: '' }, 'parameter_missing', 'reference'],
    ['reference too long', { reference: 'r'.repeat(65) }, 'parameter_invalid', 'reference'],
    ['description too long', { description: 'd'.repeat(1001) }, 'parameter_invalid', 'description'],
    ['metadata not an object', { metadata: ['a'] }, 'parameter_invalid', 'metadata'],
    ['metadata value not text', { metadata: { order_id: 6735 } }, 'parameter_invalid', 'metadata.order_id'],
    ['metadata value too long', { metadata: { note: 'n'.repeat(501) } }, 'parameter_invalid', 'metadata.note'],
    ['metadata key too long', { metadata: { ['k'.repeat(41)]: 'v' } }, 'parameter_invalid', `metadata.${'k'.repeat(41)}`],
    [
      'metadata too many keys',
      { metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])) },
      'parameter_invalid',
      'metadata',
    ],
    ['capture as text', { capture: 'yes' }, 'parameter_invalid', 'capture'],
    ['return_url javascript:', { return_url: 'javascript:alert(1)' }, 'parameter_invalid', 'return_url'],
    ['webhook_url relative', { webhook_url: '/hooks' }, 'parameter_invalid', 'webhook_url'],
    ['unknown field', { amout: 5 }, 'parameter_unknown', 'amout'],
  ];

  it.each(cases)('%s: 400 %s on %s', async (_name, overrides, code, param) => {
    const res = await sb.request('POST', '/v1/payments', paymentBody(overrides), AUTH);
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ type: 'invalid_request_error', code, param });
    expect(res.json.error.message.length).toBeGreaterThan(20);
    expect(res.json.error.request_id).toMatch(/^req_/);
    expect(sb.db.prepare('SELECT COUNT(*) FROM payments').pluck().get()).toBe(0);
  });

  it.each([
    ['a text', '"x"'],
    ['an object', '{"admin":"yes"}'],
  ])('a metadata key "__proto__" holding %s is a 400 naming it, not dropped without a word', async (_what, value) => {
    const body = JSON.stringify(paymentBody({ metadata: { order_id: '6735', PROTO: 'x' } })).replace('"PROTO":"x"', `"__proto__":${value}`);
    expect(body).toContain('"__proto__"');
    const res = await sb.request('POST', '/v1/payments', body, { ...AUTH, 'content-type': 'application/json' });
    expect(res.status, res.text).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'parameter_invalid', param: 'metadata.__proto__' });
    expect(res.json.error.message).toContain('"__proto__"');
    expect(sb.db.prepare('SELECT COUNT(*) FROM payments').pluck().get()).toBe(0);
  });

  it('never echoes a card number or cvc in an error', async () => {
    const res = await sb.request('POST', '/v1/payments', paymentBody(card({ number: '4242424242424241', cvc: '987' })), AUTH);
    expect(res.text).not.toContain('4242424242424241');
    expect(res.text).not.toContain('987');
  });

  it('points iDEAL and SEPA at hosted checkout', async () => {
    const res = await sb.request('POST', '/v1/payments', paymentBody({ method: 'sepa' }), AUTH);
    expect(res.json.error.message).toContain('POST /v1/checkout/sessions');
  });

  it('an unknown token is 404 on token', async () => {
    const res = await sb.request('POST', '/v1/payments', paymentBody({ token: 'tok_doesnotexist' }), AUTH);
    expect(res.status).toBe(404);
    expect(res.json.error).toMatchObject({ code: 'resource_missing', param: 'token' });
  });

  it.each([
    ['not JSON', '{"amount": 10', 'application/json', 'invalid_json'],
    ['an array', '[1]', 'application/json', 'invalid_json'],
    ['empty', '', 'application/json', 'invalid_json'],
    ['a form', 'amount=10&currency=EUR', 'application/x-www-form-urlencoded', 'unsupported_content_type'],
  ])('a body that is %s is 400 %s', async (_name, body, type, code) => {
    const res = await sb.request('POST', '/v1/payments', body, { ...AUTH, 'content-type': type });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe(code);
  });
});

describe('GET /v1/payments/{id}', () => {
  it('shows the payment; an unknown id is 404 naming id', async () => {
    const payment = await createPayment(sb);
    const res = await sb.request('GET', `/v1/payments/${payment.id}`, undefined, AUTH);
    expect(res.status).toBe(200);
    expect(res.json.id).toBe(payment.id);
    const missing = await sb.request('GET', '/v1/payments/pay_0000000000000000', undefined, AUTH);
    expect(missing.status).toBe(404);
    expect(missing.json.error).toMatchObject({ code: 'resource_missing', param: 'id' });
  });
});

describe('GET /v1/payments', () => {
  async function seed(count: number, overrides: Record<string, unknown> = {}) {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      ids.push((await createPayment(sb, overrides)).id);
      sb.clock.advance(1000);
    }
    return ids;
  }

  it('pages newest first: limit 10 by default, starting_after continues, has_more ends it', async () => {
    const ids = await seed(12);
    const first = await sb.request('GET', '/v1/payments', undefined, AUTH);
    expect(first.json.object).toBe('list');
    expect(first.json.data.map((p: { id: string }) => p.id)).toEqual(ids.slice(2).reverse());
    expect(first.json.has_more).toBe(true);
    const second = await sb.request('GET', `/v1/payments?starting_after=${first.json.data[9].id}`, undefined, AUTH);
    expect(second.json.data.map((p: { id: string }) => p.id)).toEqual(ids.slice(0, 2).reverse());
    expect(second.json.has_more).toBe(false);
    const small = await sb.request('GET', '/v1/payments?limit=5', undefined, AUTH);
    expect(small.json.data).toHaveLength(5);
  });

  it('pages payments created in the same millisecond without repeating or skipping', async () => {
    for (let i = 0; i < 7; i++) await createPayment(sb);
    const seen: string[] = [];
    let after = '';
    for (;;) {
      const page = await sb.request('GET', `/v1/payments?limit=3${after ? `&starting_after=${after}` : ''}`, undefined, AUTH);
      seen.push(...page.json.data.map((p: { id: string }) => p.id));
      if (!page.json.has_more) break;
      after = seen[seen.length - 1]!;
    }
    expect(seen).toHaveLength(7);
    expect(new Set(seen).size).toBe(7);
  });

  it('filters by status', async () => {
    await seed(2);
    const declined = await seed(2, { token: 'tok_card_declined' });
    const res = await sb.request('GET', '/v1/payments?status=declined', undefined, AUTH);
    expect(res.json.data.map((p: { id: string }) => p.id).sort()).toEqual([...declined].sort());
    expect((await sb.request('GET', '/v1/payments?status=refunded', undefined, AUTH)).json.data).toEqual([]);
  });

  it('filters by created[gte] and created[lte] in unix seconds, both inclusive', async () => {
    const ids = await seed(4);
    const start = Date.UTC(2026, 0, 15, 12, 0, 0) / 1000;
    const res = await sb.request('GET', `/v1/payments?created[gte]=${start + 1}&created[lte]=${start + 2}`, undefined, AUTH);
    expect(res.json.data.map((p: { id: string }) => p.id)).toEqual([ids[2], ids[1]]);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=ten', 'limit'],
    ['status=paid', 'status'],
    ['created[gte]=yesterday', 'created[gte]'],
    ['created[lte]=-1', 'created[lte]'],
  ])('%s is 400 parameter_invalid naming %s', async (query, param) => {
    const res = await sb.request('GET', `/v1/payments?${query}`, undefined, AUTH);
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'parameter_invalid', param });
  });

  it('an unknown query parameter is 400 parameter_unknown; an unknown cursor is 404 on starting_after', async () => {
    const unknown = await sb.request('GET', '/v1/payments?sort=asc', undefined, AUTH);
    expect(unknown.status).toBe(400);
    expect(unknown.json.error).toMatchObject({ code: 'parameter_unknown', param: 'sort' });
    const cursor = await sb.request('GET', '/v1/payments?starting_after=pay_0000000000000000', undefined, AUTH);
    expect(cursor.status).toBe(404);
    expect(cursor.json.error).toMatchObject({ code: 'resource_missing', param: 'starting_after' });
  });
});

describe('POST /v1/payments/{id}/capture', () => {
  it('captures all of an authorized payment with no body', async () => {
    const payment = await createPayment(sb, { capture: false });
    const res = await sb.request('POST', `/v1/payments/${payment.id}/capture`, undefined, AUTH);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ status: 'captured', amount_captured: 1050 });
    expect(eventTypes(sb, payment.id)).toEqual(['payment.authorized', 'payment.captured']);
    expect(lastEventData(sb, payment.id, 'payment.captured')).toMatchObject({ status: 'captured', amount_captured: 1050 });
  });

  it('captures part; the rest is released and cannot be captured later', async () => {
    const payment = await createPayment(sb, { capture: false });
    const res = await sb.request('POST', `/v1/payments/${payment.id}/capture`, { amount: 600 }, AUTH);
    expect(res.json).toMatchObject({ status: 'captured', amount: 1050, amount_captured: 600 });
    const again = await sb.request('POST', `/v1/payments/${payment.id}/capture`, { amount: 450 }, AUTH);
    expect(again.status).toBe(409);
    expect(again.json.error.message).toBe(`payment ${payment.id} is captured; only a payment that is authorized can be captured`);
  });

  it('more than authorized is 422 amount_too_large saying how much', async () => {
    const payment = await createPayment(sb, { capture: false });
    const res = await sb.request('POST', `/v1/payments/${payment.id}/capture`, { amount: 1051 }, AUTH);
    expect(res.status).toBe(422);
    expect(res.json.error).toMatchObject({ code: 'amount_too_large', param: 'amount' });
    expect(res.json.error.message).toContain('at most 1050');
    expect((await sb.request('GET', `/v1/payments/${payment.id}`, undefined, AUTH)).json.status).toBe('authorized');
  });

  it.each([
    ['declined', { token: 'tok_card_declined' }],
    ['requires_action', { token: 'tok_threeds_required' }],
    ['captured', {}],
  ])('a %s payment cannot be captured: 409 naming the state', async (state, overrides) => {
    const payment = await createPayment(sb, overrides);
    const res = await sb.request('POST', `/v1/payments/${payment.id}/capture`, undefined, AUTH);
    expect(res.status).toBe(409);
    expect(res.json.error.code).toBe('invalid_state');
    expect(res.json.error.message).toContain(`is ${state};`);
  });

  it.each([
    [{ amount: '600' }, 'parameter_invalid', 'amount'],
    [{ amount: 0 }, 'parameter_invalid', 'amount'],
    [{ amont: 600 }, 'parameter_unknown', 'amont'],
  ])('body %j is 400 %s on %s', async (body, code, param) => {
    const payment = await createPayment(sb, { capture: false });
    const res = await sb.request('POST', `/v1/payments/${payment.id}/capture`, body, AUTH);
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code, param });
  });

  it('an unknown payment is 404', async () => {
    const res = await sb.request('POST', '/v1/payments/pay_0000000000000000/capture', undefined, AUTH);
    expect(res.status).toBe(404);
  });
});

describe('POST /v1/payments/{id}/cancel', () => {
  it('cancels an authorized payment: payment.canceled', async () => {
    const payment = await createPayment(sb, { capture: false });
    const res = await sb.request('POST', `/v1/payments/${payment.id}/cancel`, {}, AUTH);
    expect(res.status).toBe(200);
    expect(res.json.status).toBe('canceled');
    expect(eventTypes(sb, payment.id)).toEqual(['payment.authorized', 'payment.canceled']);
  });

  it('cancels a payment waiting for 3-D Secure and closes its page', async () => {
    const payment = await createPayment(sb, { token: 'tok_threeds_required' });
    const res = await sb.request('POST', `/v1/payments/${payment.id}/cancel`, undefined, AUTH);
    expect(res.json).toMatchObject({ status: 'canceled', next_action: null });
    const page = await sb.request('GET', new URL(payment.next_action.url).pathname);
    expect(page.text).toContain('Payment cancelled');
    expect(eventTypes(sb, payment.id)).toEqual(['payment.requires_action', 'payment.canceled']);
  });

  it('a payment whose challenge ran out is expired, not canceled', async () => {
    const payment = await createPayment(sb, { token: 'tok_threeds_required' });
    sb.clock.advance(16 * 60_000);
    const res = await sb.request('POST', `/v1/payments/${payment.id}/cancel`, undefined, AUTH);
    expect(res.status).toBe(409);
    expect(res.json.error.message).toContain('is expired;');
  });

  it.each([
    ['captured', {}],
    ['declined', { token: 'tok_insufficient_funds' }],
  ])('a %s payment cannot be canceled: 409 naming the state', async (state, overrides) => {
    const payment = await createPayment(sb, overrides);
    const res = await sb.request('POST', `/v1/payments/${payment.id}/cancel`, undefined, AUTH);
    expect(res.status).toBe(409);
    expect(res.json.error.message).toBe(
      `payment ${payment.id} is ${state}; only a payment that is processing or requires_action or authorized can be canceled`,
    );
  });

  it('a body with fields is 400 parameter_unknown', async () => {
    const payment = await createPayment(sb, { capture: false });
    const res = await sb.request('POST', `/v1/payments/${payment.id}/cancel`, { reason: 'x' }, AUTH);
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'parameter_unknown', param: 'reason' });
  });
});
