// Chargebacks over sockets: the test card 4000000000000259 opens one after `clock advance 30s`,
// and the merchant's receiver gets the signed S2S form webhook (order_status 11) or the signed
// JSON chargeback.created event, then chargeback.won / chargeback.lost when it is decided.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ReceivedWebhook } from '../helpers/fake-merchant.js';
import { useSandboxWithMerchant } from '../helpers/sandbox-with-merchant.js';
import { CREDS, s2sBody } from '../helpers/test-sandbox.js';
import { waitFor } from '../helpers/wait-for.js';

const env = useSandboxWithMerchant({ each: true });

function signedBySandbox(hook: ReceivedWebhook): boolean {
  const expected = `sha256=${createHmac('sha256', CREDS.secret).update(hook.body).digest('hex')}`;
  return hook.headers['x-sandbox-signature'] === expected;
}

const formHook = (path: string, orderStatus: string) => () =>
  env.merchant.at(path).find((h) => new URLSearchParams(h.body).get('order_status') === orderStatus && signedBySandbox(h));
const jsonHook = (path: string, event: string) => () =>
  env.merchant.at(path).find((h) => JSON.parse(h.body).event === event && signedBySandbox(h));

describe('chargebacks end to end', () => {
  it('S2S: card 0259 is approved, charged back after clock advance 30s, then lost', async () => {
    const created = await env.http.post('/api/s2s', s2sBody({ ccno: '4000000000000259', webhook_url: `${env.merchant.url}/s2s` }));
    expect(created.json.order_status).toBe('25');
    await waitFor(formHook('/s2s', '25'), 'the Test Approved webhook');
    expect((await env.http.post('/_sandbox/clock/advance', { duration: '30s' })).json.jobs_run).toBeGreaterThanOrEqual(1);
    const hook = await waitFor(formHook('/s2s', '11'), 'the Chargeback webhook');
    const fields = new URLSearchParams(hook.body);
    expect(fields.get('transID')).toBe(created.json.transID);
    expect(fields.get('status')).toBe('Chargeback');
    expect(hook.headers['x-sandbox-event-id']).toMatch(/^evt_/);

    const lost = await env.http.post(`/_sandbox/chargebacks/${created.json.transID}/lose`, {});
    expect(lost.json.status).toBe('lost');
    await waitFor(
      () => env.merchant.at('/s2s').find((h) => /lost/.test(new URLSearchParams(h.body).get('response') ?? '')),
      'the chargeback.lost webhook',
    );
  });

  it('/v1/: tok_chargeback is disputed after clock advance 30s, then won; both events arrive signed', async () => {
    const auth = { authorization: `Bearer ${CREDS.apiKey}` };
    const payment = await env.http.post(
      '/v1/payments',
      { amount: 4200, currency: 'EUR', token: 'tok_chargeback', webhook_url: `${env.merchant.url}/v1` },
      auth,
    );
    // The create answer shows the payment as authorized (spec §2.6); capture follows in the same request.
    expect(payment.json.status).toBe('authorized');
    await env.http.post('/_sandbox/clock/advance', { duration: '30s' });
    const opened = JSON.parse((await waitFor(jsonHook('/v1', 'chargeback.created'), 'chargeback.created')).body);
    expect(opened.data).toMatchObject({
      payment_id: payment.json.id,
      amount: 4200,
      currency: 'EUR',
      reason: 'fraudulent',
      status: 'open',
      payment_status: 'disputed',
    });

    const won = await env.http.post(`/_sandbox/chargebacks/${opened.data.chargeback_id}/win`, {});
    expect(won.json.status).toBe('won');
    const event = JSON.parse((await waitFor(jsonHook('/v1', 'chargeback.won'), 'chargeback.won')).body);
    expect(event.data).toMatchObject({ chargeback_id: opened.data.chargeback_id, status: 'won', payment_status: 'captured' });
    expect((await env.http.get(`/v1/payments/${payment.json.id}`, auth)).json.status).toBe('captured');
  });
});
