// /v1/tokens: saving a card (never returning the number), the predefined test tokens of the
// TEST_CARDS table, and paying with a token replaying its card's outcome.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestSandbox, type TestSandbox } from '../helpers/test-sandbox.js';
import { TEST_CARDS } from '../../src/domain/outcomes.js';
import { AUTH, createPayment } from '../helpers/payments-api.js';

let sb: TestSandbox;
beforeEach(() => {
  sb = createTestSandbox();
});
afterEach(() => sb.close());

const card = (fields: Record<string, unknown> = {}) => ({
  number: '4000 0000 0000 9995',
  exp_month: 3,
  exp_year: 2029,
  cvc: '314',
  ...fields,
});

describe('POST /v1/tokens', () => {
  it('returns tok_... with brand, last4 and expiry, never the number or cvc', async () => {
    const res = await sb.request('POST', '/v1/tokens', { card: card() }, AUTH);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      id: expect.stringMatching(/^tok_[A-Za-z0-9]{16}$/),
      object: 'token',
      card: { brand: 'VISA', last4: '9995', exp_month: 3, exp_year: 2029 },
      predefined: false,
      off_session_payment: null,
      created_at: '2026-01-15T12:00:00.000Z',
    });
    expect(res.text).not.toContain('4000000000009995');
    expect(res.text).not.toContain('314');
    const shown = await sb.request('GET', `/v1/tokens/${res.json.id}`, undefined, AUTH);
    expect(shown.json).toEqual(res.json);
  });

  it('a token replays its card: declined insufficient_funds, every time it is used', async () => {
    const token = (await sb.request('POST', '/v1/tokens', { card: card() }, AUTH)).json.id;
    for (let i = 0; i < 2; i++) {
      const payment = await createPayment(sb, { token });
      expect(payment).toMatchObject({
        status: 'declined',
        decline_code: 'insufficient_funds',
        token,
        card: { last4: '9995', exp_month: 3, exp_year: 2029 },
      });
    }
  });

  it('a token of a 3-D Secure card gives requires_action', async () => {
    const token = (await sb.request('POST', '/v1/tokens', { card: card({ number: '5555555555554444' }) }, AUTH)).json;
    expect(token.card.brand).toBe('MASTERCARD');
    expect((await createPayment(sb, { token: token.id })).status).toBe('requires_action');
  });

  it.each([
    [{}, 'parameter_missing', 'card'],
    [{ card: card({ number: '4000000000009994' }) }, 'parameter_invalid', 'card.number'],
    [{ card: card({ exp_month: 0 }) }, 'parameter_invalid', 'card.exp_month'],
    [{ card: card({ exp_year: 2025 }) }, 'parameter_invalid', 'card.exp_year'],
    [{ card: card({ exp_year: '2029' }) }, 'parameter_invalid', 'card.exp_year'],
    [{ card: card({ cvc: 314 }) }, 'parameter_invalid', 'card.cvc'],
    [{ card: card(), customer: 'x' }, 'parameter_unknown', 'customer'],
  ])('body %j is 400 %s on %s', async (body, code, param) => {
    const res = await sb.request('POST', '/v1/tokens', body, AUTH);
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code, param });
    expect(res.text).not.toContain('4000000000009994');
  });
});

describe('predefined test tokens', () => {
  it.each(TEST_CARDS.map((c) => [c.token, c.number]))('GET /v1/tokens/%s shows card ...%s', async (token, number) => {
    const res = await sb.request('GET', `/v1/tokens/${token}`, undefined, AUTH);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      id: token,
      object: 'token',
      predefined: true,
      created_at: null,
      card: { last4: number.slice(-4), exp_month: 12, exp_year: 2031 },
    });
    expect(res.text).not.toContain(number);
  });

  it('every merchant can use them', async () => {
    const res = await sb.request('GET', '/v1/tokens/tok_visa', undefined, { authorization: 'Bearer sk_test_other' });
    expect(res.status).toBe(200);
    const payment = await sb.request(
      'POST',
      '/v1/payments',
      { amount: 100, currency: 'EUR', token: 'tok_visa' },
      { authorization: 'Bearer sk_test_other' },
    );
    expect(payment.json.status).toBe('authorized');
  });

  it('an unknown token is 404 on id', async () => {
    const res = await sb.request('GET', '/v1/tokens/tok_nope', undefined, AUTH);
    expect(res.status).toBe(404);
    expect(res.json.error).toMatchObject({ code: 'resource_missing', param: 'id' });
  });
});

describe('card numbers at rest', () => {
  /** Every value of every table, as one text. */
  const everything = () =>
    (sb.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[])
      .map((table) => JSON.stringify(sb.db.prepare(`SELECT * FROM "${table}"`).raw().all()))
      .join('\n');

  it('a token row keeps brand, last 4, expiry and the outcome, never the number or the cvc', async () => {
    const token = (await sb.request('POST', '/v1/tokens', { card: card({ cvc: '7391' }) }, AUTH)).json.id;
    const row = sb.db.prepare('SELECT * FROM tokens WHERE id = ?').get(token);
    expect(row).toEqual({
      id: token,
      merchant_id: 'mer_sandbox',
      brand: 'VISA',
      last4: '9995',
      exp_month: 3,
      exp_year: 2029,
      outcome: JSON.stringify(TEST_CARDS.find((c) => c.number === '4000000000009995')!.script),
      created_at: expect.any(Number),
      off_session_payment_id: null,
      scripted_outcomes: '[]',
      renews: 0,
    });
    expect(everything()).not.toContain('4000000000009995');
    expect(everything()).not.toMatch(/(?<!\d)7391(?!\d)/);
  });

  it.each([
    ['a string', { card: '4000000000009995|03|2029|7391' }, 'card', 'got a string of 29 characters'],
    [
      'an object of the wrong shape',
      { card: card({ number: { pan: '4000000000009995' }, cvc: '7391' }) },
      'card.number',
      'got an object with 1 field',
    ],
    [
      'a cvc of the wrong type',
      { card: card({ number: '4000000000009995', cvc: { value: '7391' } }) },
      'card.cvc',
      'got an object with 1 field',
    ],
    ['an array', { card: ['4000000000009995', '7391'] }, 'card', 'got an array of 2 items'],
    ['a number as a number', { card: card({ number: 4000000000009995, cvc: '7391' }) }, 'card.number', 'got a number'],
    [
      'a wrong expiry beside the number',
      { card: card({ exp_month: '03', cvc: '7391' }) },
      'card.exp_month',
      'got a string of 2 characters',
    ],
  ])(
    'a card given as %s is a 400 that echoes neither the number nor the cvc, even stored by an Idempotency-Key',
    async (_name, body, param, says) => {
      const res = await sb.request('POST', '/v1/tokens', body, { ...AUTH, 'idempotency-key': 'bad-card' });
      expect(res.status).toBe(400);
      expect(res.json.error.param).toBe(param);
      expect(res.json.error.message).toContain(says);
      expect(res.text).not.toContain('4000000000009995');
      expect(res.text).not.toContain('7391');
      expect(sb.db.prepare('SELECT COUNT(*) FROM idempotency_keys').pluck().get()).toBe(1);
      expect(everything()).not.toContain('4000000000009995');
      expect(everything()).not.toContain('7391');
    },
  );
});
