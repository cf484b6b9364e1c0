// Merchant-initiated charges on a stored token (issue 33): the customer-initiated payment with
// setup_future_usage that stores the card, renewals that are never challenged, declines with the
// advice_code retry logic reads, and the refusals of a charge the card was never stored for.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestSandbox, type TestSandbox } from '../helpers/test-sandbox.js';
import { AUTH, OTHER, createPayment, eventTypes, submitOtp } from '../helpers/payments-api.js';

let sb: TestSandbox;
beforeEach(() => {
  sb = createTestSandbox();
});
afterEach(() => sb.close());

const card = (number: string, overrides: Record<string, unknown> = {}) => ({
  number,
  exp_month: 12,
  exp_year: 2030,
  cvc: '123',
  ...overrides,
});
const pay = (body: Record<string, unknown>, headers = AUTH) =>
  sb.request('POST', '/v1/payments', { amount: 999, currency: 'EUR', ...body }, headers);

/** A token stored for off-session use by a 3-D Secure customer-initiated payment; returns it and that payment. */
async function storedToken(number = '4000000000003220') {
  const first = await pay({ card: card(number), setup_future_usage: 'off_session', return_url: 'https://shop.example/return' });
  expect(first.status, first.text).toBe(200);
  if (first.json.status === 'requires_action') {
    const done = await submitOtp(sb, first.json.next_action.url, '123456');
    expect(done.status).toBe(303);
  }
  return { token: first.json.token as string, first: first.json.id as string };
}

describe('the first, customer-initiated payment', () => {
  it('with card and setup_future_usage saves a token, stored for off-session use once the challenge passes', async () => {
    const first = await pay({ card: card('4000000000003220'), setup_future_usage: 'off_session', return_url: 'https://shop.example/r' });
    expect(first.json).toMatchObject({ status: 'requires_action', initiator: 'customer', setup_future_usage: 'off_session' });
    expect(first.json.token).toMatch(/^tok_/);
    // Not stored yet: the customer has not authenticated.
    expect((await sb.request('GET', `/v1/tokens/${first.json.token}`, undefined, AUTH)).json.off_session_payment).toBeNull();
    await submitOtp(sb, first.json.next_action.url, '123456');
    const token = (await sb.request('GET', `/v1/tokens/${first.json.token}`, undefined, AUTH)).json;
    expect(token).toMatchObject({ off_session_payment: first.json.id, card: { last4: '3220' } });
  });

  it('a declined first payment stores nothing, and a merchant-initiated charge is then refused naming initiator', async () => {
    const first = await pay({ card: card('4000000000009995'), setup_future_usage: 'off_session' });
    expect(first.json.status).toBe('declined');
    const renewal = await pay({ token: first.json.token, initiator: 'merchant' });
    expect(renewal.status).toBe(400);
    expect(renewal.json.error).toMatchObject({ code: 'parameter_invalid', param: 'initiator' });
    expect(renewal.json.error.message).toContain(
      'never had an authorized customer-initiated payment with setup_future_usage "off_session"',
    );
  });

  it('a saved token paid with setup_future_usage is stored by that payment', async () => {
    const saved = (await sb.request('POST', '/v1/tokens', { card: card('4242424242424242') }, AUTH)).json;
    const first = await pay({ token: saved.id, setup_future_usage: 'off_session' });
    expect(first.json).toMatchObject({ status: 'authorized', token: saved.id });
    expect((await sb.request('GET', `/v1/tokens/${saved.id}`, undefined, AUTH)).json.off_session_payment).toBe(first.json.id);
  });
});

