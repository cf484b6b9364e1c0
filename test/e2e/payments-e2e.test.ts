// The bearer API over real sockets: a 3-D Secure payment through the authentication page, its
// signed JSON webhooks at the payment's webhook_url in order, and a refund completing on the
// sandbox's own timer (no clock advance) with refund.succeeded.
import { describe, expect, it } from 'vitest';
import { verifySignature } from '../../src/signatures/signing.js';
import { AUTH } from '../helpers/payments-api.js';
import { useSandboxWithMerchant } from '../helpers/sandbox-with-merchant.js';
import { CREDS } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';

describe('bearer payments end to end', () => {
  const env = useSandboxWithMerchant();

  /** The envelopes received at /hooks for one payment, verified, in arrival order. */
  const received = (paymentId: string) =>
    env.merchant
      .at('/hooks')
      .map((r) => {
        expect(verifySignature(r.headers['x-sandbox-signature'] as string, CREDS.secret, r.body)).toBe(true);
        expect(r.headers['content-type']).toBe('application/json');
        return JSON.parse(r.body) as { event: string; id: string; data: Record<string, unknown>; created_at: string };
      })
      .filter((e) => e.data.payment_id === paymentId);

  it('3-D Secure payment: page, redirect, signed webhooks; then a refund completes by itself', async () => {
    const payment = (
      await env.http.post(
        '/v1/payments',
        {
          amount: 2500,
          currency: 'EUR',
          token: 'tok_threeds_required',
          reference: 'ord_e2e',
          return_url: `${env.merchant.url}/return`,
          webhook_url: `${env.merchant.url}/hooks`,
        },
        AUTH,
      )
    ).json;
    expect(payment.status).toBe('requires_action');

    const pagePath = new URL(payment.next_action.url).pathname;
    const html = (await env.http.get(pagePath)).text;
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)![1]!;
    const submitted = await env.http.postForm(pagePath, { csrf, otp: '123456', action: 'submit' });
    expect(submitted.status).toBe(303);
    expect(submitted.headers.get('location')).toBe(`${env.merchant.url}/return?payment_id=${payment.id}&status=captured`);

    const events = await waitFor(() => (received(payment.id).length >= 3 ? received(payment.id) : undefined), 'three payment webhooks');
    expect(events.map((e) => e.event).sort()).toEqual(['payment.authorized', 'payment.captured', 'payment.requires_action']);
    expect(events.find((e) => e.event === 'payment.captured')!.data).toMatchObject({
      payment_id: payment.id,
      status: 'captured',
      amount: 2500,
      currency: 'EUR',
      reference: 'ord_e2e',
    });

    const refund = (await env.http.post('/v1/refunds', { payment_id: payment.id, amount: 1000 }, AUTH)).json;
    expect(refund.status).toBe('pending');
    // Completes on the job runner's timer (2 s of sandbox time), not by a clock advance.
    const succeeded = await waitFor(
      () => received(payment.id).find((e) => e.event === 'refund.succeeded'),
      'refund.succeeded webhook',
      10_000,
    );
    expect(succeeded.data).toMatchObject({ refund_id: refund.id, amount: 1000, payment_status: 'partially_refunded' });
    const shown = (await env.http.get(`/v1/payments/${payment.id}`, AUTH)).json;
    expect(shown).toMatchObject({ status: 'partially_refunded', amount_refunded: 1000 });
  });
});
