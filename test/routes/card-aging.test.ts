// Cards age with the sandbox clock (issue 33): a saved card expires at the end of its expiry month
// (then charges decline expired_card, advice update_card), token.expiring goes out once 30 days
// before, and the renewing test card gets a new expiry and token.updated instead. SEPA debits of the
// return test IBANs come back days later (payment.returned) and the next settlement claws them back.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestSandbox, type TestSandbox } from '../helpers/test-sandbox.js';
import { AUTH, deliveryUrls, eventTypes, lastEventData } from '../helpers/payments-api.js';

let sb: TestSandbox;
beforeEach(() => {
  // The fixed clock starts at 2026-01-15T12:00:00Z.
  sb = createTestSandbox();
});
afterEach(() => sb.close());

const DAY = 86_400_000;
/** Moves the clock to `iso` and runs what fell due. */
const advanceTo = (iso: string) => {
  sb.clock.advance(Date.parse(iso) - sb.clock.now());
  sb.services.jobs.runDue();
};
const saveToken = async (number: string, exp_month = 12, exp_year = 2030) =>
  (await sb.request('POST', '/v1/tokens', { card: { number, exp_month, exp_year, cvc: '123' } }, AUTH)).json;
const charge = async (token: string, initiator = 'customer') =>
  (await sb.request('POST', '/v1/payments', { amount: 700, currency: 'EUR', token, initiator }, AUTH)).json;
const count = (type: string, resource: string) =>
  sb.db.prepare('SELECT COUNT(*) FROM events WHERE type = ? AND resource_id = ?').pluck().get(type, resource) as number;

describe('a saved card expires at the end of its expiry month', () => {
  it('token.expiring once, 30 days before; approved through the month; then expired_card with update_card', async () => {
    const token = await saveToken('4242424242424242', 9, 2026);
    const first = await sb.request(
      'POST',
      '/v1/payments',
      { amount: 700, currency: 'EUR', token: token.id, setup_future_usage: 'off_session', webhook_url: 'https://shop.example/hooks' },
      AUTH,
    );
    expect(first.json.status).toBe('authorized');
    advanceTo('2026-08-31T23:59:59.000Z');
    expect(count('token.expiring', token.id)).toBe(0);
    advanceTo('2026-09-01T00:00:00.000Z');
    expect(count('token.expiring', token.id)).toBe(1);
    expect(lastEventData(sb, token.id, 'token.expiring')).toEqual({
      token_id: token.id,
      card: { brand: 'VISA', last4: '4242', exp_month: 9, exp_year: 2026 },
      expires_at: '2026-10-01T00:00:00.000Z',
      off_session_payment: first.json.id,
    });
    // To the webhook_url of the payment that stored it, as that payment's own events.
    expect(deliveryUrls(sb, token.id, 'token.expiring')).toEqual(['https://shop.example/hooks']);
    advanceTo('2026-09-30T23:59:59.000Z');
    expect((await charge(token.id, 'merchant')).status).toBe('authorized');
    advanceTo('2026-10-01T00:00:00.000Z');
    expect(await charge(token.id, 'merchant')).toMatchObject({
      status: 'declined',
      decline_code: 'expired_card',
      advice_code: 'update_card',
    });
    expect(await charge(token.id)).toMatchObject({ status: 'declined', decline_code: 'expired_card' });
    advanceTo('2027-06-01T00:00:00.000Z');
    expect(count('token.expiring', token.id)).toBe(1);
    expect(count('token.updated', token.id)).toBe(0);
  });

  it('the expiring test card 4000000000000077 expires at the end of the month 60 days on, whatever was typed', async () => {
    const token = await saveToken('4000000000000077', 12, 2031);
    // 2026-01-15 + 60 days is 2026-03-16: valid through March.
    expect(token.card).toEqual({ brand: 'VISA', last4: '0077', exp_month: 3, exp_year: 2026 });
    advanceTo('2026-03-02T00:00:00.000Z');
    expect(count('token.expiring', token.id)).toBe(1);
    advanceTo('2026-04-01T00:00:00.000Z');
    expect((await charge(token.id)).decline_code).toBe('expired_card');
  });

  it('the renewing test card 4000000000000176: token.expiring, then at the end a new expiry and token.updated; charges go on', async () => {
    const token = await saveToken('4000000000000176');
    expect(token.card).toMatchObject({ exp_month: 3, exp_year: 2026 });
    advanceTo('2026-04-01T00:00:00.000Z');
    expect(eventTypes(sb, token.id)).toEqual(['token.expiring', 'token.updated']);
    expect(lastEventData(sb, token.id, 'token.updated')).toMatchObject({
      card: { last4: '0176', exp_month: 3, exp_year: 2029 },
      previous_card: { exp_month: 3, exp_year: 2026 },
      reason: 'renewed_by_issuer',
      expires_at: '2029-04-01T00:00:00.000Z',
    });
    expect((await sb.request('GET', `/v1/tokens/${token.id}`, undefined, AUTH)).json.card).toMatchObject({ exp_month: 3, exp_year: 2029 });
    expect((await charge(token.id)).status).toBe('authorized');
    // The new expiry ages too: its token.expiring is due 30 days before April 2029.
    advanceTo('2029-03-02T00:00:01.000Z');
    expect(count('token.expiring', token.id)).toBe(2);
  });

  it('predefined tokens never age', async () => {
    sb.clock.advance(3 * 365 * DAY);
    expect((await charge('tok_visa')).status).toBe('authorized');
  });
});

