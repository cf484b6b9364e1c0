// A year of monthly renewals on a real sandbox with a webhook receiver (issue 33): the first
// payment with 3-D Secure stores the card, the merchant's own scheduler charges it each month after
// `clock advance`, month 4 is scripted to decline and is retried by its advice_code, the card
// expires in month 9 (token.expiring first; update_card), the customer stores a new card and the
// renewals go on. Every event reaches the receiver exactly once, and each month's
// settlement carries what was captured that month.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { settlementFee } from '../../src/services/settlements.js';
import { startSandboxWithMerchant, type SandboxWithMerchant } from '../helpers/sandbox-with-merchant.js';
import { waitFor } from '../helpers/wait-for.js';

const KEY = { authorization: 'Bearer sk_test_sandbox' };
const PRICE = 1299;
let env: SandboxWithMerchant;
beforeAll(async () => {
  env = await startSandboxWithMerchant({ flags: { retry: 'none' } });
});
afterAll(() => env.close());

/** Sandbox time now, from the control API. */
const sandboxNow = async () => Date.parse((await env.http.get('/_sandbox/clock')).json.now);
/** Advances to `at` (sandbox ms), waiting for the first attempt of every delivery the jump caused; returns the report. */
async function advanceTo(at: number) {
  const days = (at - (await sandboxNow())) / 86_400_000;
  const res = await env.http.post('/_sandbox/clock/advance', { duration: `${days.toFixed(6)}d`, wait: '10s' });
  expect(res.status, res.text).toBe(200);
  expect(res.json.report).toMatchObject({ failed: 0, unanswered: 0 });
  return res.json;
}

it('a year of renewals: a scripted decline retried by its advice, an expiry, a new card, every event delivered once', async () => {
  const hooks = `${env.merchant.url}/hooks`;
  // Renewals fall on the 1st of each month at noon, from next month on.
  const now = new Date(await sandboxNow());
  const monthAt = (m: number) => Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1 + m, 1, 12);
  // Valid through the month of renewal 8 (index 7): renewal 9 (index 8) finds it expired.
  const expiry = new Date(monthAt(7));
  const card = { number: '4000000000003220', exp_month: expiry.getUTCMonth() + 1, exp_year: expiry.getUTCFullYear(), cvc: '123' };
  const pay = (body: Record<string, unknown>) =>
    env.http.post('/v1/payments', { amount: PRICE, currency: 'EUR', webhook_url: hooks, ...body }, KEY);

  const first = await pay({ card, setup_future_usage: 'off_session', return_url: 'https://shop.example/return' });
  expect(first.json.status).toBe('requires_action');
  await env.http.post(`/_sandbox/transactions/${first.json.id}/authenticate`, { outcome: 'approve' });
  let token: string = first.json.token;
  // Month 4 (index 3) is scripted to fail for lack of funds; the rest approve.
  const scripted = await env.http.post(`/_sandbox/tokens/${token}/outcomes`, {
    outcomes: ['approve', 'approve', 'approve', 'insufficient_funds'],
  });
  expect(scripted.status, scripted.text).toBe(200);

  const expected: string[] = ['payment.requires_action', 'payment.authorized', 'payment.captured'];
  const captured: number[][] = [];
  for (let m = 0; m < 12; m++) {
    const report = await advanceTo(monthAt(m));
    expected.push(...report.report.steps.flatMap((s: { events: { type: string }[] }) => s.events.map((e) => e.type)));
    // The first month's settlement also carries the first, customer-initiated payment.
    const month: number[] = m === 0 ? [PRICE] : [];
    let renewal = (await pay({ token, initiator: 'merchant', reference: `sub-1-month-${m + 1}` })).json;
    expected.push(...(renewal.status === 'declined' ? ['payment.declined'] : ['payment.authorized', 'payment.captured']));
    if (m === 3) {
      expect(renewal).toMatchObject({ status: 'declined', decline_code: 'insufficient_funds', advice_code: 'try_again_later' });
      // The merchant's retry logic reads the advice: try again three days later, which approves.
      await advanceTo(monthAt(m) + 3 * 86_400_000);
      renewal = (await pay({ token, initiator: 'merchant', reference: `sub-1-month-${m + 1}-retry` })).json;
      expected.push('payment.authorized', 'payment.captured');
    }
    if (m === 8) {
      expect(renewal).toMatchObject({ status: 'declined', decline_code: 'expired_card', advice_code: 'update_card' });
      // update_card: the customer comes back and pays this month with a new card (frictionless), stored for the next ones.
      const fresh = await pay({
        card: { ...card, number: '4242424242424242', exp_year: expiry.getUTCFullYear() + 3 },
        setup_future_usage: 'off_session',
      });
      expected.push('payment.authorized', 'payment.captured');
      month.push(fresh.json.amount);
      token = fresh.json.token;
    }
    if (renewal.status !== 'declined') month.push(renewal.amount);
    expect(renewal.status === 'declined' ? m : -1, `renewal ${m + 1}: ${JSON.stringify(renewal)}`).toBe(m === 8 ? 8 : -1);
    const settled = (await env.http.post('/_sandbox/settlements', { pay_after: '0s' })).json.data;
    captured.push(month);
    const gross = month.reduce((a, b) => a + b, 0);
    expect(settled.map((s: { gross: number; count: number; fees: number; net: number }) => [s.gross, s.count, s.fees, s.net])).toEqual([
      [gross, month.length, month.length * settlementFee(PRICE, 'EUR'), gross - month.length * settlementFee(PRICE, 'EUR')],
    ]);
  }
  // token.expiring came once, for the first card, before the renewal that found it expired.
  expect(expected.filter((type) => type === 'token.expiring')).toHaveLength(1);
  expect(expected.indexOf('token.expiring')).toBeLessThan(expected.lastIndexOf('payment.declined'));

  // Every event of the merchant reached the receiver exactly once: the events the year was expected
  // to make, no other. Not in publication order: a receiver takes several deliveries at once, so two
  // sent a few ms apart may arrive swapped (docs/webhooks.md: make handlers idempotent and order-proof).
  const events = (await env.http.get('/_sandbox/events?limit=1000')).json.data.filter(
    (e: { event: string }) => !e.event.startsWith('settlement.'),
  );
  await waitFor(() => env.merchant.at('/hooks').length >= events.length || undefined, 'every delivery', 10_000);
  const received = env.merchant.at('/hooks').map((r) => JSON.parse(r.body) as { id: string; event: string });
  expect(new Set(received.map((r) => r.id)).size).toBe(received.length);
  expect(new Set(received.map((r) => r.id))).toEqual(new Set(events.map((e: { id: string }) => e.id)));
  expect(received.map((r) => r.event).sort()).toEqual([...expected].sort());
  // The first card's first payment, 7 renewals and the retry; the new card's first payment and its 3 renewals.
  expect(captured.flat()).toHaveLength(13);
}, 120_000);
