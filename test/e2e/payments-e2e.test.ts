// The bearer API over real sockets: a 3-D Secure payment through the authentication page, its
// signed JSON webhooks at the payment's webhook_url in order, and a refund completing on the
// sandbox's own timer (no clock advance) with refund.succeeded.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySignature } from '../../src/crypto/signature.js';
import type { RunningServer } from '../../src/server/start-server.js';
import { startFakeMerchant, type FakeMerchant } from '../helpers/fake-merchant.js';
import { CREDS, startTestServer } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';

const AUTH = { authorization: `Bearer ${CREDS.apiKey}`, 'content-type': 'application/json' };

describe('bearer payments end to end', () => {
  let running: RunningServer;
  let merchant: FakeMerchant;
  beforeAll(async () => {
    merchant = await startFakeMerchant();
    running = await startTestServer();
  });
  afterAll(async () => {
    await running.close();
    await merchant.close();
  });

  /** The envelopes received at /hooks for one payment, verified, in arrival order. */
  const received = (paymentId: string) =>
    merchant.at('/hooks').map((r) => {
      expect(verifySignature(r.headers['x-sandbox-signature'] as string, CREDS.secret, r.body)).toBe(true);
      expect(r.headers['content-type']).toBe('application/json');
      return JSON.parse(r.body) as { event: string; id: string; data: Record<string, unknown>; created_at: string };
    }).filter((e) => e.data.payment_id === paymentId);

  it('3-D Secure payment: page, redirect, signed webhooks; then a refund completes by itself', async () => {
    const created = await fetch(`${running.url}/v1/payments`, {
      method: 'POST',
      headers: AUTH,
      body: JSON.stringify({ amount: 2500, currency: 'EUR', token: 'tok_threeds_required', reference: 'ord_e2e', return_url: `${merchant.url}/return`, webhook_url: `${merchant.url}/hooks` }),
    });
    const payment = await created.json();
    expect(payment.status).toBe('requires_action');

    const page = await fetch(payment.next_action.url);
    const html = await page.text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)![1]!;
    const submitted = await fetch(payment.next_action.url, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf, otp: '123456', action: 'submit' }).toString(),
    });
    expect(submitted.status).toBe(303);
    expect(submitted.headers.get('location')).toBe(`${merchant.url}/return?payment_id=${payment.id}&status=captured`);

    const events = await waitFor(() => (received(payment.id).length >= 3 ? received(payment.id) : undefined), 'three payment webhooks');
    expect(events.map((e) => e.event).sort()).toEqual(['payment.authorized', 'payment.captured', 'payment.requires_action']);
    expect(events.find((e) => e.event === 'payment.captured')!.data).toMatchObject({ payment_id: payment.id, status: 'captured', amount: 2500, currency: 'EUR', reference: 'ord_e2e' });

    const refund = await (await fetch(`${running.url}/v1/refunds`, { method: 'POST', headers: AUTH, body: JSON.stringify({ payment_id: payment.id, amount: 1000 }) })).json();
    expect(refund.status).toBe('pending');
    // Completes on the job runner's timer (2 s of sandbox time), not by a clock advance.
    const succeeded = await waitFor(() => received(payment.id).find((e) => e.event === 'refund.succeeded'), 'refund.succeeded webhook', 10_000);
    expect(succeeded.data).toMatchObject({ refund_id: refund.id, amount: 1000, payment_status: 'partially_refunded' });
    const shown = await (await fetch(`${running.url}/v1/payments/${payment.id}`, { headers: AUTH })).json();
    expect(shown).toMatchObject({ status: 'partially_refunded', amount_refunded: 1000 });
  });
});