describe('SEPA returns and their clawback', () => {
  /** A SEPA payment on a new checkout session, paid with `iban`; returns its id. */
  async function sepaPayment(iban: string): Promise<string> {
    const session = await sb.request(
      'POST',
      '/v1/checkout/sessions',
      { amount: 4200, currency: 'EUR', methods: ['sepa'], return_url: 'https://shop.example/r' },
      AUTH,
    );
    const token = new URL(session.json.url).pathname.split('/').pop()!;
    const page = await sb.request('GET', `/pay/${token}`);
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)![1]!;
    const form = new URLSearchParams({ csrf, method: 'sepa', iban, holder: 'Jane Doe' }).toString();
    const paid = await sb.request('POST', `/pay/${token}/sepa`, form, { 'content-type': 'application/x-www-form-urlencoded' });
    expect(paid.status, paid.text).toBeLessThan(400);
    return (sb.db.prepare('SELECT payment_id FROM checkout_sessions WHERE token = ?').pluck().get(token) as string)!;
  }
  const settle = async () => (await sb.request('POST', '/_sandbox/settlements', { merchant: 'mer_sandbox', pay_after: '0s' })).json.data;

  it.each([
    ['NL91 ABNA 0417 1643 00', 'AM04', 'Insufficient funds', 2],
    ['DE89 3704 0044 0532 0130 00', 'MD06', 'Refund requested by the debtor', 10],
  ])(
    '%s is collected, settled, returned with %s after its days, and the next settlement claws it back',
    async (iban, code, words, days) => {
      const id = await sepaPayment(iban);
      sb.clock.advance(5_000);
      sb.services.jobs.runDue();
      const payment = (await sb.request('GET', `/v1/payments/${id}`, undefined, AUTH)).json;
      expect(payment).toMatchObject({ status: 'captured', method: 'sepa', return_reason: null });
      const [first] = await settle();
      expect(first).toMatchObject({ gross: 4200, count: 1, adjustments: 0 });
      sb.clock.advance(days * DAY - 1000);
      sb.services.jobs.runDue();
      expect((await sb.request('GET', `/v1/payments/${id}`, undefined, AUTH)).json.status).toBe('captured');
      sb.clock.advance(1000);
      sb.services.jobs.runDue();
      const returned = (await sb.request('GET', `/v1/payments/${id}`, undefined, AUTH)).json;
      expect(returned).toMatchObject({ status: 'returned', return_reason: { code, message: words } });
      expect(eventTypes(sb, id)).toEqual(['payment.authorized', 'payment.captured', 'payment.returned']);
      expect(lastEventData(sb, id, 'payment.returned')).toMatchObject({ status: 'returned', return_reason: { code, message: words } });
      const [clawback] = await settle();
      expect(clawback).toMatchObject({ gross: 0, count: 0, adjustments: -4200, net: -4200 });
      expect(JSON.stringify(clawback)).toContain('"kind":"return"');
      // Taken back once: a later settlement has nothing more of it.
      expect(await settle()).toEqual([]);
    },
  );

  it('a debit returned before any settlement carried it is never settled', async () => {
    const id = await sepaPayment('NL91ABNA0417164300');
    sb.clock.advance(3 * DAY);
    sb.services.jobs.runDue();
    expect((await sb.request('GET', `/v1/payments/${id}`, undefined, AUTH)).json.status).toBe('returned');
    expect(await settle()).toEqual([]);
  });
});