describe('merchant-initiated charges', () => {
  it('a token of a 3-D Secure card is charged without a challenge', async () => {
    const { token } = await storedToken();
    const renewal = await pay({ token, initiator: 'merchant', reference: 'renewal-2' });
    expect(renewal.status, renewal.text).toBe(200);
    expect(renewal.json).toMatchObject({ status: 'authorized', initiator: 'merchant', next_action: null, advice_code: null });
    expect(eventTypes(sb, renewal.json.id)).toEqual(['payment.authorized', 'payment.captured']);
  });

  it('the same token paid with the customer present is challenged again', async () => {
    const { token } = await storedToken();
    const again = await pay({ token, return_url: 'https://shop.example/return' });
    expect(again.json.status).toBe('requires_action');
  });

  it.each([
    ['4000000000009995', 'insufficient_funds', 'try_again_later'],
    ['4000000000000119', 'processing_error', 'try_again_later'],
    ['4000000000009979', 'stolen_card', 'do_not_try_again'],
    ['4000000000009987', 'lost_card', 'do_not_try_again'],
  ])('card %s declines %s with advice_code %s, in the answer and the event', async (number, code, advice) => {
    // The card approves the first payment (a scripted approve), then its own decline applies.
    const saved = (await sb.request('POST', '/v1/tokens', { card: card(number) }, AUTH)).json.id;
    await sb.request('POST', `/_sandbox/tokens/${saved}/outcomes`, { outcomes: ['approve'] });
    expect((await pay({ token: saved, setup_future_usage: 'off_session' })).json.status).toBe('authorized');
    const renewal = await pay({ token: saved, initiator: 'merchant' });
    expect(renewal.json).toMatchObject({ status: 'declined', decline_code: code, advice_code: advice });
    const event = sb.db.prepare("SELECT data FROM events WHERE resource_id = ? AND type = 'payment.declined'").pluck().get(renewal.json.id);
    expect(JSON.parse(event as string)).toMatchObject({ decline_code: code, advice_code: advice });
  });

  it('refuses a card, a missing token, a predefined token and setup_future_usage, each naming the field', async () => {
    const { token } = await storedToken();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ card: card('4242424242424242'), initiator: 'merchant' }, 'initiator'],
      [{ initiator: 'merchant' }, 'initiator'],
      [{ token: 'tok_visa', initiator: 'merchant' }, 'initiator'],
      [{ token, initiator: 'merchant', setup_future_usage: 'off_session' }, 'setup_future_usage'],
      [{ token: 'tok_visa', setup_future_usage: 'off_session' }, 'token'],
      [{ token, initiator: 'someone' }, 'initiator'],
      [{ card: card('4242424242424242'), setup_future_usage: 'on_session' }, 'setup_future_usage'],
    ];
    for (const [body, param] of cases) {
      const res = await pay(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.error.param, JSON.stringify(body)).toBe(param);
    }
    expect(sb.db.prepare("SELECT COUNT(*) FROM payments WHERE initiator = 'merchant'").pluck().get()).toBe(0);
  });

  it("another merchant's token is a 404 naming token", async () => {
    const { token } = await storedToken();
    const res = await pay({ token, initiator: 'merchant' }, OTHER);
    expect(res.status).toBe(404);
    expect(res.json.error.param).toBe('token');
  });
});

describe('an uncaptured authorisation lapses', () => {
  const DAY = 86_400_000;
  it('after 7 sandbox days: expired with payment.expired and a reason, and capturing it then is a 409 saying why', async () => {
    const payment = await createPayment(sb, { token: 'tok_visa', capture: false });
    sb.clock.advance(7 * DAY - 1000);
    sb.services.jobs.runDue();
    expect((await sb.request('GET', `/v1/payments/${payment.id}`, undefined, AUTH)).json.status).toBe('authorized');
    sb.clock.advance(1000);
    sb.services.jobs.runDue();
    const lapsed = (await sb.request('GET', `/v1/payments/${payment.id}`, undefined, AUTH)).json;
    expect(lapsed).toMatchObject({
      status: 'expired',
      failure_message: 'authorization_expired: it was not captured within 7d of its authorization',
    });
    expect(eventTypes(sb, payment.id)).toEqual(['payment.authorized', 'payment.expired']);
    const capture = await sb.request('POST', `/v1/payments/${payment.id}/capture`, {}, AUTH);
    expect(capture.status).toBe(409);
    expect(capture.json.error).toMatchObject({ code: 'authorization_expired', param: 'id' });
    expect(capture.json.error.message).toContain('it was not captured within 7d of its authorization');
  });

  it('a captured or canceled payment does not lapse', async () => {
    const captured = await createPayment(sb, { token: 'tok_visa', capture: false });
    await sb.request('POST', `/v1/payments/${captured.id}/capture`, {}, AUTH);
    const canceled = await createPayment(sb, { token: 'tok_visa', capture: false });
    await sb.request('POST', `/v1/payments/${canceled.id}/cancel`, {}, AUTH);
    sb.clock.advance(8 * DAY);
    sb.services.jobs.runDue();
    expect(eventTypes(sb, captured.id)).toEqual(['payment.authorized', 'payment.captured']);
    expect(eventTypes(sb, canceled.id)).toEqual(['payment.authorized', 'payment.canceled']);
  });

  it('--authorization-lifetime changes how long it lasts', async () => {
    sb.close();
    sb = createTestSandbox({ authorizationLifetime: '1h' });
    const payment = await createPayment(sb, { token: 'tok_visa', capture: false });
    sb.clock.advance(3_600_000);
    sb.services.jobs.runDue();
    expect((await sb.request('GET', `/v1/payments/${payment.id}`, undefined, AUTH)).json).toMatchObject({
      status: 'expired',
      failure_message: 'authorization_expired: it was not captured within 1h of its authorization',
    });
  });
});
